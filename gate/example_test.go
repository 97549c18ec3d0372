package gate_test

import (
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/taskproof/taskproof/gate"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// Example runs the merge gate over a branch, as `taskproof verify --branch
// --allowed-signers allowed_signers` runs it. The branch ticks a task of a
// spec-kit tasks file and no attestation rests on the tick: the gate fails and
// says why.
func Example() {
	work, err := os.MkdirTemp("", "taskproof-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	dir := filepath.Join(work, "repo")
	exampleHistory(dir)
	// The verifier's trust lies outside the repository it verifies.
	allowed := filepath.Join(work, "allowed_signers")
	line := `ci@example.com namespaces="in-toto" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIN0ZdteQa1IguwQL2XWE8dT8tVkWrzGMFGTZdBiVU1Yd` + "\n"
	if err := os.WriteFile(allowed, []byte(line), 0o644); err != nil {
		log.Fatal(err)
	}

	repo, err := gitref.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer repo.Close()
	notes, err := repo.Notes("") // refs/notes/speccoder
	if err != nil {
		log.Fatal(err)
	}
	tr, _, err := trust.LoadTrust(repo, trust.Sources{AllowedSigners: allowed})
	if err != nil {
		log.Fatal(err)
	}
	v, err := verify.NewVerifier(repo, notes, tr)
	if err != nil {
		log.Fatal(err)
	}
	base, head, err := repo.ResolveRange("main..feature")
	if err != nil {
		log.Fatal(err)
	}
	rep, err := gate.Branch(v, base, head, verify.GateOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer rep.Close()
	fmt.Println(rep.Conclusion)
	rep.EachTick(func(t *verify.TickResult) {
		fmt.Println(t.Task, t.Status, t.Reason)
	})
	// Output:
	// failure
	// 001-greeting/T001 unverifiable ticked_without_evidence
}

// exampleHistory makes, with the git program, a repository whose main adds a
// spec-kit tasks file with one open task and whose branch feature ticks it.
func exampleHistory(dir string) {
	git := func(args ...string) {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
			"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			log.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	tasks := filepath.Join(dir, "specs", "001-greeting", "tasks.md")
	write := func(box string) {
		text := "# Tasks: Greeting\n\n- [" + box + "] T001 Write the greeting\n"
		if err := os.WriteFile(tasks, []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(tasks), 0o755); err != nil {
		log.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	write(" ")
	git("add", ".")
	git("commit", "-q", "-m", "tasks for the greeting")
	git("checkout", "-q", "-b", "feature")
	write("x")
	git("commit", "-q", "-am", "T001 done")
	// The notes ref exists (attestations were written for other commits)
	// but holds none for the tick.
	git("notes", "--ref", "speccoder", "add", "-m", "placeholder", "main")
	git("notes", "--ref", "speccoder", "remove", "main")
}
