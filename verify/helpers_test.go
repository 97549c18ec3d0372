package verify

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/internal/testkeys"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notesref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify/internal/memo"
)

// The spec-kit unit the object and branch tests build
// (docs/format.md#units-and-task-lines): two user stories, six open tasks.
const (
	fxFeature = "001-greeting"
	fxDir     = "specs/" + fxFeature
	fxTasks   = `# Tasks: Greeting CLI

## Phase 1: Setup

- [ ] T001 Create the greet command skeleton

## Phase 2: User Story 1 - Greet a person by name (Priority: P1)

- [ ] T002 [US1] Write the acceptance test for greet Ada
- [ ] T003 [US1] Print Hello, <name>!
- [ ] T004 [US1] Default the name to world

## Phase 3: User Story 2 - Greet in another language (Priority: P2)

- [ ] T005 [US2] Add --lang fr
- [ ] T006 [US2] Add --lang de
`
	fxSpec = `# Feature Specification: Greeting CLI

## User Scenarios & Testing

### User Story 1 - Greet a person by name (Priority: P1)

A user runs greet Ada and sees a friendly greeting.

1. **Given** the CLI, **When** the user runs greet Ada, **Then** it prints Hello, Ada!

### User Story 2 - Greet in another language (Priority: P2)

1. **Given** the CLI, **When** the user runs greet --lang fr Ada, **Then** it prints Bonjour, Ada !

## Requirements

- **FR-001**: The CLI MUST print a greeting.
`
	fxPolicy = "[tests]\ncommand = \"go test ./...\"\n\n[attest]\nsigner = \"ssh\"\n"
)

// now is the verifier's clock in these tests.
var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// sshKey is an ed25519 SSH key pair (testkeys.SSHKey).
type sshKey struct {
	path   string // private key file; path+".pub" is the public key
	pub    ssh.PublicKey
	line   string // "type base64"
	signer ssh.Signer
}

// newSSHKey makes an ed25519 key pair with the real ssh-keygen.
func newSSHKey(t testing.TB) sshKey {
	k := testkeys.NewSSHKey(t)
	return sshKey{path: k.Path, pub: k.Pub, line: k.Line, signer: k.Signer}
}

// fxTime is when the fixtures' statements are recorded.
var fxTime = time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)

// fixture is a real git repository (built with the real git) holding one
// spec-kit unit on main, a trusted ed25519 key made by the real ssh-keygen, and
// the verifier's allowed signers file outside the work tree.
type fixture struct {
	t       *testing.T
	dir     string
	base    gitref.Hash // main's first commit: the spec and the open tasks
	key     sshKey
	signer  signer.Signer
	signers string // the allowed signers file
	trust   *trust.Trust
	policy  *policy.Policy // the verifier's policy; nil: the default
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: filepath.Join(t.TempDir(), "repo")}
	testenv.Git(t, "", "init", "-q", "-b", "main", f.dir)
	f.base = f.commit("spec: "+fxFeature, map[string]string{
		fxDir + "/spec.md":  fxSpec,
		fxDir + "/tasks.md": fxTasks,
		"speccoder.toml":    fxPolicy,
	})
	f.key = newSSHKey(t)
	f.signer = f.sshSigner(f.key)
	f.signers = filepath.Join(t.TempDir(), "allowed_signers")
	f.setAllowed(`dev@example.invalid namespaces="in-toto" ` + f.key.line + "\n")
	return f
}

// setAllowed rewrites the verifier's allowed signers file and its trust.
func (f *fixture) setAllowed(text string) {
	f.t.Helper()
	if err := os.WriteFile(f.signers, []byte(text), 0o600); err != nil {
		f.t.Fatal(err)
	}
	as, err := trust.LoadAllowedSigners(f.signers)
	if err != nil {
		f.t.Fatal(err)
	}
	if f.trust, err = trust.NewTrust(trust.WithAllowedSigners(as)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) sshSigner(k sshKey) signer.Signer {
	f.t.Helper()
	s, err := signer.NewSSH(k.path, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	return strings.TrimSpace(testenv.Git(f.t, f.dir, args...))
}

// commit writes files (path → content) and commits them; it returns HEAD.
func (f *fixture) commit(msg string, files map[string]string) gitref.Hash {
	f.t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		full := filepath.Join(f.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(files[p]), 0o644); err != nil {
			f.t.Fatal(err)
		}
		f.git("add", p)
	}
	f.git("commit", "-q", "--allow-empty", "-m", msg)
	return f.head()
}

func (f *fixture) head() gitref.Hash { return gitref.Hash(f.git("rev-parse", "HEAD")) }

func (f *fixture) read(path string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(path)))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// edit replaces old by new (exactly once) in a work tree file and commits.
func (f *fixture) edit(path, old, new, msg string) gitref.Hash {
	f.t.Helper()
	s := f.read(path)
	if strings.Count(s, old) != 1 {
		f.t.Fatalf("%s: %q occurs %d times, want 1", path, old, strings.Count(s, old))
	}
	return f.commit(msg, map[string]string{path: strings.Replace(s, old, new, 1)})
}

// tick ticks the boxes of tasks ids in tasks.md in one commit.
func (f *fixture) tick(ids ...string) gitref.Hash {
	f.t.Helper()
	s := f.read(fxDir + "/tasks.md")
	for _, id := range ids {
		open := "- [ ] " + id + " "
		if strings.Count(s, open) != 1 {
			f.t.Fatalf("task %s is not open once in tasks.md", id)
		}
		s = strings.Replace(s, open, "- [x] "+id+" ", 1)
	}
	return f.commit(strings.Join(ids, ", ")+" done", map[string]string{fxDir + "/tasks.md": s})
}

func (f *fixture) open(access ...gitref.Access) (*gitref.Repo, *gitref.NotesStore) {
	f.t.Helper()
	repo, err := gitref.Open(f.dir, access...)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { repo.Close() })
	notes, err := repo.Notes(notesref.Default)
	if err != nil {
		f.t.Fatal(err)
	}
	return repo, notes
}

// attest runs attest.Tick on commit c (every task it ticks) with the given
// verdict (regression_only gets planning_work) and signers.
func (f *fixture) attest(c gitref.Hash, verdict predicate.Verdict, signers ...signer.Signer) []attest.Written {
	f.t.Helper()
	repo, notes := f.open()
	req := attest.TickRequest{Commit: c, Verdict: verdict, Signers: signers, Time: fxTime, Force: true}
	if verdict == predicate.RegressionOnly {
		req.Regression = map[string]any{"reason": "planning_work"}
	}
	w, err := attest.Tick(context.Background(), repo, notes, req)
	if err != nil {
		f.t.Fatalf("attest.Tick(%s): %v", c, err)
	}
	return w
}

// verifier opens the repository afresh (notes written by the git CLI are seen).
func (f *fixture) verifier(access ...gitref.Access) *Verifier {
	f.t.Helper()
	repo, notes := f.open(access...)
	v, err := NewVerifier(repo, notes, f.trust, WithTime(now), WithPolicy(f.policy))
	if err != nil {
		f.t.Fatalf("NewVerifier: %v", err)
	}
	return v
}

func (f *fixture) object(c gitref.Hash) []ObjectResult {
	f.t.Helper()
	rs, err := f.verifier().Object(c)
	if err != nil {
		f.t.Fatalf("Object(%s): %v", c, err)
	}
	return rs
}

func (f *fixture) branch(base, head gitref.Hash, opts GateOptions) *Report {
	f.t.Helper()
	rep, err := Gate.Branch(f.verifier(), base, head, opts)
	if err != nil {
		f.t.Fatalf("Branch(%s, %s): %v", base, head, err)
	}
	f.sameSpooled(base, head, opts)
	return rep
}

// sameSpooled checks that BranchSpooled's report writes as Branch's does
// (every writer, byte for byte), and that Close removes its spool. The Branch
// it is compared with reads and parses every tasks file at base and head in
// the state check (GateTuning.EveryTasksFile), BranchSpooled those the range
// changes: the same comparison checks that shortcut.
func (f *fixture) sameSpooled(base, head gitref.Hash, opts GateOptions) {
	f.t.Helper()
	full := f.verifier()
	full.tuning.EveryTasksFile = true
	mem, err := Gate.Branch(full, base, head, opts)
	if err != nil {
		f.t.Fatalf("Branch(%s, %s): %v", base, head, err)
	}
	spooled, err := Gate.BranchSpooled(f.verifier(), base, head, opts)
	if err != nil {
		f.t.Fatalf("BranchSpooled(%s, %s): %v", base, head, err)
	}
	defer spooled.Close()
	// The spooled walk judged one tick commit at a time: every window
	// boundary of the fixture's range is crossed. Its caches hold one
	// commit and its tasks memos one file at most: every later read of a
	// commit or a tasks file is decoded or parsed again.
	savedMemo := memo.TasksBytes
	memo.TasksBytes = 1
	sv := f.verifier(gitref.Access{OnePass: true, CommitCache: 1})
	sv.tuning.Window = 1
	small, err := Gate.BranchSpooled(sv, base, head, opts)
	memo.TasksBytes = savedMemo
	if err != nil {
		f.t.Fatalf("BranchSpooled(%s, %s), a window of one commit: %v", base, head, err)
	}
	defer small.Close()
	f.sameTicks(mem, spooled)
	f.sameTicks(mem, small)
	for _, w := range reportWriters(opts) {
		var want bytes.Buffer
		if err := w.Write(&want, mem); err != nil {
			f.t.Fatalf("%s: %v", w.Format, err)
		}
		for _, sp := range []struct {
			name string
			rep  *Report
		}{{"BranchSpooled", spooled}, {"BranchSpooled, a window of one commit and minimal caches", small}} {
			var got bytes.Buffer
			if err := w.Write(&got, sp.rep); err != nil {
				f.t.Fatalf("%s, %s: %v", w.Format, sp.name, err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				f.t.Errorf("%s: %s(%s, %s) writes\n%s\nBranch writes\n%s", w.Format, sp.name, base, head, got.Bytes(), want.Bytes())
			}
		}
	}
	names := []string{spooled.objectSpool.f.Name(), spooled.tickSpool.recs.Name()}
	if runtime.GOOS != "windows" {
		// An open file outlives its name here: a killed verify leaves no spool.
		for _, name := range names {
			if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) {
				f.t.Errorf("the spool %s has a name while open: %v", name, err)
			}
		}
	}
	if err := spooled.Close(); err != nil {
		f.t.Fatalf("closing the spooled report: %v", err)
	}
	for _, name := range names {
		if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) {
			f.t.Errorf("the spool %s is left after Close: %v", name, err)
		}
	}
}

// sameTicks compares the ticks of a report held in memory with those of a
// spooled one field by field (the exported fields, the hint's key, each
// signer's fields, tlog_index included), naming the field that differs: a
// writer may leave a field out, the spool may not lose it.
func (f *fixture) sameTicks(mem, sp *Report) {
	f.t.Helper()
	if mem.TickCount() != sp.TickCount() {
		f.t.Fatalf("the spooled report has %d ticks, the one in memory %d", sp.TickCount(), mem.TickCount())
	}
	readMem, err := mem.tickReader()
	if err != nil {
		f.t.Fatal(err)
	}
	readSp, err := sp.tickReader()
	if err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i < mem.TickCount(); i++ {
		a, err := readMem(i)
		if err != nil {
			f.t.Fatal(err)
		}
		b, err := readSp(i)
		if err != nil {
			f.t.Fatal(err)
		}
		va, vb := reflect.ValueOf(*a), reflect.ValueOf(*b)
		for j := 0; j < va.NumField(); j++ {
			field := va.Type().Field(j)
			switch {
			case field.Name == "Object":
				// The object's verdict is not kept with a spooled tick: its
				// reasons and signers are.
			case field.Name == "hintKey":
				if a.HintKey != b.HintKey {
					f.t.Errorf("tick %d (%s %s): hint key %q spooled, %q in memory", i, a.Commit, a.TaskID, b.HintKey, a.HintKey)
				}
			case !field.IsExported():
				f.t.Errorf("TickResult.%s is unexported: compare it here", field.Name)
			case field.Name == "Signers":
				// A signer is compared by what it carries out of the judging
				// (its exported fields, tlog_index included): the key names
				// signers are counted by serve the judging alone.
				if da, db := dumpValue(va.Field(j)), dumpValue(vb.Field(j)); da != db {
					f.t.Errorf("tick %d (%s %s): Signers spooled %s, in memory %s", i, a.Commit, a.TaskID, db, da)
				}
			case !reflect.DeepEqual(va.Field(j).Interface(), vb.Field(j).Interface()):
				f.t.Errorf("tick %d (%s %s): %s spooled %s, in memory %s", i, a.Commit, a.TaskID, field.Name, dumpValue(vb.Field(j)), dumpValue(va.Field(j)))
			}
		}
	}
}

// dumpValue shows v with the values its pointers point to.
func dumpValue(v reflect.Value) string {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Sprintf("%+v", v.Interface())
	}
	return fmt.Sprintf("%s (nil %v)", b, v.Kind() == reflect.Slice && v.IsNil())
}

// note returns commit c's note as stored.
func (f *fixture) note(c gitref.Hash) []byte {
	f.t.Helper()
	blob := f.git("notes", "--ref", "speccoder", "list", string(c))
	return []byte(testenv.Git(f.t, f.dir, "cat-file", "blob", blob))
}

// setNote stores b byte for byte as commit c's note (git notes add -C reuses
// the blob, so git does not clean it up).
func (f *fixture) setNote(c gitref.Hash, b []byte) {
	f.t.Helper()
	file := filepath.Join(f.t.TempDir(), "note")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		f.t.Fatal(err)
	}
	blob := f.git("hash-object", "-w", file)
	f.git("notes", "--ref", "speccoder", "add", "-f", "-C", blob, string(c))
}

func (f *fixture) setNoteLines(c gitref.Hash, lines [][]byte) {
	f.t.Helper()
	f.setNote(c, append(bytes.Join(lines, []byte("\n")), '\n'))
}

// noteLine is one decoded line of a note.
type noteLine struct {
	raw       []byte
	env       *dsse.Envelope
	statement map[string]any
	predType  string
}

func (f *fixture) lines(c gitref.Hash) []noteLine {
	f.t.Helper()
	var out []noteLine
	for _, raw := range noteline.Split(f.note(c)) {
		env, err := dsse.DecodeEnvelope(raw)
		if err != nil {
			f.t.Fatalf("note of %s: %v", c, err)
		}
		st := decodeMap(f.t, env.Payload)
		pt, _ := st["predicateType"].(string)
		out = append(out, noteLine{raw: raw, env: env, statement: st, predType: pt})
	}
	return out
}

// tvLine returns the index of the task-verification line of c's note.
func (f *fixture) tvLine(c gitref.Hash) ([]noteLine, int) {
	f.t.Helper()
	ls := f.lines(c)
	for i, l := range ls {
		if l.predType == predicate.PredicateType {
			return ls, i
		}
	}
	f.t.Fatalf("note of %s has no task-verification line", c)
	return nil, 0
}

func decodeMap(t testing.TB, b []byte) map[string]any {
	t.Helper()
	v, err := strictjson.Decode(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is not a JSON object", b)
	}
	return m
}

func canon(t testing.TB, v any) []byte {
	t.Helper()
	b, err := strictjson.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signLine signs payload with signers (taskproof's own signing code) and
// returns the note line.
func signLine(t testing.TB, payload []byte, signers ...signer.Signer) []byte {
	t.Helper()
	env, err := signer.Sign(context.Background(), payload, signers...)
	if err != nil {
		t.Fatal(err)
	}
	return marshal(t, env)
}

func marshal(t testing.TB, env *dsse.Envelope) []byte {
	t.Helper()
	b, err := env.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wireEnvelope writes an envelope line with the payload and signatures already
// in their wire (base64) spelling, so tests choose the alphabet and padding.
func wireEnvelope(t testing.TB, payloadType, payload string, sigs ...[2]string) []byte {
	t.Helper()
	type sig struct {
		KeyID string `json:"keyid"`
		Sig   string `json:"sig"`
	}
	w := struct {
		Payload     string `json:"payload"`
		PayloadType string `json:"payloadType"`
		Signatures  []sig  `json:"signatures"`
	}{Payload: payload, PayloadType: payloadType, Signatures: []sig{}}
	for _, s := range sigs {
		w.Signatures = append(w.Signatures, sig{KeyID: s[0], Sig: s[1]})
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resign rewrites c's task-verification statement with mutate, signs it with
// signers, and rebuilds the VSA so that it names the new statement (the VSA is
// taskproof's, so verify checks it): only the mutation can make verify fail.
func (f *fixture) resign(c gitref.Hash, mutate func(st map[string]any), signers ...signer.Signer) {
	f.t.Helper()
	ls, i := f.tvLine(c)
	st := ls[i].statement
	mutate(st)
	payload := canon(f.t, st)
	f.writeWithVSA(c, ls, i, payload, signers...)
}

// writeWithVSA replaces line i of ls by payload signed with signers, and the
// VSA line by one naming every other owned statement of the task.
func (f *fixture) writeWithVSA(c gitref.Hash, ls []noteLine, i int, payload []byte, signers ...signer.Signer) {
	f.t.Helper()
	var out [][]byte
	var others [][]byte
	var types []string
	vsaAt, vsaName := -1, ""
	for j, l := range ls {
		switch {
		case j == i:
			out = append(out, signLine(f.t, payload, signers...))
			others = append(others, payload)
			types = append(types, predicate.PredicateType)
		case l.predType == statement.VSAType:
			vsaAt = len(out)
			vsaName = l.statement["subject"].([]any)[0].(map[string]any)["name"].(string)
			out = append(out, nil)
		default:
			out = append(out, l.raw)
			others = append(others, l.env.Payload)
			types = append(types, l.predType)
		}
	}
	if vsaAt < 0 {
		f.setNoteLines(c, out)
		return
	}
	pred := ls[i].statement["predicate"].(map[string]any)
	verdict, _ := pred["verdict"].(string)
	policy, _ := pred["policy_sha256"].(string)
	when, _ := pred["time"].(string)
	vsa, err := attest.VSAPredicate(string(c), predicate.Verdict(verdict), policy, when, others, types)
	if err != nil {
		f.t.Fatal(err)
	}
	vb, err := statement.Encode(statement.Subject{Name: vsaName, GitCommit: string(c)}, statement.VSAType, vsa)
	if err != nil {
		f.t.Fatal(err)
	}
	out[vsaAt] = signLine(f.t, vb, f.signer)
	f.setNoteLines(c, out)
}

// replaceTV swaps the task-verification line of c's note for line, keeping the
// others (the VSA still names the original payload).
func (f *fixture) replaceTV(c gitref.Hash, line []byte) {
	f.t.Helper()
	ls, i := f.tvLine(c)
	var out [][]byte
	for j, l := range ls {
		if j == i {
			out = append(out, line)
		} else {
			out = append(out, l.raw)
		}
	}
	f.setNoteLines(c, out)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// codes returns the reason codes of rs, sorted.
func codes(rs []Reason) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Code)
	}
	sort.Strings(out)
	return out
}

func pred(st map[string]any) map[string]any { return st["predicate"].(map[string]any) }

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// ReportWriter is one report format's writer. The writers other than JSON are
// package report's, which imports verify: report_writers_test.go, in package
// verify_test, sets ReportWriters to them.
type ReportWriter struct {
	Format string
	Write  func(io.Writer, *Report) error
}

// Gate is the merge gate, package gate's, which imports verify: gate_test.go,
// in package verify_test, sets it to gate.Branch and gate.BranchSpooled.
var Gate struct {
	Branch, BranchSpooled func(v *Verifier, base, head gitref.Hash, opts GateOptions) (*Report, error)
}

// ReportWriters gives the writers of every format for a gate run with opts.
var ReportWriters func(opts GateOptions) []ReportWriter

// reportWriters is ReportWriters(opts), JSON first.
func reportWriters(opts GateOptions) []ReportWriter {
	return append([]ReportWriter{{"json", WriteJSON}}, ReportWriters(opts)...)
}

// writeReport writes rep in format ("json", "text", "sarif", "github",
// "github-summary", "junit") for a gate run with opts.
func writeReport(w io.Writer, format string, rep *Report, opts GateOptions) error {
	for _, rw := range reportWriters(opts) {
		if rw.Format == format {
			return rw.Write(w, rep)
		}
	}
	return fmt.Errorf("no %s writer", format)
}
