package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
)

// TestReportsIndependentOfGOMAXPROCS runs `verify --branch`, `audit --all`
// and `ticks` over one generated history of a thousand signed ticks at
// GOMAXPROCS 1, 2, 8 and 3: every command's output is byte for byte the same
// in all runs. The commands fan their work out over GOMAXPROCS goroutines; what they
// print must not depend on how it was shared out.
func TestReportsIndependentOfGOMAXPROCS(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a history of a thousand ticks")
	}
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	_, signer, allowed := benchrepo.SSHKey(t, keys)
	h := benchrepo.NewHistory(t, filepath.Join(dir, "repo"), 2, 500)
	h.WriteSignedNotes(t, signer)
	at := benchrepo.Epoch.AddDate(0, 0, 1).Format("2006-01-02T15:04:05Z")
	commands := map[string][]string{
		"verify": {"verify", "--branch", "--base", h.Root, "--allowed-signers", allowed, "--at", at, "--format", "json", h.Head},
		"audit":  {"audit", "--all", "--allowed-signers", allowed, "--at", at, "--format", "json"},
		"ticks":  {"ticks", "--format", "json", h.Head},
	}
	bin := testenv.Binary(t)
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			var first []byte
			for _, procs := range []int{1, 2, 8, 3} {
				out, errOut, code := runWith(t, bin, h.Dir, []string{fmt.Sprintf("GOMAXPROCS=%d", procs)}, args...)
				if code != 0 {
					t.Fatalf("GOMAXPROCS=%d: exit %d\n%s", procs, code, errOut)
				}
				if first == nil {
					first = []byte(out)
					if len(first) < 100*1000 {
						t.Fatalf("%d bytes of output: %.300s", len(first), first)
					}
					continue
				}
				if !bytes.Equal([]byte(out), first) {
					t.Fatalf("GOMAXPROCS=%d: the output differs from GOMAXPROCS=1's", procs)
				}
			}
		})
	}
}
