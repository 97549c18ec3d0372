package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// faultScript runs in a mount namespace of its own (unshare -rm: a user
// namespace lets an unprivileged user mount there, and nothing leaks to the
// machine): it puts the fault $1 on repository $2, runs the command after
// them with the fault in place, writes its exit code, stdout and stderr
// under $3, and for "full" (a small tmpfs holding a copy of the repository,
// filled up) also runs it again once the filler is removed, since the tmpfs
// ends with the namespace.
const faultScript = `set -e
fault=$1 repo=$2 out=$3; shift 3
case $fault in
ro-objects) mount --bind -o ro "$repo/.git/objects" "$repo/.git/objects" ;;
ro-refs)    mount --bind -o ro "$repo/.git/refs" "$repo/.git/refs" ;;
ro-git)     mount --bind -o ro "$repo/.git" "$repo/.git" ;;
full)
	mnt=$out/mnt; mkdir -p "$mnt"
	mount -t tmpfs -o size=8m tmpfs "$mnt"
	cp -a "$repo" "$mnt/repo"; repo=$mnt/repo
	dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null || true ;;
esac
cd "$repo"
set +e
"$@" >"$out/stdout" 2>"$out/stderr"; echo $? >"$out/code"
git rev-parse -q --verify refs/notes/speccoder >"$out/ref"
if [ "$fault" = full ]; then
	rm -f "$mnt/fill"
	"$@" >"$out/stdout2" 2>"$out/stderr2"; echo $? >"$out/code2"
fi
exit 0
`

// faultRun runs args (the binary's) on repo with fault in place (faultScript)
// and returns the exit code and stderr, and for "full" those of the run
// after the filler is gone; ref is the notes ref as the faulty run left it.
func faultRun(t *testing.T, fault, repo string, args ...string) (code int, stderr, ref string, code2 int, stderr2 string) {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command("unshare", append([]string{"-rm", "sh", "-c", faultScript, "sh", fault, repo, out, testenv.Binary(t)}, args...)...)
	cmd.Env = testenv.GitEnv()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fault %s: %v\n%s", fault, err, b)
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(out, name))
		return strings.TrimSpace(string(b))
	}
	code, _ = strconv.Atoi(read("code"))
	code2, _ = strconv.Atoi(read("code2"))
	return code, read("stderr"), read("ref"), code2, read("stderr2")
}

// TestStorageFaults: a full file system, a read-only object store and
// read-only refs make the writers exit 4 with the system's error, its name,
// the path and what to do, leave the notes ref as it was, and work once the
// fault is lifted. The faults are real: a bind mount remounted read-only and
// a small tmpfs filled up, in a mount namespace of the test's own.
func TestStorageFaults(t *testing.T) {
	if out, err := exec.Command("unshare", "-rm", "true").CombinedOutput(); err != nil {
		t.Skipf("cannot make a mount namespace to put the faults in (unshare -rm: %v %s): the storage faults are not exercised here", err, out)
	}
	r := newCLIRepo(t)
	tick := []string{"attest", "tick", "--commit", r.c1, "--task", "T001", "--verdict", "verified", "--unsigned"}
	key, _ := sshKeyFile(t, "")
	sign := []string{"attest", "sign", "--signer", "ssh", "--key", key, r.c3}
	if _, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c3, "--verdict", "verified", "--unsigned"); code != 0 {
		t.Fatalf("attest tick: exit %d: %s", code, stderr)
	}
	head := func() string { return strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", "refs/notes/speccoder")) }
	for _, tc := range []struct {
		fault, errno, where string
		args                []string
	}{
		{"ro-objects", "EROFS", ".git/objects", tick},
		{"ro-objects", "EROFS", ".git/objects", sign},
		{"ro-refs", "EROFS", ".git/refs/notes", tick},
		{"ro-refs", "EROFS", ".git/refs/notes", sign},
		{"full", "ENOSPC", ".git/objects", tick},
	} {
		before := head()
		code, stderr, ref, code2, stderr2 := faultRun(t, tc.fault, r.dir, tc.args...)
		name := tc.fault + " " + tc.args[1]
		if code != 4 {
			t.Errorf("%s: exit %d, want 4\n%s", name, code, stderr)
		}
		for _, want := range []string{"[" + tc.errno + "]", tc.where, "run the command again", "refs/notes/speccoder is as it was"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: the error does not say %q:\n%s", name, want, stderr)
			}
		}
		if ref != before {
			t.Errorf("%s: the notes ref moved under the fault: %s -> %s", name, before, ref)
		}
		if tc.fault == "full" {
			if code2 != 0 {
				t.Errorf("%s: after the space is freed: exit %d\n%s", name, code2, stderr2)
			}
			continue
		}
		// The fault is lifted with the namespace: the command works.
		if _, stderr, code := r.taskproof(t, nil, tc.args...); code != 0 {
			t.Errorf("%s: after the fault: exit %d\n%s", name, code, stderr)
		}
		if tc.args[1] == "tick" {
			testenv.Git(t, r.dir, "update-ref", "refs/notes/speccoder", before)
		} else if _, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c3, "--verdict", "verified", "--unsigned", "--force"); code != 0 {
			t.Fatalf("attest tick: exit %d: %s", code, stderr)
		}
	}
}
