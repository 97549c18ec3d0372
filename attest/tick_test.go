package attest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/carry"
	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/notesref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// The tick-test repository (newTickRepo): a spec-kit feature with four tasks.
const (
	specMD = `# Feature spec

## User Scenarios

### User Story 1 - Add numbers (Priority: P1)

A user adds two numbers.

**Acceptance**: 1 + 2 = 3.

### User Story 2 - Subtract

A user subtracts.
`
	tasksOpen = `# Tasks

- [ ] T001 [US1] Write the failing add test
- [ ] T002 [P] [US1] Implement add
- [ ] T003 [US2] Implement subtract
- [ ] T004 Write the docs
`
	policyTOML = "[tests]\ncommand = \"go test ./...\"\n\n[attest]\nsigner = \"ssh\"\n"
)

// tickRepo is a repository made with the real git: c0 (every task open, a
// speccoder.toml), c1 ticks T001 and T002, c2 ticks nothing, c3 ticks T003.
type tickRepo struct {
	dir            string
	c0, c1, c2, c3 gitref.Hash
}

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commitAll(t testing.TB, dir, msg string) gitref.Hash {
	t.Helper()
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-q", "-m", msg)
	return gitref.Hash(strings.TrimSpace(testenv.Git(t, dir, "rev-parse", "HEAD")))
}

func tick(tasks string, ids ...string) string {
	for _, id := range ids {
		tasks = strings.Replace(tasks, "- [ ] "+id+" ", "- [x] "+id+" ", 1)
	}
	return tasks
}

func newTickRepo(t testing.TB) *tickRepo {
	t.Helper()
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	r := &tickRepo{dir: dir}
	writeFile(t, dir, "specs/001-calc/spec.md", specMD)
	writeFile(t, dir, "specs/001-calc/tasks.md", tasksOpen)
	writeFile(t, dir, "speccoder.toml", policyTOML)
	r.c0 = commitAll(t, dir, "plan")
	writeFile(t, dir, "specs/001-calc/tasks.md", tick(tasksOpen, "T001", "T002"))
	writeFile(t, dir, "calc.go", "package calc\n")
	r.c1 = commitAll(t, dir, "add")
	writeFile(t, dir, "README", "calc\n")
	r.c2 = commitAll(t, dir, "readme")
	writeFile(t, dir, "specs/001-calc/tasks.md", tick(tasksOpen, "T001", "T002", "T003"))
	r.c3 = commitAll(t, dir, "subtract")
	return r
}

func (r *tickRepo) open(t testing.TB) (*gitref.Repo, *gitref.NotesStore) {
	t.Helper()
	repo, err := gitref.Open(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	notes, err := repo.Notes(notesref.Default)
	if err != nil {
		t.Fatal(err)
	}
	return repo, notes
}

// note reads commit's note with the real git ("" when there is none).
func note(t testing.TB, dir string, commit gitref.Hash) string {
	t.Helper()
	cmd := exec.Command("git", "notes", "--ref", notesref.Default, "show", string(commit))
	cmd.Dir = dir
	cmd.Env = testenv.GitEnv()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// addRawNote attaches note to commit byte for byte (git notes add -F would
// strip trailing white space).
func addRawNote(t testing.TB, dir string, commit gitref.Hash, note string) {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), strings.NewReader(note)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, dir, "notes", "--ref", notesref.Default, "add", "-C", strings.TrimSpace(string(out)), string(commit))
}

// sshKey makes an ed25519 key with the real ssh-keygen (passphrase may be "") and
// returns the private key path and an allowed signers file trusting it for
// namespace in-toto.
func sshKey(t testing.TB, passphrase string) (key, allowed string) {
	t.Helper()
	dir := t.TempDir()
	key = filepath.Join(dir, "id_ed25519")
	cmd := exec.Command(testenv.LookPath(t, "ssh-keygen"), "-q", "-t", "ed25519", "-N", passphrase, "-C", "ci@example.com", "-f", key)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	allowed = filepath.Join(dir, "allowed_signers")
	if err := os.WriteFile(allowed, []byte(`ci@example.com namespaces="in-toto" `+string(pub)), 0o600); err != nil {
		t.Fatal(err)
	}
	return key, allowed
}

func sshSigner(t testing.TB, key string) signer.Signer {
	t.Helper()
	s, err := signer.Load(signer.KindSSH, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func verifier(t testing.TB, repo *gitref.Repo, notes *gitref.NotesStore, allowed string) *verify.Verifier {
	t.Helper()
	as, err := trust.LoadAllowedSigners(allowed)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trust.NewTrust(trust.WithAllowedSigners(as))
	if err != nil {
		t.Fatal(err)
	}
	return &verify.Verifier{Repo: repo, Notes: notes, Trust: tr}
}

// noteStatement is one decoded line of a note.
type noteStatement struct {
	line []byte
	env  *dsse.Envelope
	st   *statement.Statement
}

// statements decodes every line of a note that is a DSSE envelope; other lines
// are returned in foreign.
func statements(t testing.TB, note string) (stmts []noteStatement, foreign []string) {
	t.Helper()
	for _, l := range noteline.Split([]byte(note)) {
		env, err := dsse.DecodeEnvelope(l)
		if err != nil {
			foreign = append(foreign, string(l))
			continue
		}
		st, err := statement.Decode(env.Payload)
		if err != nil {
			t.Fatalf("note line with an unreadable statement: %v", err)
		}
		stmts = append(stmts, noteStatement{l, env, st})
	}
	return stmts, foreign
}

// taskPredicate returns the strictly decoded, schema-validated predicate of the
// task-verification statement for subject in a note.
func taskPredicate(t testing.TB, note, subject string) *predicate.Predicate {
	t.Helper()
	stmts, _ := statements(t, note)
	var found *predicate.Predicate
	for _, s := range stmts {
		if s.st.PredicateType != predicate.PredicateType || s.st.Subjects[0].Name != subject {
			continue
		}
		if found != nil {
			t.Fatalf("two task-verification statements for %s", subject)
		}
		b, err := strictjson.Canonical(s.st.Predicate)
		if err != nil {
			t.Fatal(err)
		}
		if found, err = predicate.Decode(b); err != nil {
			t.Fatalf("predicate of %s does not validate: %v", subject, err)
		}
	}
	if found == nil {
		t.Fatalf("no task-verification statement for %s in\n%s", subject, note)
	}
	return found
}

// objectOutcomes verifies commit and returns task → outcome (and fails on reasons).
func objectOutcomes(t testing.TB, v *verify.Verifier, commit gitref.Hash) map[string]verify.Outcome {
	t.Helper()
	res, err := v.Object(commit)
	if err != nil {
		t.Fatalf("verify %s: %v", commit, err)
	}
	out := map[string]verify.Outcome{}
	for _, r := range res {
		out[r.Task] = r.Outcome
		if r.Outcome != verify.OK {
			t.Logf("%s %s: %s %+v", commit, r.Task, r.Outcome, r.Reasons)
		}
	}
	return out
}

var fixedTime = time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)

func TestTickWritesAndVerifies(t *testing.T) {
	r := newTickRepo(t)
	repo, notes := r.open(t)
	key, allowed := sshKey(t, "")
	written, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{
		Commit: r.c1, Verdict: predicate.RegressionOnly, Regression: map[string]any{"reason": "planning_work"},
		Signers: []signer.Signer{sshSigner(t, key)}, Time: fixedTime,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2 || written[0].Task != "T001" || written[1].Task != "T002" {
		t.Fatalf("written = %+v, want T001 and T002", written)
	}
	for _, w := range written {
		if w.NotesCommit == "" || !w.Signed || len(w.Signers) != 1 || w.Signers[0].Kind != signer.KindSSH || len(w.Statements) != 2 {
			t.Errorf("written %s = %+v", w.Task, w)
		}
	}
	n := note(t, r.dir, r.c1)
	tree := strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", string(r.c1)+"^{tree}"))
	wantPolicy, err := predicate.PolicySHA256([]byte(policyTOML))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id, open string
		section  string
	}{
		{"T001", "- [ ] T001 [US1] Write the failing add test", "### User Story 1 - Add numbers (Priority: P1)\n\nA user adds two numbers.\n\n**Acceptance**: 1 + 2 = 3.\n"},
		{"T002", "- [ ] T002 [P] [US1] Implement add", "### User Story 1 - Add numbers (Priority: P1)\n\nA user adds two numbers.\n\n**Acceptance**: 1 + 2 = 3.\n"},
	} {
		p := taskPredicate(t, n, "001-calc/"+tc.id)
		sp, _ := p.Spec.Get()
		sec, _ := sp.Section.Get()
		if p.Tree != tree || p.Task.LineHash != predicate.LineHash(tc.open) || p.PolicySHA256 != wantPolicy ||
			p.Time != "2026-02-03T04:05:06Z" || p.Verdict != predicate.RegressionOnly || sec != "US1" ||
			sp.SectionHash != predicate.SectionHash([]byte(tc.section)) {
			t.Errorf("%s predicate: tree %s line_hash %s policy %s time %s section %s %s", tc.id, p.Tree, p.Task.LineHash, p.PolicySHA256, p.Time, sec, sp.SectionHash)
		}
	}
	got := objectOutcomes(t, verifier(t, repo, notes, allowed), r.c1)
	if got["001-calc/T001"] != verify.OK || got["001-calc/T002"] != verify.OK {
		t.Errorf("verify outcomes = %v, want ok for T001 and T002", got)
	}
}

// TestTickNoteOwnership checks docs/format.md#storage on a real notes ref: a second tick on the
// same commit keeps the first's lines; another tool's lines (plain text, a DSSE
// envelope of another predicateType for the same subject) are kept byte for
// byte; re-attesting a task replaces only its own lines.
func TestTickNoteOwnership(t *testing.T) {
	r := newTickRepo(t)
	foreignEnv := `{"payloadType":"application/vnd.in-toto+json","payload":"` + base64.StdEncoding.EncodeToString([]byte(
		`{"_type":"https://in-toto.io/Statement/v1","predicate":{"b":2, "a":1},"predicateType":"https://example.com/review/v1","subject":[{"digest":{"gitCommit":"`+string(r.c1)+`"},"name":"001-calc/T001"}]}`)) +
		`", "signatures": [] }`
	foreignText := "reviewed-by: someone else  "
	addRawNote(t, r.dir, r.c1, foreignText+"\n"+foreignEnv+"\n")

	repo, notes := r.open(t)
	tickOne := func(id string, when time.Time) {
		t.Helper()
		if _, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{
			Commit: r.c1, Tasks: []string{id}, Verdict: predicate.RegressionOnly,
			Regression: map[string]any{"reason": "planning_work"}, Time: when, Force: true,
		}); err != nil {
			t.Fatal(err)
		}
	}
	tickOne("T001", fixedTime)
	afterT1 := note(t, r.dir, r.c1)
	tickOne("T002", fixedTime)
	afterT2 := note(t, r.dir, r.c1)
	lines1 := strings.Split(strings.TrimSuffix(afterT1, "\n"), "\n")
	lines2 := strings.Split(strings.TrimSuffix(afterT2, "\n"), "\n")
	if len(lines1) != 4 || len(lines2) != 6 {
		t.Fatalf("note has %d then %d lines, want 4 then 6:\n%s", len(lines1), len(lines2), afterT2)
	}
	if lines2[0] != foreignText || lines2[1] != foreignEnv {
		t.Errorf("foreign lines changed:\n%q\n%q", lines2[0], lines2[1])
	}
	if strings.Join(lines2[:4], "\n") != strings.Join(lines1, "\n") {
		t.Errorf("the second tick changed the first's lines")
	}
	t2Lines := strings.Join(lines2[4:], "\n")

	// Re-attest T001 later: only T001's owned lines change.
	tickOne("T001", fixedTime.Add(time.Hour))
	afterRe := note(t, r.dir, r.c1)
	lines3 := strings.Split(strings.TrimSuffix(afterRe, "\n"), "\n")
	if len(lines3) != 6 || lines3[0] != foreignText || lines3[1] != foreignEnv || strings.Join(lines3[2:4], "\n") != t2Lines {
		t.Fatalf("after re-attesting T001:\n%s", afterRe)
	}
	if strings.Join(lines3[4:], "\n") == strings.Join(lines1[2:], "\n") {
		t.Error("re-attesting T001 did not replace its lines")
	}
	if p := taskPredicate(t, afterRe, "001-calc/T001"); p.Time != "2026-02-03T05:05:06Z" {
		t.Errorf("T001 time = %s, want the re-attestation's", p.Time)
	}
}

func TestTickRefusals(t *testing.T) {
	r := newTickRepo(t)
	repo, notes := r.open(t)
	planning := map[string]any{"reason": "planning_work"}
	tests := []struct {
		name string
		req  attest.TickRequest
		want error
		msg  string
	}{
		{"commit ticks no task", attest.TickRequest{Commit: r.c2, Verdict: predicate.Verified}, attest.ErrNoTick, "no task box goes from open to ticked"},
		{"root commit ticks no task", attest.TickRequest{Commit: r.c0, Verdict: predicate.Verified}, attest.ErrNoTick, ""},
		{"task not ticked by commit", attest.TickRequest{Commit: r.c1, Tasks: []string{"T003"}, Verdict: predicate.Verified}, attest.ErrTaskNotTicked, "does not tick task T003 (it ticks T001, T002)"},
		{"regression_only without reason", attest.TickRequest{Commit: r.c1, Verdict: predicate.RegressionOnly}, predicate.ErrBuild, "regression"},
		{"decision verdict", attest.TickRequest{Commit: r.c1, Verdict: predicate.Attested}, attest.ErrRequest, "attest decide"},
		{"evidence with a computed field", attest.TickRequest{Commit: r.c1, Verdict: predicate.Verified, Evidence: []byte(`{"tree":"` + strings.Repeat("0", 40) + `"}`)}, predicate.ErrBuild, "tree"},
		{"evidence with a wrong type", attest.TickRequest{Commit: r.c1, Verdict: predicate.Verified, Evidence: []byte(`{"collection":{"files":"tests/a_test.go"}}`)}, predicate.ErrBuild, "collection"},
		{"evidence not an object", attest.TickRequest{Commit: r.c1, Verdict: predicate.Verified, Evidence: []byte(`[]`)}, predicate.ErrBuild, ""},
		{"evidence with duplicate keys", attest.TickRequest{Commit: r.c1, Verdict: predicate.Verified, Evidence: []byte(`{"run":1,"run":2}`)}, predicate.ErrMalformed, "duplicate key"},
		{"evidence regression differs from the flag", attest.TickRequest{Commit: r.c1, Verdict: predicate.RegressionOnly, Regression: planning, Evidence: []byte(`{"regression":{"reason":"no_story"}}`)}, attest.ErrRequest, "give one"},
		{"regression reason on a verified tick", attest.TickRequest{Commit: r.c1, Verdict: predicate.Verified, Regression: planning}, predicate.ErrBuild, "regression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := attest.Tick(context.Background(), repo, notes, tt.req)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tt.want, tt.msg)
			}
		})
	}
	if _, err := notes.Head(); !errors.Is(err, gitref.ErrNotesRefAbsent) {
		t.Errorf("a refused tick wrote notes: %v", err)
	}
}

func TestTickDryRunWritesNothing(t *testing.T) {
	r := newTickRepo(t)
	repo, notes := r.open(t)
	key, _ := sshKey(t, "")
	w, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{
		Commit: r.c1, Verdict: predicate.Verified, Signers: []signer.Signer{sshSigner(t, key)}, DryRun: true, Time: fixedTime,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 2 || w[0].NotesCommit != "" || len(w[0].Lines) != 2 || !w[0].Signed {
		t.Errorf("dry run = %+v", w)
	}
	if out := testenv.Git(t, r.dir, "for-each-ref"); strings.Contains(out, "notes") {
		t.Errorf("dry run wrote a notes ref:\n%s", out)
	}
}

// TestTickOverLimit: a commit ticking more tasks than one note holds with every
// statement (docs/format.md#limits: 1,024 lines) gets the task-verification
// statements alone, with a warning; one ticking more than 1,024 tasks is refused
// and nothing is written. A commit ticking 70 tasks keeps every statement.
func TestTickOverLimit(t *testing.T) {
	for _, tc := range []struct {
		tasks     int
		wantLines int // 0: refused
		compact   bool
	}{
		{tasks: 70, wantLines: 140},
		{tasks: noteline.MaxNoteLines / 2, wantLines: noteline.MaxNoteLines},
		{tasks: noteline.MaxNoteLines/2 + 1, wantLines: noteline.MaxNoteLines/2 + 1, compact: true},
		{tasks: noteline.MaxNoteLines + 1},
	} {
		t.Run(fmt.Sprint(tc.tasks), func(t *testing.T) {
			dir := t.TempDir()
			testenv.Git(t, dir, "init", "-q", "-b", "main")
			var open, ticked strings.Builder
			for i := 1; i <= tc.tasks; i++ {
				fmt.Fprintf(&open, "- [ ] T%03d Task %d\n", i, i)
				fmt.Fprintf(&ticked, "- [x] T%03d Task %d\n", i, i)
			}
			writeFile(t, dir, "specs/002-many/tasks.md", open.String())
			commitAll(t, dir, "plan")
			writeFile(t, dir, "specs/002-many/tasks.md", ticked.String())
			c := commitAll(t, dir, "all")
			repo, err := gitref.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()
			notes, err := repo.Notes("")
			if err != nil {
				t.Fatal(err)
			}
			req := attest.TickRequest{Commit: c, Verdict: predicate.RegressionOnly, Regression: map[string]any{"reason": "planning_work"}, DryRun: true}
			_, dryErr := attest.Tick(context.Background(), repo, notes, req)
			req.DryRun = false
			w, err := attest.Tick(context.Background(), repo, notes, req)
			if tc.wantLines == 0 {
				for _, e := range []error{dryErr, err} {
					if !errors.Is(e, notemerge.ErrNoteLimit) || !strings.Contains(e.Error(), "nothing was written") {
						t.Fatalf("%d tasks: err = %v, want ErrNoteLimit", tc.tasks, e)
					}
				}
				if n := note(t, dir, c); n != "" {
					t.Fatalf("a refused tick wrote a note:\n%s", n)
				}
				return
			}
			if dryErr != nil || err != nil {
				t.Fatalf("%d tasks: dry run %v, write %v", tc.tasks, dryErr, err)
			}
			if n := strings.Count(note(t, dir, c), "\n"); n != tc.wantLines {
				t.Errorf("note has %d lines, want %d", n, tc.wantLines)
			}
			for i, x := range w {
				// The compact note's warning is about the commit: once, with
				// its first task.
				warned := len(x.Warnings) > 0 && strings.Contains(strings.Join(x.Warnings, " "), "only the task-verification statements")
				if warned != (tc.compact && i == 0) {
					t.Errorf("%s (task %d): warnings %q, want compact=%v", x.Subject, i, x.Warnings, tc.compact)
				}
				if want := map[bool]int{false: 2, true: 1}[tc.compact]; len(x.Statements) != want {
					t.Errorf("%s: %d statements reported, want %d", x.Subject, len(x.Statements), want)
				}
			}
		})
	}
}

func TestTickWithExampleEvidence(t *testing.T) {
	evidence, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "evidence", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := newTickRepo(t)
	repo, notes := r.open(t)
	key, allowed := sshKey(t, "")
	red := []byte("--- FAIL: TestAdd (0.00s)\n    calc_test.go:9: add(1, 2) = 0, want 3\nFAIL\n")
	w, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{
		Commit: r.c1, Tasks: []string{"T001"}, Verdict: predicate.Verified, Evidence: evidence,
		Red: &predicate.RedRun{Kind: predicate.RedAssertion, Output: red}, Signers: []signer.Signer{sshSigner(t, key)}, Time: fixedTime,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Two phases (red, green) in the trace: test-result ×2, task-verification, VSA.
	var types []string
	for _, s := range w[0].Statements {
		types = append(types, s.PredicateType)
	}
	if want := []string{statement.TestResultType, statement.TestResultType, predicate.PredicateType, statement.VSAType}; strings.Join(types, " ") != strings.Join(want, " ") {
		t.Errorf("statements = %v, want %v", types, want)
	}
	n := note(t, r.dir, r.c1)
	p := taskPredicate(t, n, "001-calc/T001")
	// Every opaque member is copied as given.
	ev, err := strictjson.Decode(evidence, predicate.KnownKeys())
	if err != nil {
		t.Fatal(err)
	}
	pv, err := p.Value()
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range ev.(map[string]any) {
		a, _ := strictjson.Canonical(want)
		b, _ := strictjson.Canonical(pv[k])
		if !bytes.Equal(a, b) {
			t.Errorf("evidence member %s:\n got %s\nwant %s", k, b, a)
		}
	}
	if rd, ok := p.Red.Get(); !ok || rd.Withheld || rd.OutputSHA256 != predicate.OutputSHA256(red) {
		t.Errorf("red = %+v", rd)
	}
	got := objectOutcomes(t, verifier(t, repo, notes, allowed), r.c1)
	if got["001-calc/T001"] != verify.OK {
		t.Errorf("verify = %v, want ok", got)
	}
}

func TestDecide(t *testing.T) {
	r := newTickRepo(t)
	repo, notes := r.open(t)
	key, allowed := sshKey(t, "")
	signers := []signer.Signer{sshSigner(t, key)}
	ctx := context.Background()

	// attested: on the tick commit, the task-verification statement alone.
	w, err := attest.Decide(ctx, repo, notes, attest.DecideRequest{Commit: r.c3, Task: "T003", Verdict: predicate.Attested,
		By: "Ada Lovelace", Reason: "checked on staging", Signers: signers, Time: fixedTime})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Statements) != 1 || w.Statements[0].PredicateType != predicate.PredicateType || w.Commit != r.c3 {
		t.Errorf("attested wrote %+v", w)
	}
	n := note(t, r.dir, r.c3)
	p := taskPredicate(t, n, "001-calc/T003")
	d, ok := p.Decider.Get()
	if !ok || d.By != "Ada Lovelace" || d.Reason != "checked on staging" || p.Verdict != predicate.Attested || p.Trace.Set || p.Red.Set {
		t.Errorf("attested predicate: verdict %s decider %+v", p.Verdict, d)
	}
	if stmts, _ := statements(t, n); len(stmts) != 1 {
		t.Errorf("attested note has %d statements, want 1 (no VSA, no test-result)", len(stmts))
	}

	// skipped: a record commit on the decision commit.
	w, err = attest.Decide(ctx, repo, notes, attest.DecideRequest{Commit: r.c1, Task: "T004", Verdict: predicate.Skipped,
		By: "ada", Reason: "docs live in the wiki", Signers: signers, Time: fixedTime})
	if err != nil {
		t.Fatal(err)
	}
	ref := "refs/speccoder/skipped/001-calc/T004"
	record := gitref.Hash(strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", ref)))
	if w.Commit != record {
		t.Errorf("written commit %s, ref %s", w.Commit, record)
	}
	if tree, want := testenv.Git(t, r.dir, "rev-parse", string(record)+"^{tree}"), testenv.Git(t, r.dir, "rev-parse", string(r.c1)+"^{tree}"); tree != want {
		t.Errorf("record tree %s, want the decision commit's %s", tree, want)
	}
	if parents := strings.TrimSpace(testenv.Git(t, r.dir, "rev-list", "--parents", "-n1", string(record))); parents != string(record)+" "+string(r.c1) {
		t.Errorf("record parents = %q, want only %s", parents, r.c1)
	}
	if msg := testenv.Git(t, r.dir, "log", "-1", "--format=%B", string(record)); strings.TrimSpace(msg) != "skip 001-calc/T004: docs live in the wiki" {
		t.Errorf("record message = %q", msg)
	}
	sp := taskPredicate(t, note(t, r.dir, record), "001-calc/T004")
	if sp.Verdict != predicate.Skipped || sp.Task.LineHash != predicate.LineHash("- [ ] T004 Write the docs") || sp.Spec.Set && !sp.Spec.Null {
		t.Errorf("skipped predicate: %s %s %+v", sp.Verdict, sp.Task.LineHash, sp.Spec)
	}
	testenv.Git(t, r.dir, "fsck", "--strict", "--no-progress")

	v := verifier(t, repo, notes, allowed)
	if got := objectOutcomes(t, v, r.c3); got["001-calc/T003"] != verify.OK {
		t.Errorf("verify attested = %v", got)
	}
	if got := objectOutcomes(t, v, record); got["001-calc/T004"] != verify.OK {
		t.Errorf("verify skip record = %v", got)
	}

	// Refusals.
	for _, tt := range []struct {
		name string
		req  attest.DecideRequest
		want error
		msg  string
	}{
		{"skipping a ticked task", attest.DecideRequest{Commit: r.c1, Task: "T001", Verdict: predicate.Skipped, By: "a", Reason: "r"}, attest.ErrRequest, "not open"},
		{"attested on a commit that ticks nothing", attest.DecideRequest{Commit: r.c2, Task: "T003", Verdict: predicate.Attested, By: "a", Reason: "r"}, attest.ErrNoTick, ""},
		{"attested on a commit that ticks another task", attest.DecideRequest{Commit: r.c1, Task: "T003", Verdict: predicate.Attested, By: "a", Reason: "r"}, attest.ErrTaskNotTicked, "it ticks T001, T002"},
		{"no reason", attest.DecideRequest{Commit: r.c3, Task: "T003", Verdict: predicate.Attested, By: "a", Reason: "  "}, attest.ErrRequest, "non-empty reason"},
		{"tick verdict", attest.DecideRequest{Commit: r.c3, Task: "T003", Verdict: predicate.Verified, By: "a", Reason: "r"}, attest.ErrRequest, "attested or skipped"},
		{"unknown task", attest.DecideRequest{Commit: r.c1, Task: "T999", Verdict: predicate.Skipped, By: "a", Reason: "r"}, attest.ErrRequest, "not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := attest.Decide(ctx, repo, notes, tt.req)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want %v mentioning %q", err, tt.want, tt.msg)
			}
		})
	}
}

func TestSignNoteInPlace(t *testing.T) {
	r := newTickRepo(t)
	repo, notes := r.open(t)
	key, allowed := sshKey(t, "")
	// Another tool's envelope (unsigned, another predicateType) stays unsigned
	// and byte for byte.
	foreign := `{"payloadType":"application/vnd.in-toto+json","payload":"` + base64.StdEncoding.EncodeToString([]byte(
		`{"_type":"https://in-toto.io/Statement/v1","predicate":{},"predicateType":"https://example.com/review/v1","subject":[{"digest":{"gitCommit":"`+string(r.c1)+`"},"name":"001-calc/T001"}]}`)) +
		`","signatures":[]}`
	addRawNote(t, r.dir, r.c1, foreign+"\n")
	if _, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: r.c1, Verdict: predicate.Verified, Time: fixedTime}); err != nil {
		t.Fatal(err)
	}
	v := verifier(t, repo, notes, allowed)
	if got := objectOutcomes(t, v, r.c1); got["001-calc/T001"] != verify.Unsigned {
		t.Fatalf("before signing: %v, want unsigned", got)
	}
	before, _ := statements(t, note(t, r.dir, r.c1))

	res, err := attest.SignNote(context.Background(), notes, r.c1, []signer.Signer{sshSigner(t, key)}, true)
	if err != nil || res.Signed != 4 {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if stmts, _ := statements(t, note(t, r.dir, r.c1)); len(stmts[0].env.Signatures) != 0 {
		t.Fatal("dry run signed")
	}
	res, err = attest.SignNote(context.Background(), notes, r.c1, []signer.Signer{sshSigner(t, key)}, false)
	if err != nil || res.Signed != 4 || len(res.Subjects) != 4 {
		t.Fatalf("SignNote = %+v, %v", res, err)
	}
	after, _ := statements(t, note(t, r.dir, r.c1))
	if len(after) != len(before) || len(after) != 5 || string(after[0].line) != foreign {
		t.Fatalf("after signing: %d statements, first %s", len(after), after[0].line)
	}
	for i := 1; i < len(after); i++ {
		if !bytes.Equal(after[i].env.Payload, before[i].env.Payload) || len(after[i].env.Signatures) != 1 {
			t.Errorf("statement %d: payload changed or not signed once", i)
		}
	}
	if got := objectOutcomes(t, v, r.c1); got["001-calc/T001"] != verify.OK || got["001-calc/T002"] != verify.OK {
		t.Errorf("after signing: %v, want ok", got)
	}
	// Nothing left to sign: the notes ref does not move.
	head, _ := notes.Head()
	res, err = attest.SignNote(context.Background(), notes, r.c1, []signer.Signer{sshSigner(t, key)}, false)
	if headAfter, _ := notes.Head(); err != nil || res.Signed != 0 || headAfter != head {
		t.Errorf("second SignNote = %+v, %v; head %s → %s", res, err, head, headAfter)
	}
	if _, err := attest.SignNote(context.Background(), notes, r.c2, []signer.Signer{sshSigner(t, key)}, false); !errors.Is(err, gitref.ErrNoNote) {
		t.Errorf("no note: err = %v, want ErrNoNote", err)
	}
	if _, err := attest.SignNote(context.Background(), notes, r.c1, nil, false); !errors.Is(err, attest.ErrRequest) {
		t.Errorf("no signer: err = %v, want ErrRequest", err)
	}
}

func TestFindTask(t *testing.T) {
	r := newTickRepo(t)
	writeFile(t, r.dir, "specs/002-other/tasks.md", "- [ ] T001 same id elsewhere\n")
	c := commitAll(t, r.dir, "second unit")
	repo, _ := r.open(t)
	fsys, err := repo.FS(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := attest.FindTask(fsys, "T001", ""); !errors.Is(err, attest.ErrRequest) || !strings.Contains(err.Error(), "name the unit") {
		t.Errorf("ambiguous: err = %v", err)
	}
	u, task, err := attest.FindTask(fsys, "T001", "specs/002-other")
	if err != nil || u.Format != specfmt.Speckit || u.Feature != "002-other" || task.Title != "same id elsewhere" {
		t.Errorf("with unit: %+v %+v %v", u, task, err)
	}
	u, task, err = attest.FindTask(fsys, "T003", "")
	if err != nil || u.Dir != "specs/001-calc" || !task.Ticked() {
		t.Errorf("T003: %+v %+v %v", u, task, err)
	}
}

// TestTickRewordedAndBorn: a tick commit that also rewrites the task's text is
// attested on the text as ticked (line_hash and title of the commit's line,
// the recomputation of docs/format.md#checks-in-order), a task added already ticked to an existing tasks
// file (tick.Tick.Born) is attested like any tick, and the ticked task of a
// tasks file new in the commit is attestable (selected by unit). attest decide and attest carry
// bind the same line; every statement verifies ok.
func TestTickRewordedAndBorn(t *testing.T) {
	r := newTickRepo(t)
	const ticked = "# Tasks\n\n- [x] T001 [US1] Write the failing add test\n- [x] T002 [P] [US1] Implement add\n- [x] T003 [US2] Implement subtract\n" +
		"- [x] T004 Write the user docs\n- [x] T005 [US2] Document subtract\n"
	files := map[string]string{
		"specs/001-calc/tasks.md": ticked,
		"specs/002-new/tasks.md":  "- [x] T001 Imported\n",
	}
	for name, content := range files {
		writeFile(t, r.dir, name, content)
	}
	c4 := commitAll(t, r.dir, "docs")
	// The same change on another branch (a cherry-pick): the carry target.
	testenv.Git(t, r.dir, "checkout", "-q", "-b", "pick", string(r.c3))
	for name, content := range files {
		writeFile(t, r.dir, name, content)
	}
	c4b := commitAll(t, r.dir, "docs, picked")
	repo, notes := r.open(t)
	key, allowed := sshKey(t, "")
	signers := []signer.Signer{sshSigner(t, key)}
	ctx := context.Background()

	// Unit selects 001-calc's ticks: 002-new's born-ticked T001 is
	// attestable too (docs/format.md#born-ticked-tasks), and checked below.
	written, err := attest.Tick(ctx, repo, notes, attest.TickRequest{
		Commit: c4, Unit: "specs/001-calc", Verdict: predicate.RegressionOnly, Regression: map[string]any{"reason": "planning_work"},
		Signers: signers, Time: fixedTime,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2 || written[0].Task != "T004" || written[1].Task != "T005" {
		t.Fatalf("written = %+v, want T004 and T005 (not 002-new's T001)", written)
	}
	if dry, err := attest.Tick(ctx, repo, notes, attest.TickRequest{
		Commit: c4, Unit: "specs/002-new", Verdict: predicate.RegressionOnly, Regression: map[string]any{"reason": "planning_work"},
		Signers: signers, Time: fixedTime, DryRun: true,
	}); err != nil || len(dry) != 1 || dry[0].Subject != "002-new/T001" {
		t.Fatalf("born-ticked 002-new/T001: %+v, %v", dry, err)
	}
	for _, tc := range []struct {
		w             attest.Written
		open, title   string
		section, note string
	}{
		{written[0], "- [ ] T004 Write the user docs", "Write the user docs", "",
			`specs/001-calc/tasks.md:6: the tick also rewrites task T004's text ("- [ ] T004 Write the docs" at the parent); the attestation covers the text as ticked`},
		{written[1], "- [ ] T005 [US2] Document subtract", "Document subtract", "US2",
			"specs/001-calc/tasks.md:7: task T005 is new in " + string(c4) + ", added already ticked (no open line at the parent); it is attested as a tick"},
	} {
		p := taskPredicate(t, note(t, r.dir, c4), "001-calc/"+tc.w.Task)
		sp, _ := p.Spec.Get()
		sec, _ := sp.Section.Get()
		if p.Task.LineHash != predicate.LineHash(tc.open) || p.Task.Title != tc.title || sec != tc.section {
			t.Errorf("%s: line_hash %s title %q section %q; want the hash of %q, %q, %q", tc.w.Task, p.Task.LineHash, p.Task.Title, sec, tc.open, tc.title, tc.section)
		}
		if len(tc.w.Warnings) != 1 || tc.w.Warnings[0] != tc.note {
			t.Errorf("%s: warnings %q, want %q", tc.w.Task, tc.w.Warnings, tc.note)
		}
	}
	v := verifier(t, repo, notes, allowed)
	if got := objectOutcomes(t, v, c4); got["001-calc/T004"] != verify.OK || got["001-calc/T005"] != verify.OK || len(got) != 2 {
		t.Errorf("verify %s = %v, want ok for T004 and T005", c4, got)
	}

	// attest decide on the Born task, forced, replaces its statements with the decision.
	if _, err := attest.Decide(ctx, repo, notes, attest.DecideRequest{Commit: c4, Task: "T005", Verdict: predicate.Attested,
		By: "Ada Lovelace", Reason: "read the docs", Signers: signers, Time: fixedTime, Force: true}); err != nil {
		t.Fatal(err)
	}
	if p := taskPredicate(t, note(t, r.dir, c4), "001-calc/T005"); p.Verdict != predicate.Attested || p.Task.LineHash != predicate.LineHash("- [ ] T005 [US2] Document subtract") {
		t.Errorf("decided T005: verdict %s line_hash %s", p.Verdict, p.Task.LineHash)
	}
	if got := objectOutcomes(t, v, c4); got["001-calc/T005"] != verify.OK {
		t.Errorf("verify decided T005 = %v", got)
	}

	// Carry without a check of FROM's signatures and without the Unsafe
	// opt-out is refused before anything is read or written.
	before := note(t, r.dir, c4b)
	if _, err := carry.Carry(ctx, repo, notes, carry.Request{From: c4, To: c4b, Signers: signers}); !errors.Is(err, carry.ErrUncheckedFrom) || !errors.Is(err, attest.ErrRequest) {
		t.Fatalf("carry with neither CheckFrom nor UnverifiedFromUnsafe: %v, want ErrUncheckedFrom", err)
	}
	if after := note(t, r.dir, c4b); after != before {
		t.Fatalf("the refused carry wrote %s's note: %q", c4b, after)
	}

	// attest carry to the picked commit recomputes the same lines there; the
	// original, still on main, keeps its statements.
	res, err := carry.Carry(ctx, repo, notes, carry.Request{From: c4, To: c4b, Signers: signers, UnverifiedFromUnsafe: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 2 || res.RemovedFrom || res.KeptFromRef != "refs/heads/main" {
		t.Fatalf("carry: %d written, removed %v, kept for %q", len(res.Written), res.RemovedFrom, res.KeptFromRef)
	}
	if got := objectOutcomes(t, v, c4); got["001-calc/T004"] != verify.OK {
		t.Errorf("verify %s (the original) after the carry = %v", c4, got)
	}
	for _, w := range res.Written {
		if len(w.Warnings) != 1 {
			t.Errorf("carried %s: warnings %q, want one note", w.Task, w.Warnings)
		}
	}
	if got := objectOutcomes(t, v, c4b); got["001-calc/T004"] != verify.OK || got["001-calc/T005"] != verify.OK {
		t.Errorf("verify carried %s = %v, want ok for T004 and T005", c4b, got)
	}
}
