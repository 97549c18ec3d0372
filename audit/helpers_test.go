package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
)

const (
	fxFeature = "001-audit"
	fxDir     = "specs/" + fxFeature
	fxTasks   = 20 // T001..T020
)

// fxTitle is task n's title; T003's holds markup every renderer must escape (a
// link named "y": a line holding "[x]" is ticked, as GitHub shows it).
func fxTitle(n int) string {
	if n == 3 {
		return `Escape <script>alert(1)</script> | *bold* [y](http://e.invalid)`
	}
	return fmt.Sprintf("Task number %d", n)
}

// fixture is a spec-kit repository whose commit i (1-based) ticks task Ti.
type fixture struct {
	dir    string
	repo   *gitref.Repo
	notes  *gitref.NotesStore
	ticks  []gitref.Hash // ticks[i-1] ticks Ti
	signer signer.Signer
	keyDir string
}

func newFixture(t *testing.T, n int) *fixture {
	t.Helper()
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	var b strings.Builder
	b.WriteString("# Tasks: Audit\n\n## Phase 1: Setup\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] T%03d %s\n", i, fxTitle(i))
	}
	tasks := b.String()
	path := filepath.Join(dir, fxDir, "tasks.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func() {
		if err := os.WriteFile(path, []byte(tasks), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write()
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-qm", "spec")
	f := &fixture{dir: dir}
	for i := 1; i <= n; i++ {
		tasks = strings.Replace(tasks, fmt.Sprintf("- [ ] T%03d ", i), fmt.Sprintf("- [x] T%03d ", i), 1)
		write()
		testenv.Git(t, dir, "commit", "-qam", fmt.Sprintf("T%03d done", i))
		f.ticks = append(f.ticks, gitref.Hash(strings.TrimSpace(testenv.Git(t, dir, "rev-parse", "HEAD"))))
	}
	f.open(t)
	return f
}

func (f *fixture) open(t *testing.T) {
	t.Helper()
	if f.repo != nil {
		f.repo.Close()
	}
	repo, err := gitref.Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	notes, err := repo.Notes("")
	if err != nil {
		t.Fatal(err)
	}
	f.repo, f.notes = repo, notes
}

// sshSigner makes an ed25519 key with the real ssh-keygen and an allowed signers
// file trusting it for in-toto.
func (f *fixture) sshSigner(t *testing.T) (signer.Signer, string) {
	t.Helper()
	keygen := testenv.LookPath(t, "ssh-keygen")
	kd := t.TempDir()
	key := filepath.Join(kd, "id_ed25519")
	if out, err := runCmd(keygen, "-q", "-t", "ed25519", "-N", "", "-C", "dev@example.invalid", "-f", key); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	s, err := signer.NewSSH(key, nil)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	allowed := filepath.Join(kd, "allowed_signers")
	if err := os.WriteFile(allowed, []byte(`dev@example.invalid namespaces="in-toto" `+string(pub)), 0o644); err != nil {
		t.Fatal(err)
	}
	return s, allowed
}

// when is the time of task n's statement: two tasks a week from Monday
// 2026-01-05 (ISO week 2026-W02).
func when(n int) time.Time {
	return time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC).Add(time.Duration((n-1)/2) * 7 * 24 * time.Hour)
}

// tick attests task n with the real attest.Tick (revision 3).
func (f *fixture) tick(t *testing.T, n int, verdict predicate.Verdict, reason string, evidence string, signers ...signer.Signer) {
	t.Helper()
	req := attest.TickRequest{Commit: f.ticks[n-1], Verdict: verdict, Signers: signers, Time: when(n)}
	if reason != "" {
		r, err := attest.ParseRegressionReason(reason)
		if err != nil {
			t.Fatal(err)
		}
		req.Regression = r
	}
	if evidence != "" {
		req.Evidence = []byte(evidence)
	}
	if _, err := attest.Tick(context.Background(), f.repo, f.notes, req); err != nil {
		t.Fatalf("attest tick T%03d: %v", n, err)
	}
}

// tickRevision writes task n's regression_only statement as an older writer
// would: revision 1 (no revision member) or 2, without a regression member; or
// revision 3 without one (a broken writer). Unsigned.
func (f *fixture) tickRevision(t *testing.T, n int, revision int) {
	t.Helper()
	r, _ := attest.ParseRegressionReason("planning_work")
	w, err := attest.Tick(context.Background(), f.repo, f.notes, attest.TickRequest{
		Commit: f.ticks[n-1], Verdict: predicate.RegressionOnly, Regression: r, Time: when(n), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var pred map[string]any
	for _, s := range w[0].Statements {
		if s.PredicateType != predicate.PredicateType {
			continue
		}
		st, err := statement.Decode(s.Statement)
		if err != nil {
			t.Fatal(err)
		}
		pred = st.Predicate.(map[string]any)
	}
	delete(pred, "regression")
	switch revision {
	case 1:
		delete(pred, "revision")
	default:
		pred["revision"] = json.Number(fmt.Sprint(revision))
	}
	f.writeLine(t, n, pred)
}

// writeLine writes an unsigned envelope of a task-verification statement with
// predicate pred into task n's note.
func (f *fixture) writeLine(t *testing.T, n int, pred map[string]any) {
	t.Helper()
	name := statement.SubjectName(fxFeature, fmt.Sprintf("T%03d", n))
	st, err := statement.Encode(statement.Subject{Name: name, GitCommit: string(f.ticks[n-1])}, predicate.PredicateType, pred)
	if err != nil {
		t.Fatal(err)
	}
	f.writeRaw(t, n, name, envelopeLine(t, st))
}

func envelopeLine(t testing.TB, statement []byte) []byte {
	t.Helper()
	line, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: statement}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func (f *fixture) writeRaw(t *testing.T, n int, name string, line []byte) {
	t.Helper()
	if _, err := f.notes.Update(f.ticks[n-1], func(old []byte) ([]byte, error) {
		return notemerge.MergeNote(old, name, [][]byte{line})
	}); err != nil {
		t.Fatal(err)
	}
}

func runCmd(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}

// signedHistory is a generated history of units × tasks ticks
// (benchrepo.NewHistory) and its notes, each tick's statements signed with a
// fresh SSH key from the real ssh-keygen; the notes are not written.
func signedHistory(t *testing.T, units, tasks int) (*benchrepo.History, map[string][]byte) {
	t.Helper()
	testenv.LookPath(t, "ssh-keygen")
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	_, signer, _ := benchrepo.SSHKey(t, keys)
	h := benchrepo.NewHistory(t, filepath.Join(dir, "repo"), units, tasks)
	return h, h.SignedNotes(t, signer)
}
