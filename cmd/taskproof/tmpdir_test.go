package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// A gate whose temporary directory (TMPDIR) cannot hold its spooled walk and
// report judges nothing: exit 3 (the system's configuration), with the
// machine-readable error a CI format promises and the directory named; never
// exit 5, never an outcome.
func TestGateTempDirMissing(t *testing.T) {
	r := newGateRepo(t, map[string]string{"specs/001-a/tasks.md": gateTasks})
	c := r.tick(t, []string{"specs/001-a/tasks.md"}, "T001")
	r.attest(t, c)
	missing := filepath.Join(t.TempDir(), "gone")
	for _, format := range []string{"json", "text"} {
		cmd := exec.Command(r.bin, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", format)
		cmd.Dir, cmd.Env = r.dir, append(testenv.GitEnv(), "TMPDIR="+missing)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("%s: %v, want exit 3\n%s%s", format, err, stdout.String(), stderr.String())
		}
		if !strings.Contains(stderr.String(), missing+" (TMPDIR)") {
			t.Errorf("%s: stderr does not name the temporary directory:\n%s", format, stderr.String())
		}
		if format != "json" {
			continue
		}
		var res struct {
			Conclusion string `json:"conclusion"`
			Error      struct {
				Code     string `json:"code"`
				ExitCode int    `json:"exit_code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("json: %v\n%s", err, stdout.String())
		}
		if res.Conclusion != "error" || res.Error.Code != "trust_or_config" || res.Error.ExitCode != 3 {
			t.Errorf("json: %+v, want conclusion error, trust_or_config, exit 3", res)
		}
	}
}
