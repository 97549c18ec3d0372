//go:build linux

package main

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// reportRun runs verify on the CLI repository's first tick with an allowed
// signers file and --json-report path: the gate fails (ticks without
// evidence, exit 1) and writes its report.
func reportRun(t *testing.T, r *cliRepo, signers, path string) (string, string, int) {
	t.Helper()
	return r.taskproof(t, nil, "verify", r.c1, "--allowed-signers", signers, "--json-report", path)
}

// wantReport checks that b is verify's JSON report.
func wantReport(t *testing.T, what string, b []byte) {
	t.Helper()
	var rep struct {
		Conclusion string `json:"conclusion"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Conclusion != "failure" {
		t.Fatalf("%s: want the JSON report (conclusion failure), got %v: %q", what, err, b)
	}
}

// wantEntries checks that dir holds exactly names: no temporary file was left
// or made there.
func wantEntries(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// TestJSONReportFileKinds runs the real binary with --json-report naming each
// kind of file: a regular file or an absent path is replaced whole, a symlink
// is followed to its target, a FIFO and a device are written in place (never
// replaced by a regular file), a directory is exit 4 said once.
func TestJSONReportFileKinds(t *testing.T) {
	r := newCLIRepo(t)
	// A notes ref with no note on the verified commit.
	testenv.Git(t, r.dir, "notes", "--ref", "refs/notes/speccoder", "add", "-m", "unrelated", r.c0)
	key, _ := sshKeyFile(t, "")
	line, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(pub, append([]byte("dev@example.com "), line...), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("absent and regular", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "report.json")
		if _, stderr, code := reportRun(t, r, pub, path); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		b, _ := os.ReadFile(path)
		wantReport(t, "new file", b)
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := reportRun(t, r, pub, path); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		b, _ = os.ReadFile(path)
		wantReport(t, "replaced file", b)
		if fi, err := os.Stat(path); err != nil || fi.Mode() != 0o600 {
			t.Errorf("replaced file's mode: %v %v, want -rw------- kept", fi.Mode(), err)
		}
		wantEntries(t, dir, "report.json")
	})

	t.Run("symlink", func(t *testing.T) {
		linkDir, targetDir := t.TempDir(), t.TempDir()
		target := filepath.Join(targetDir, "real.json")
		if err := os.WriteFile(target, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(linkDir, "report.json")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := reportRun(t, r, pub, link); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("the symlink was replaced: %v %v", fi.Mode(), err)
		}
		b, _ := os.ReadFile(target)
		wantReport(t, "symlink's target", b)
		wantEntries(t, linkDir, "report.json")
		wantEntries(t, targetDir, "real.json")

		// A dangling relative link creates its target, as the shell's > does.
		dangling := filepath.Join(linkDir, "dangling.json")
		if err := os.Symlink("../"+filepath.Base(targetDir)+"/new.json", dangling); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := reportRun(t, r, pub, dangling); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		b, _ = os.ReadFile(filepath.Join(targetDir, "new.json"))
		wantReport(t, "dangling symlink's target", b)
		if fi, err := os.Lstat(dangling); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("the dangling symlink was replaced: %v %v", fi.Mode(), err)
		}
	})

	t.Run("fifo", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "report.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		// The read end, opened without waiting for a writer, takes the
		// report into the pipe's buffer while the binary runs; read after it
		// exits it holds the report, or nothing if the FIFO was replaced.
		rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		if _, stderr, code := reportRun(t, r, pub, fifo); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		b, err := io.ReadAll(rd)
		if err != nil {
			t.Fatal(err)
		}
		wantReport(t, "FIFO's reader", b)
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
		}
		wantEntries(t, dir, "report.fifo")
	})

	t.Run("stdout link", func(t *testing.T) {
		// /dev/stdout is a link to /proc/self/fd/1; stdout here is a pipe.
		dir := t.TempDir()
		link := filepath.Join(dir, "stdout")
		if err := os.Symlink("/proc/self/fd/1", link); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := reportRun(t, r, pub, link)
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		if !strings.HasPrefix(stdout, "{") || !strings.Contains(stdout, `"conclusion": "failure"`) {
			t.Errorf("stdout does not start with the JSON report:\n%s", stdout)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
		}
		wantEntries(t, dir, "stdout")
	})

	t.Run("character device", func(t *testing.T) {
		dir := t.TempDir()
		dev := filepath.Join(dir, "null")
		// 1:3 is the null device; making a device node needs CAP_MKNOD.
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Skipf("cannot make a character device in a temporary directory (mknod needs root): %v", err)
		}
		if _, stderr, code := reportRun(t, r, pub, dev); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		if fi, err := os.Lstat(dev); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("the device was replaced: %v %v", fi.Mode(), err)
		}
		wantEntries(t, dir, "null")
	})

	t.Run("directory", func(t *testing.T) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "out")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := reportRun(t, r, pub, dir)
		if code != 4 {
			t.Fatalf("exit %d, want 4\n%s", code, stderr)
		}
		if n := strings.Count(stderr, "is a directory"); n != 1 {
			t.Errorf("stderr says %d times that the report is a directory, want once:\n%s", n, stderr)
		}
		wantEntries(t, parent, "out")
		wantEntries(t, dir)
	})

	t.Run("missing directory", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "absent", "r.json")
		_, stderr, code := reportRun(t, r, pub, path)
		if code != 4 {
			t.Fatalf("exit %d, want 4\n%s", code, stderr)
		}
		// The message names the path given, never the temporary file's.
		if !strings.Contains(stderr, "--json-report "+path+": cannot create a file in "+filepath.Dir(path)) || strings.Contains(stderr, ".r.json.") {
			t.Errorf("stderr does not name the report file alone:\n%s", stderr)
		}
	})
}
