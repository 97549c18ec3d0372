package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestInitStorageFaults: taskproof init on a full file system and on a
// read-only .git is refused by the storage, not by the configuration: exit
// 4 (docs/format.md#git-preconditions) with the system's error and the
// directory, nothing changed; once the space is freed it configures the
// clone.
func TestInitStorageFaults(t *testing.T) {
	if out, err := exec.Command("unshare", "-rm", "true").CombinedOutput(); err != nil {
		t.Skipf("cannot make a mount namespace to put the faults in (unshare -rm: %v %s): the storage faults are not exercised here", err, out)
	}
	w := newWorld(t)
	a := w.seed()
	for _, tc := range []struct{ fault, errno string }{{"ro-git", "EROFS"}, {"full", "ENOSPC"}} {
		code, stderr, _, code2, stderr2 := faultRun(t, tc.fault, a, "init")
		if code != 4 || !strings.Contains(stderr, "["+tc.errno+"]") || !strings.Contains(stderr, ".git") || !strings.Contains(stderr, "nothing was changed") {
			t.Errorf("init under %s: exit %d, want 4 naming %s and .git:\n%s", tc.fault, code, tc.errno, stderr)
		}
		if tc.fault == "full" && code2 != 0 {
			t.Errorf("init once the space is freed: exit %d\n%s", code2, stderr2)
		}
	}
	if got := testenv.Git(t, a, "config", "--get-all", "remote.origin.fetch"); strings.Contains(got, "speccoder") {
		t.Errorf("init under a fault changed the config: %s", got)
	}
}
