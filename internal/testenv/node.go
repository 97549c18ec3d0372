package testenv

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// nodeTools is the npm install of the JavaScript test runners the tests
// share (testreport/testdata/red/node-tools: its package.json and
// package-lock.json pin vitest, jest, jest-junit, ts-jest and typescript),
// made once per machine in the user's cache directory
// ($TASKPROOF_TEST_CACHE overrides it) from the npm registry and reused.
var nodeTools struct {
	once    sync.Once
	dir     string
	missing string
}

// NodeTools returns the directory of that install (its node_modules holds
// the runners), or why it is not there: node or npm missing, the registry
// unreachable. Concurrent callers share one install.
func NodeTools(t testing.TB) (dir, missing string) {
	t.Helper()
	root := RepoRoot(t)
	nodeTools.once.Do(func() { installNodeTools(filepath.Join(root, "testreport", "testdata", "red", "node-tools")) })
	return nodeTools.dir, nodeTools.missing
}

func installNodeTools(src string) {
	if _, err := exec.LookPath("node"); err != nil {
		nodeTools.missing = "node is not installed (apt-get install nodejs npm)"
		return
	}
	if _, err := exec.LookPath("npm"); err != nil {
		nodeTools.missing = "npm is not installed (apt-get install npm)"
		return
	}
	h := sha256.New()
	var files [][]byte
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			nodeTools.missing = err.Error()
			return
		}
		h.Write(b)
		files = append(files, b)
	}
	cache := os.Getenv("TASKPROOF_TEST_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		cache = filepath.Join(base, "taskproof-test")
	}
	dir := filepath.Join(cache, "node-tools-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "jest")); err == nil {
		nodeTools.dir = dir
		return
	}
	// Installed into a directory of its own, then renamed into place: a run
	// killed halfway leaves no half-installed cache.
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		nodeTools.missing = err.Error()
		return
	}
	for i, f := range []string{"package.json", "package-lock.json"} {
		if err := os.WriteFile(filepath.Join(tmp, f), files[i], 0o644); err != nil {
			nodeTools.missing = err.Error()
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil {
		if errors.As(err, &exit) || ctx.Err() != nil {
			nodeTools.missing = "npm ci of testreport/testdata/red/node-tools failed: " + firstLines(out, 5)
		} else {
			nodeTools.missing = fmt.Sprintf("npm ci: %v", err)
		}
		os.RemoveAll(tmp)
		return
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		nodeTools.missing = err.Error()
		return
	}
	nodeTools.dir = dir
}

func firstLines(b []byte, n int) string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() && len(out) < n {
		out = append(out, sc.Text())
	}
	return strings.Join(out, " / ")
}
