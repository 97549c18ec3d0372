package verify_test

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
)

// noteBombSize is the inflated size of each note bomb: 500 MiB.
const noteBombSize = 500 << 20

// writeBombObject writes, as a loose object of repository dir (what a fetch of
// a small pack or `git hash-object -w` leaves), a blob of size bytes: the line
// first, then zeros. It returns the blob's id. The object is about 500 KiB on
// disk for 500 MiB inflated.
func writeBombObject(tb testing.TB, dir, first string, size int64) string {
	tb.Helper()
	content := func() io.Reader {
		return io.MultiReader(bytes.NewReader([]byte(first)), io.LimitReader(zeros{}, size-int64(len(first))))
	}
	header := fmt.Sprintf("blob %d\x00", size)
	h := sha1.New()
	h.Write([]byte(header))
	if _, err := io.Copy(h, content()); err != nil {
		tb.Fatal(err)
	}
	id := hex.EncodeToString(h.Sum(nil))
	p := filepath.Join(dir, ".git", "objects", id[:2], id[2:])
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	zw := zlib.NewWriter(f)
	zw.Write([]byte(header))
	if _, err := io.Copy(zw, content()); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return id
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// BenchmarkNoteBombs: `verify --branch` (the binary, --format json) over a
// range of 10 ticks whose notes include four note bombs, loose objects that
// inflate to 500 MiB each: two on ticks of the range, two on ticks before the
// range's base, read because a tick of the range has no note (the gate then
// looks for its statements on every note). Each bomb is refused from its object
// header (note_malformed, over the 4 MiB note limit). Targets: under 1 s wall
// and 250 MB peak RSS (maxrss-MB, read by GNU time: benchrepo.RunMeasured).
//
//	go test -run '^$' -bench NoteBombs -benchtime 3x ./verify/
func BenchmarkNoteBombs(b *testing.B) {
	dir := b.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		b.Fatal(err)
	}
	_, signer, allowed := benchrepo.SSHKey(b, keys)
	h := benchrepo.NewHistory(b, filepath.Join(dir, "repo"), 2, 10)
	notes := h.SignedNotes(b, signer)
	delete(notes, h.Ticks[12].Commit) // a tick of the range without a note
	h.WriteNotes(b, notes)
	base := h.Ticks[9].Commit // the range: unit 1's ten ticks
	// The bombs become notes by fast-import naming the blobs (git notes add -C
	// would read each whole).
	stream := fmt.Sprintf("commit %s\ncommitter t <t@example.invalid> 1700000000 +0000\ndata 5\nbombs\nfrom %s^0\n", benchrepo.NotesRef, benchrepo.NotesRef)
	for i, t := range []int{0, 1, 10, 11} {
		blob := writeBombObject(b, h.Dir, fmt.Sprintf("bomb %d\n", i), noteBombSize)
		stream += fmt.Sprintf("N %s %s\n", blob, h.Ticks[t].Commit)
	}
	fi := exec.Command("git", "fast-import", "--quiet")
	fi.Dir, fi.Env, fi.Stdin = h.Dir, testenv.GitEnv(), bytes.NewReader([]byte(stream))
	if out, err := fi.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	bin := testenv.Binary(b)
	var rss int64
	var total float64
	for b.Loop() {
		c := exec.Command(bin, "verify", "--branch", "--base", base, "--allowed-signers", allowed, "--format", "json", h.Head)
		c.Dir, c.Env = h.Dir, testenv.GitEnv()
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		wall, kb, exact, err := benchrepo.RunMeasured(c)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			b.Fatalf("verify: %v, want exit 1\n%s", err, stderr.Bytes())
		}
		if !exact {
			b.Log("no /usr/bin/time: maxrss-MB is wait4's, which counts this benchmark process's own peak")
		}
		checkBombReport(b, stdout.Bytes(), h.Ticks[10].Commit, h.Ticks[11].Commit)
		rss = max(rss, kb)
		total += wall.Seconds()
	}
	b.ReportMetric(float64(rss)/1024, "maxrss-MB")
	b.ReportMetric(total/float64(b.N), "wall-s")
}

// checkBombReport checks that the gate failed and that each bombed tick of the
// range is note_malformed for being over the note limit.
func checkBombReport(b *testing.B, out []byte, bombed ...string) {
	b.Helper()
	var rep struct {
		Conclusion string `json:"conclusion"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || rep.Conclusion != "failure" {
		b.Fatalf("conclusion %q (%v), want failure: %.500s", rep.Conclusion, err, out)
	}
	if n := bytes.Count(out, []byte("over the limit of 4194304")); n < len(bombed) {
		b.Fatalf("%d notes reported over the limit, want %d: %.2000s", n, len(bombed), out)
	}
	for _, c := range bombed {
		if !bytes.Contains(out, []byte(c)) {
			b.Fatalf("bombed tick %s not in the report", c)
		}
	}
}
