package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
)

// TestStateCheckUnchangedFiles: the state check reads the tasks files the
// range changes and only checks that the files head has as base has them can
// be read (rangeFiles.unchanged). Its report is the one of the reading of
// every file (f.branch compares every writer's bytes with
// Verifier.everyTasksFile's): for files unchanged and ticked at base, not
// text, nested too deep or unrecognized; for a symbolic link and a unit whose class holds an unchanged file (a file
// renamed in the range, then copied back).
func TestStateCheckUnchangedFiles(t *testing.T) {
	f := newFixture(t)
	deep := "- [x] T001 a\n" + strings.Repeat(">", 300) + " - [x] T002 b\n"
	base := f.commit("more units", map[string]string{
		"specs/002-done/tasks.md":  "- [x] T001 Done before\n- [ ] T002 Open\n",
		"specs/003-nul/tasks.md":   "- [x] T001 Nul \x00 here\n",
		"specs/004-deep/tasks.md":  deep,
		"docs/tasks.md":            "- [x] T001 Not a unit's\n",
		"specs/005-later/tasks.md": "- [ ] T001 Open\n",
		"specs/007-moved/tasks.md": "- [x] T001 Done before\n- [ ] T002 Open\n",
	})
	link := filepath.Join(f.dir, "specs", "008-link")
	if err := os.MkdirAll(link, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../002-done/tasks.md", filepath.Join(link, "tasks.md")); err != nil {
		t.Fatal(err)
	}
	f.git("add", "specs/008-link/tasks.md")
	f.git("commit", "-q", "-m", "a link")
	base = f.head()

	c1 := f.tick("T001")
	f.attest(c1, predicate.Verified, f.signer)
	c2 := f.edit("specs/005-later/tasks.md", "- [ ] T001", "- [x] T001", "005 T001 done")
	f.git("mv", "specs/007-moved", "specs/007-renamed")
	f.git("commit", "-q", "-m", "rename 007")
	f.commit("007 back", map[string]string{"specs/007-moved/tasks.md": f.read("specs/007-renamed/tasks.md")})
	head := f.commit("after", nil)

	rep := f.branch(base, head, GateOptions{})
	if rep.Conclusion != Failure {
		t.Errorf("conclusion %s, want failure", rep.Conclusion)
	}
	found := map[string]string{}
	for _, tr := range rep.Ticks {
		if tr.Commit == head {
			found[tr.Path] = tr.Reason
		}
	}
	for path, reason := range map[string]string{
		"specs/003-nul/tasks.md":  string(Malformed),
		"specs/004-deep/tasks.md": string(Malformed),
		"specs/008-link/tasks.md": "tasks_file_not_regular",
	} {
		if found[path] != reason {
			t.Errorf("%s at head: reason %q, want %q (head's findings %v)", path, found[path], reason, found)
		}
	}
	for _, path := range []string{"specs/002-done/tasks.md", "docs/tasks.md", "specs/007-moved/tasks.md", "specs/007-renamed/tasks.md"} {
		if r, ok := found[path]; ok {
			t.Errorf("%s at head: %q, want nothing", path, r)
		}
	}
	var sawC2 bool
	for _, tr := range rep.Ticks {
		sawC2 = sawC2 || (tr.Commit == c2 && tr.Reason == ReasonTickedWithoutEvidence)
	}
	if !sawC2 {
		t.Errorf("005's tick without evidence is not reported: %+v", rows(rep))
	}
	// The range from the commit before the link: the link is new too.
	f.branch(gitref.Hash(f.git("rev-parse", string(base)+"~1")), head, GateOptions{})
}

// TestStateCheckReadError: a tasks file's blob missing from the repository
// fails the gate with the error the reading of every file gives.
func TestStateCheckReadError(t *testing.T) {
	f := newFixture(t)
	base := f.commit("more units", map[string]string{
		"specs/002-gone/tasks.md": "- [x] T001 Done before, in a blob that goes\n",
		"specs/003-kept/tasks.md": "- [ ] T001 Open\n",
	})
	blob := f.git("rev-parse", string(base)+":specs/002-gone/tasks.md")
	f.git("rm", "-q", "specs/002-gone/tasks.md")
	f.git("commit", "-q", "-m", "drop 002")
	f.edit("specs/003-kept/tasks.md", "Open", "Still open", "reword 003")
	f.attest(f.tick("T001"), predicate.Verified, f.signer)
	head := f.head()
	if err := os.Remove(filepath.Join(f.dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	full := f.verifier()
	full.tuning.EveryTasksFile = true
	_, want := Gate.Branch(full, base, head, GateOptions{})
	_, got := Gate.Branch(f.verifier(), base, head, GateOptions{})
	t.Log(got)
	if want == nil || got == nil || got.Error() != want.Error() {
		t.Errorf("Branch = %v, reading every tasks file %v; want the same error", got, want)
	}
}
