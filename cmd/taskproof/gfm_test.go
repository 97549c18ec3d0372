package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestVerifyGFMHidingTricks: one line above the tasks used to hide every tick
// below it from the gate while GitHub shows the boxes checked — a code span
// holding "<!--", a "fence" indented four spaces or by a tab (an indented code
// block in CommonMark), a file with CR-only line endings. Each tick must fail
// the gate as ticked without evidence (exit 1); the same tick attested with
// `attest tick` and an ssh-keygen key passes (exit 0).
// docs/format.md#units-and-task-lines
func TestVerifyGFMHidingTricks(t *testing.T) {
	bin := testenv.Binary(t)
	keys := t.TempDir()
	key := filepath.Join(keys, "id_ed25519")
	cmd := exec.Command(testenv.LookPath(t, "ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", "dev", "-f", key)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	allowed := filepath.Join(keys, "allowed_signers")
	vfWrite(t, allowed, `dev@example.invalid namespaces="in-toto" `+string(pub))

	const tasks = "# Tasks: Greeting CLI\n\n%TRICK%\n\n## Phase 1: User Story 1 - Greet a person by name (Priority: P1)\n\n" +
		"- [ ] T001 [US1] Create the greet command\n- [ ] T002 [US1] Print Hello, <name>!\n"
	for _, tt := range []struct{ name, trick, eol string }{
		{"code span holding <!--", "Comments look like `<!--`.", "\n"},
		{"four-space fence", "    ```", "\n"},
		{"tab fence", "\t```", "\n"},
		{"CR-only line endings", "Plain text.", "\r"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repo")
			git := func(args ...string) string { return strings.TrimSpace(testenv.Git(t, dir, args...)) }
			testenv.Git(t, "", "init", "-q", "-b", "main", dir)
			content := strings.ReplaceAll(strings.Replace(tasks, "%TRICK%", tt.trick, 1), "\n", tt.eol)
			path := filepath.Join(dir, "specs/001-greeting/tasks.md")
			vfWrite(t, path, content)
			vfWrite(t, filepath.Join(dir, "specs/001-greeting/spec.md"), vfSpec)
			git("add", "-A")
			git("commit", "-q", "-m", "spec")
			// The project already attests its ticks: an earlier unit's, on main.
			vfWrite(t, filepath.Join(dir, "specs/000-base/spec.md"), vfSpec)
			vfWrite(t, filepath.Join(dir, "specs/000-base/tasks.md"), "# Tasks\n\n- [ ] T001 [US1] Set up\n")
			git("add", "-A")
			git("commit", "-q", "-m", "base unit")
			vfWrite(t, filepath.Join(dir, "specs/000-base/tasks.md"), "# Tasks\n\n- [x] T001 [US1] Set up\n")
			git("commit", "-q", "-am", "base T001 done")
			vfRunIn(t, bin, dir, 0, "attest", "tick", "--signer", "ssh", "--key", key, "--verdict", "verified")
			git("switch", "-q", "-c", "feature")
			vfWrite(t, path, strings.Replace(content, "- [ ] T001 ", "- [x] T001 ", 1))
			git("commit", "-q", "-am", "T001 done")
			tick := git("rev-parse", "HEAD")

			gate := []string{"verify", "--branch", "--base", "main", "--allowed-signers", allowed, "--format", "json"}
			out, _ := vfRunIn(t, bin, dir, 1, gate...)
			rep := vfParse(t, out)
			if got := strings.Join(rep.ticks(), ","); got != "T001 unverifiable/ticked_without_evidence" || rep.Conclusion != "failure" || rep.Ticks[0].Commit != tick {
				t.Fatalf("unattested tick: ticks %s (%s)\n%s", got, rep.Conclusion, out)
			}

			vfRunIn(t, bin, dir, 0, "attest", "tick", "--signer", "ssh", "--key", key, "--verdict", "verified")
			out, _ = vfRunIn(t, bin, dir, 0, gate...)
			rep = vfParse(t, out)
			if got := strings.Join(rep.ticks(), ","); got != "T001 evidenced/" || rep.Conclusion != "success" {
				t.Fatalf("attested tick: ticks %s (%s)\n%s", got, rep.Conclusion, out)
			}
		})
	}
}
