package verify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/internal/testkeys"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
	"golang.org/x/crypto/ssh"
)

// The interop suite: notes written as speccoder writes them, from the facts
// in testdata/interop/speccoder/README.md, verified by taskproof. Everything
// is built with the real git and the real ssh-keygen; nothing here uses
// taskproof's writers except the one tick taskproof itself attests.

// speccoderVerifierID is the verifier.id of speccoder's VSA.
const speccoderVerifierID = "https://speccoder.dev/verifier/v0"

// speccoderPolicySHA256 stands for speccoder's own policy hash: its recipe
// hashes speccoder's version in a layout that is not public, so no verifier
// can recompute it.
var speccoderPolicySHA256 = statement.SHA256Hex([]byte(`{"judge":{},"speccoder":"0.10.1"}`))

// speccoderLine is one note line as speccoder writes it: the statement's
// canonical JSON as payload, signed over PAE with `ssh-keygen -Y sign -n
// in-toto`, sig = standard padded base64 of the armored SSHSIG, keyid =
// SHA256:… fingerprint, and the envelope's members in the order serde writes
// its struct (payloadType, payload, signatures; keyid, sig) — the envelope is
// not signed, so its member order is free.
func speccoderLine(t *testing.T, k sshKey, statement map[string]any) []byte {
	t.Helper()
	payload := canon(t, statement)
	env := &dsse.Envelope{PayloadType: dsse.PayloadType, Payload: payload}
	armored := testkeys.SSHKeygenSign(t, k.path, "in-toto", env.PAE())
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return []byte(`{"payloadType":` + q(dsse.PayloadType) + `,"payload":` + q(base64.StdEncoding.EncodeToString(payload)) +
		`,"signatures":[{"keyid":` + q(ssh.FingerprintSHA256(k.pub)) + `,"sig":` + q(base64.StdEncoding.EncodeToString(armored)) + `}]}`)
}

func speccoderStatement(subject string, commit gitref.Hash, predicateType string, pred map[string]any) map[string]any {
	return map[string]any{
		"_type":         statement.Type,
		"subject":       []any{map[string]any{"name": subject, "digest": map[string]any{"gitCommit": string(commit)}}},
		"predicateType": predicateType,
		"predicate":     pred,
	}
}

// interopRepo is the speccoder-style repository of the suite.
type interopRepo struct {
	*fixture
	start gitref.Hash
	ticks map[string]gitref.Hash // name → commit
}

// speccoderTick writes, on commit c, what speccoder writes for a tick: a
// test-result statement per phase (red, green), the task-verification
// statement, and a VSA naming the others by the SHA-256 of their payloads.
func (r *interopRepo) speccoderTick(c gitref.Hash, subject string, pred map[string]any) {
	r.t.Helper()
	var lines [][]byte
	var inputs []any
	for _, phase := range []string{"red", "green"} {
		result := map[string]any{"red": "FAILED", "green": "PASSED"}[phase]
		st := speccoderStatement(subject, c, statement.TestResultType, map[string]any{
			"result": result, "url": "phase:" + phase, "passedTests": []any{}, "failedTests": []any{},
			"configuration": []any{map[string]any{"name": "judge-config", "uri": "https://speccoder.dev/policy/judge-config/v0", "digest": map[string]any{"sha256": speccoderPolicySHA256}}},
		})
		lines = append(lines, speccoderLine(r.t, r.key, st))
		inputs = append(inputs, map[string]any{"name": statement.TestResultType, "digest": map[string]any{"sha256": statement.SHA256Hex(canon(r.t, st))}})
	}
	tv := speccoderStatement(subject, c, predicate.PredicateType, pred)
	lines = append(lines, speccoderLine(r.t, r.key, tv))
	inputs = append(inputs, map[string]any{"name": predicate.PredicateType, "digest": map[string]any{"sha256": statement.SHA256Hex(canon(r.t, tv))}})
	vsa := speccoderStatement(subject, c, statement.VSAType, map[string]any{
		"verifier":           map[string]any{"id": speccoderVerifierID, "version": map[string]any{"speccoder": "0.10.1"}},
		"timeVerified":       pred["time"],
		"resourceUri":        "git:" + string(c),
		"policy":             map[string]any{"uri": "https://speccoder.dev/policy/judge-config/v0", "digest": map[string]any{"sha256": speccoderPolicySHA256}},
		"inputAttestations":  inputs,
		"verificationResult": "PASSED",
		"verifiedLevels":     []any{"TASK_VERIFIED"},
	})
	lines = append(lines, speccoderLine(r.t, r.key, vsa))
	r.setNoteLines(c, lines)
}

func (r *interopRepo) predicate(c gitref.Hash, verdict string, unit map[string]any, id, openLine, title string, spec any, when string) map[string]any {
	p := map[string]any{
		"revision": json.Number("3"), "verdict": verdict, "unit": unit,
		"task":          map[string]any{"id": id, "line_hash": predicate.LineHash(openLine), "title": title},
		"tree":          r.git("rev-parse", string(c)+"^{tree}"),
		"spec":          spec,
		"policy_sha256": speccoderPolicySHA256,
		"time":          when,
	}
	if verdict == "verified" {
		out := []byte("--- FAIL: TestGreet (0.00s)\n    greet_test.go:9: got \"\", want \"Hello, Ada!\"\nFAIL\n")
		ex, _ := predicate.Excerpt(out)
		p["red"] = map[string]any{"kind": "assertion", "excerpt": ex, "excerpt_sha256": statement.SHA256Hex([]byte(ex)),
			"output_sha256": predicate.OutputSHA256(out), "withheld": false}
	}
	return p
}

var (
	interopSpeckit = map[string]any{"format": "speckit", "feature": "001-greet", "dir": "specs/001-greet"}
	interopKiro    = map[string]any{"format": "kiro", "feature": "login", "dir": ".kiro/specs/login"}
	// The sections as the recipes cut them, written out here rather than
	// computed with taskproof's own code: through the line before the next
	// heading, so the blank line before it ends the text with "\n".
	interopUS1  = "### User Story 1 - Greet a person by name (Priority: P1)\n\nA user runs greet Ada and sees a friendly greeting.\n\n1. **Given** the CLI, **When** the user runs greet Ada, **Then** it prints Hello, Ada!\n"
	interopReq1 = "### Requirement 1\n\n**User Story:** As a user, I want to log in, so that I see my account.\n\n#### Acceptance Criteria\n\n1. WHEN the user submits valid credentials THEN the system SHALL show the account page\n"
)

// newInteropRepo builds the repository of testdata/interop/speccoder/repo
// and, on top of it, one commit per case with speccoder's notes:
//   - "speckit": T001 ticked with an upper-case [X], trailers Spec-Task and
//     Verdict, time without fractional seconds;
//   - "decision": T002 accepted by a person (attested) without a spec member,
//     time with fractional seconds;
//   - "kiro": Kiro parent 1 and sub-task 1.1 ticked in one commit, the
//     statement on the sub-task (speccoder attests the task it worked on);
//   - "bug": a bug fix attested as 001-greet/bug:crash-on-empty.
func newInteropRepo(t *testing.T) *interopRepo {
	t.Helper()
	f := &fixture{t: t, dir: filepath.Join(t.TempDir(), "repo")}
	testenv.Git(t, "", "init", "-q", "-b", "main", f.dir)
	src := filepath.Join(testenv.RepoRoot(t), "testdata", "interop", "speccoder", "repo")
	files := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(src, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.base = f.commit("plan", files)
	f.key = newSSHKey(t)
	f.signer = f.sshSigner(f.key)
	f.signers = filepath.Join(t.TempDir(), "allowed_signers")
	f.setAllowed(`speccoder@example.invalid namespaces="in-toto" ` + f.key.line + "\n")
	r := &interopRepo{fixture: f, start: f.base, ticks: map[string]gitref.Hash{}}

	tasks := "specs/001-greet/tasks.md"
	c := r.edit(tasks, "- [ ] T001", "- [X] T001", "T001: acceptance test for greet Ada\n\nSpec-Task: 001-greet/T001\nVerdict: verified\n")
	r.ticks["speckit"] = c
	r.speccoderTick(c, "001-greet/T001", r.predicate(c, "verified", interopSpeckit, "T001",
		"- [ ] T001 [US1] Write the acceptance test for greet Ada", "Write the acceptance test for greet Ada",
		map[string]any{"section": "US1", "section_hash": predicate.SectionHash([]byte(interopUS1))}, "2026-05-01T09:30:00Z"))

	c = r.edit(tasks, "- [ ] T002", "- [x] T002", "T002: wording reviewed\n\nSpec-Task: 001-greet/T002\nVerdict: attested\n")
	r.ticks["decision"] = c
	p := r.predicate(c, "attested", interopSpeckit, "T002", "- [ ] T002 [US1] Review the greeting wording with the product owner",
		"Review the greeting wording with the product owner", nil, "2026-05-01T09:31:07.123456Z")
	delete(p, "spec") // speccoder's schema: spec belongs to ticks
	p["decider"] = map[string]any{"by": "po@example.invalid", "reason": "reviewed in the planning meeting"}
	r.setNoteLines(c, [][]byte{speccoderLine(t, f.key, speccoderStatement("001-greet/T002", c, predicate.PredicateType, p))})

	ktasks := ".kiro/specs/login/tasks.md"
	kiro := strings.NewReplacer("- [ ] 1. ", "- [x] 1. ", "- [ ] 1.1 ", "- [x] 1.1 ").Replace(r.read(ktasks))
	c = r.commit("1.1: login form test\n\nSpec-Task: login/1.1\nVerdict: verified\n", map[string]string{ktasks: kiro})
	r.ticks["kiro"] = c
	r.speccoderTick(c, "login/1.1", r.predicate(c, "verified", interopKiro, "1.1", "  - [ ] 1.1 Write the login form test", "Write the login form test",
		map[string]any{"section": "1", "section_hash": predicate.SectionHash([]byte(interopReq1))}, "2026-05-01T09:32:00Z"))

	c = r.commit("fix: greet crashes on an empty name\n\nSpec-Task: 001-greet/bug:crash-on-empty\nVerdict: verified\n", map[string]string{"greet.go": "package greet\n"})
	r.ticks["bug"] = c
	p = r.predicate(c, "verified", interopSpeckit, "bug:crash-on-empty", "bug:crash-on-empty", "greet crashes on an empty name", nil, "2026-05-01T09:33:00.5Z")
	p["bug"] = map[string]any{"slug": "crash-on-empty", "outcome": "fixed"}
	r.speccoderTick(c, "001-greet/bug:crash-on-empty", p)
	return r
}

func warningCodesOf(rs []Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Code)
	}
	return out
}

// TestInteropSpeccoderNotes: each speccoder-style note verifies by `verify
// REV` (Objects) and by the merge gate (Branch), evidenced, with the warnings
// it must carry named.
func TestInteropSpeccoderNotes(t *testing.T) {
	r := newInteropRepo(t)
	want := map[string]struct {
		task, kind string
		warnings   []string
	}{
		"speckit":  {"001-greet/T001", ObjectTick, []string{CodePolicySHA256Unverified}},
		"decision": {"001-greet/T002", ObjectDecision, []string{CodeSpecAbsent, CodePolicySHA256Unverified}},
		"kiro":     {"login/1.1", ObjectTick, []string{CodePolicySHA256Unverified}},
		"bug":      {"001-greet/bug:crash-on-empty", ObjectBug, []string{CodePolicySHA256Unverified}},
	}
	v := r.verifier()
	for name, w := range want {
		rep, err := v.Objects([]gitref.Hash{r.ticks[name]}, GateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Conclusion != Success || len(rep.Objects) != 1 {
			t.Errorf("%s: verify REV: conclusion %s, %d objects: %+v", name, rep.Conclusion, len(rep.Objects), rep.Objects)
			continue
		}
		o := rep.Objects[0]
		if o.Outcome != OK || o.Task != w.task || o.Kind != w.kind || !slices.Equal(warningCodesOf(o.Warnings), w.warnings) {
			t.Errorf("%s: %s %s kind %s warnings %v reasons %+v; want ok %s %s %v", name, o.Task, o.Outcome, o.Kind, warningCodesOf(o.Warnings), o.Reasons, w.task, w.kind, w.warnings)
		}
		if len(o.Signers) != 1 || o.Signers[0].Principal != "speccoder@example.invalid" {
			t.Errorf("%s: signers %+v", name, o.Signers)
		}
		if rep.Summary[CodePolicySHA256Unverified] != 1 {
			t.Errorf("%s: summary %v, want 1 %s", name, rep.Summary, CodePolicySHA256Unverified)
		}
	}

	rep := r.branch(r.start, r.head(), GateOptions{})
	byTask := map[string]TickResult{}
	for _, tr := range rep.Ticks {
		byTask[tr.Task] = tr
	}
	for name, w := range want {
		tr, ok := byTask[w.task]
		if !ok || tr.Status != StatusEvidenced || !slices.Equal(warningCodesOf(tr.Warnings), w.warnings) {
			t.Errorf("%s: branch tick %+v; want %s evidenced with warnings %v", name, tr, w.task, w.warnings)
		}
	}
	// The Kiro parent ticked with its last sub-task carries no statement of
	// its own: it is evidenced through its sub-task
	// (docs/format.md#kiro-parent-tasks).
	if tr, ok := byTask["login/1"]; !ok || tr.Status != StatusEvidenced || !slices.Equal(tr.Via, []string{"login/1.1"}) {
		t.Errorf("the Kiro parent's tick: %+v; want evidenced via login/1.1", tr)
	}
	if rep.Summary[CodePolicySHA256Unverified] != 4 {
		t.Errorf("summary %v, want 4 %s", rep.Summary, CodePolicySHA256Unverified)
	}
	var text bytes.Buffer
	if err := writeReport(&text, "text", rep, GateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "warning: "+CodePolicySHA256Unverified) || !strings.Contains(text.String(), "4 "+CodePolicySHA256Unverified) {
		t.Errorf("text report does not name the warnings:\n%s", text.String())
	}
}

// TestInteropTamperedByte: flipping one byte of a speccoder payload fails.
func TestInteropTamperedByte(t *testing.T) {
	r := newInteropRepo(t)
	c := r.ticks["speckit"]
	ls, i := r.tvLine(c)
	var out [][]byte
	for j, l := range ls {
		if j != i {
			out = append(out, l.raw)
			continue
		}
		payload := bytes.Replace(l.env.Payload, []byte("Ada"), []byte("Adb"), 1)
		line := bytes.Replace(l.raw, []byte(base64.StdEncoding.EncodeToString(l.env.Payload)), []byte(base64.StdEncoding.EncodeToString(payload)), 1)
		if bytes.Equal(line, l.raw) {
			t.Fatal("the tamper did not change the line")
		}
		out = append(out, line)
	}
	r.setNoteLines(c, out)
	rs := r.object(c)
	if len(rs) != 1 || rs[0].Outcome != BadSignature {
		t.Fatalf("tampered: %+v, want bad_signature", rs)
	}
	if rep := r.branch(r.start, r.head(), GateOptions{}); rep.Conclusion != Failure {
		t.Errorf("branch conclusion %s, want failure", rep.Conclusion)
	}
}

// TestInteropPolicySHA256Strict: the verifier's policy can require the
// recomputed policy_sha256 of every writer; a pinned value still passes.
func TestInteropPolicySHA256Strict(t *testing.T) {
	r := newInteropRepo(t)
	c := r.ticks["speckit"]
	for _, tc := range []struct {
		policy string
		want   Outcome
	}{
		{"version = 1\n[policy_sha256]\nrequire_recomputed = true\n", Mismatch},
		{"version = 1\n[policy_sha256]\nrequire_recomputed = true\npinned = [\"" + speccoderPolicySHA256 + "\"]\n", OK},
	} {
		p, err := policy.Parse([]byte(tc.policy), "policy.toml")
		if err != nil {
			t.Fatal(err)
		}
		v := r.verifier()
		v.Policy = p
		rs, err := v.Object(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 || rs[0].Outcome != tc.want || len(rs[0].Warnings) != 0 {
			t.Errorf("policy %q: %+v, want %s without warnings", tc.policy, rs, tc.want)
		}
		if tc.want == Mismatch && !slices.Contains(codes(rs[0].Reasons), CodePolicySHA256) {
			t.Errorf("policy %q: reasons %v", tc.policy, codes(rs[0].Reasons))
		}
	}
}

// TestInteropTaskproofPolicySHA256 : a tick taskproof wrote (its VSA names
// the statement) with a wrong policy_sha256 still fails as a mismatch.
func TestInteropTaskproofPolicySHA256(t *testing.T) {
	f := newFixture(t)
	c := f.tick("T001")
	f.attest(c, predicate.RegressionOnly, f.signer)
	if rs := f.object(c); len(rs) != 1 || rs[0].Outcome != OK {
		t.Fatalf("as written: %+v", rs)
	}
	f.resign(c, func(st map[string]any) { pred(st)["policy_sha256"] = speccoderPolicySHA256 }, f.signer)
	rs := f.object(c)
	if len(rs) != 1 || rs[0].Outcome != Mismatch || !slices.Contains(codes(rs[0].Reasons), CodePolicySHA256) || len(rs[0].Warnings) != 0 {
		t.Fatalf("taskproof-written, wrong policy_sha256: %+v, want mismatch policy_sha256", rs)
	}
	if rep := f.branch(f.base, c, GateOptions{}); rep.Conclusion != Failure {
		t.Errorf("branch conclusion %s, want failure", rep.Conclusion)
	}
}

// TestInteropTrailers: a Verdict trailer that disagrees with the statement,
// or a Spec-Task trailer naming a task the note does not attest, is a
// mismatch with reason trailer.
func TestInteropTrailers(t *testing.T) {
	r := newInteropRepo(t)
	for name, msg := range map[string]string{
		"verdict":   "T003\n\nSpec-Task: 001-greet/T003\nVerdict: regression_only\n",
		"spec-task": "T003\n\nSpec-Task: 001-greet/T003\nSpec-Task: 001-greet/T009\n",
	} {
		t.Run(name, func(t *testing.T) {
			r.git("checkout", "-q", "-B", "trailer-"+name, string(r.ticks["bug"]))
			c := r.edit("specs/001-greet/tasks.md", "- [ ] T003", "- [x] T003", msg)
			r.speccoderTick(c, "001-greet/T003", r.predicate(c, "verified", interopSpeckit, "T003", "- [ ] T003 [US1] Print Hello, <name>!", "Print Hello, <name>!",
				map[string]any{"section": "US1", "section_hash": predicate.SectionHash([]byte(interopUS1))}, "2026-05-01T09:34:00Z"))
			rs := r.object(c)
			if len(rs) != 1 || rs[0].Outcome != Mismatch || !slices.Equal(codes(rs[0].Reasons), []string{CodeTrailer}) {
				t.Fatalf("%+v, want mismatch trailer", rs)
			}
			rep := r.branch(r.ticks["bug"], c, GateOptions{})
			if rep.Conclusion != Failure || len(rep.Ticks) != 1 || rep.Ticks[0].Reason != string(Mismatch) {
				t.Errorf("branch: %s %+v", rep.Conclusion, rep.Ticks)
			}
		})
	}
}

// TestInteropProjectRoot: a repository holding two projects (each directory
// with its own speccoder.toml; unit.dir is project-relative, and both
// projects have a unit specs/001-x) verifies both by `verify REV`: the tasks
// file, the cited section and the speccoder.toml of policy_sha256 are read
// under each statement's project root.
func TestInteropProjectRoot(t *testing.T) {
	f := &fixture{t: t, dir: filepath.Join(t.TempDir(), "repo")}
	testenv.Git(t, "", "init", "-q", "-b", "main", f.dir)
	files := map[string]string{}
	for _, proj := range []string{"svc/api", "web"} {
		files[proj+"/speccoder.toml"] = "[tests]\ncommand = \"make test-" + path.Base(proj) + "\"\n"
		files[proj+"/specs/001-x/spec.md"] = strings.Replace(string(mustRead(t, "specs/001-greet/spec.md")), "greet Ada", "greet "+proj, -1)
		files[proj+"/specs/001-x/tasks.md"] = "# Tasks\n\n- [ ] T001 [US1] Build " + proj + "\n"
	}
	f.base = f.commit("plan", files)
	f.key = newSSHKey(t)
	f.signers = filepath.Join(t.TempDir(), "allowed_signers")
	f.setAllowed(`speccoder@example.invalid namespaces="in-toto" ` + f.key.line + "\n")
	r := &interopRepo{fixture: f, start: f.base, ticks: map[string]gitref.Hash{}}
	for _, proj := range []string{"svc/api", "web"} {
		c := r.edit(proj+"/specs/001-x/tasks.md", "- [ ] T001", "- [x] T001", "T001 in "+proj+"\n\nSpec-Task: 001-x/T001\nVerdict: verified\n")
		policySHA, err := predicate.PolicySHA256([]byte(files[proj+"/speccoder.toml"]))
		if err != nil {
			t.Fatal(err)
		}
		section := strings.Replace(interopUS1, "greet Ada", "greet "+proj, -1)
		p := r.predicate(c, "verified", map[string]any{"format": "speckit", "feature": "001-x", "dir": "specs/001-x"}, "T001",
			"- [ ] T001 [US1] Build "+proj, "Build "+proj, map[string]any{"section": "US1", "section_hash": predicate.SectionHash([]byte(section))}, "2026-05-01T09:30:00Z")
		p["policy_sha256"] = policySHA // the project's own speccoder.toml: recomputable
		r.speccoderTick(c, "001-x/T001", p)
		rs := r.object(c)
		if len(rs) != 1 || rs[0].Outcome != OK || len(rs[0].Warnings) != 0 || rs[0].Root != proj {
			t.Errorf("%s: %+v, want ok without warnings under root %s", proj, rs, proj)
		}
	}
}

func mustRead(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "interop", "speccoder", "repo", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInteropWarningsEveryFormat: policy_sha256_unverified is reported by
// every report format, and the gate still concludes success (objects mode
// included).
func TestInteropWarningsEveryFormat(t *testing.T) {
	r := newInteropRepo(t)
	branch := r.branch(r.start, r.ticks["speckit"], GateOptions{})
	objects, err := r.verifier().Objects([]gitref.Hash{r.ticks["speckit"]}, GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range []*Report{branch, objects} {
		if rep.Conclusion != Success {
			t.Fatalf("%s: conclusion %s", rep.Mode, rep.Conclusion)
		}
		for name, write := range map[string]func(*bytes.Buffer) error{
			"json":   func(b *bytes.Buffer) error { return WriteJSON(b, rep) },
			"text":   func(b *bytes.Buffer) error { return writeReport(b, "text", rep, GateOptions{}) },
			"github": func(b *bytes.Buffer) error { return writeReport(b, "github", rep, GateOptions{}) },
			"sarif":  func(b *bytes.Buffer) error { return writeReport(b, "sarif", rep, GateOptions{}) },
			"junit":  func(b *bytes.Buffer) error { return writeReport(b, "junit", rep, GateOptions{}) },
		} {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, CodePolicySHA256Unverified) {
				t.Errorf("%s %s: no %s:\n%s", rep.Mode, name, CodePolicySHA256Unverified, out)
			}
			switch name {
			case "github":
				if !strings.Contains(out, "::warning ") || strings.Contains(out, "::error") {
					t.Errorf("%s github:\n%s", rep.Mode, out)
				}
			case "sarif":
				if !strings.Contains(out, `"level": "warning"`) || strings.Contains(out, `"level": "error"`) {
					t.Errorf("%s sarif:\n%s", rep.Mode, out)
				}
			case "junit":
				if strings.Contains(out, "<failure") {
					t.Errorf("%s junit:\n%s", rep.Mode, out)
				}
			case "json":
				if !strings.Contains(out, `"`+CodePolicySHA256Unverified+`": 1`) {
					t.Errorf("%s json summary:\n%s", rep.Mode, out)
				}
			}
		}
	}
}

// TestInteropCLI: the same notes pass the taskproof binary's `verify REV…`
// and `verify --branch` (exit 0), and its JSON names the warnings.
func TestInteropCLI(t *testing.T) {
	bin := testenv.Binary(t)
	r := newInteropRepo(t)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"verify", "--allowed-signers", r.signers, "--format", "json"}, args...)...)
		cmd.Dir, cmd.Env = r.dir, testenv.GitEnv()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("taskproof verify %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	var revs []string
	for _, c := range r.ticks {
		revs = append(revs, string(c))
	}
	// The branch ranges leave out the Kiro commit: its parent task has no
	// statement of its own, and whether it is evidenced through its sub-task
	// is the gate's parent rule (TestInteropSpeccoderNotes checks the
	// sub-task there).
	for _, tc := range []struct {
		out                string
		unverified, absent int
	}{
		{run(revs...), 4, 1},
		{run("--branch", "--base", string(r.start), string(r.ticks["decision"])), 2, 1},
		{run("--branch", "--base", string(r.ticks["kiro"]), string(r.ticks["bug"])), 1, 0},
	} {
		var rep struct {
			Conclusion string         `json:"conclusion"`
			Summary    map[string]int `json:"summary"`
		}
		if err := json.Unmarshal([]byte(tc.out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Conclusion != string(Success) || rep.Summary[CodePolicySHA256Unverified] != tc.unverified || rep.Summary[CodeSpecAbsent] != tc.absent {
			t.Errorf("conclusion %s, summary %v; want success, %d %s, %d %s", rep.Conclusion, rep.Summary, tc.unverified, CodePolicySHA256Unverified, tc.absent, CodeSpecAbsent)
		}
	}
}

// TestInteropTrailerOnlyBug: speccoder's trailer_only task, a bug named only
// by a Spec-Task trailer (<unit>/bug:<slug>), is reported as a tick of kind
// bug: not_evaluated (not failing) when no statement binds it, judged on its
// statement when one does; and a bug statement is never credited to a
// tasks-file line the same commit ticks (docs/format.md#bug-tasks).
func TestInteropTrailerOnlyBug(t *testing.T) {
	r := newInteropRepo(t)
	start := r.ticks["bug"]

	// A bug fix named by a trailer, no note: reported, not evaluated.
	r.git("checkout", "-q", "-B", "bug-unattested", string(start))
	c := r.commit("fix: a crash\n\nSpec-Task: 001-greet/bug:another-crash\n", map[string]string{"greet.go": "package greet // fixed\n"})
	rep := r.branch(start, c, GateOptions{})
	if len(rep.Ticks) != 1 || rep.Ticks[0].Kind != KindBug || rep.Ticks[0].Status != StatusNotEvaluated || rep.Ticks[0].Failing || rep.Conclusion != Neutral {
		t.Fatalf("unattested bug: %s %+v, want one bug tick not_evaluated, neutral", rep.Conclusion, rep.Ticks)
	}

	// Its statement binds the trailer's claim: judged, evidenced.
	r.speccoderTick(c, "001-greet/bug:another-crash", r.predicate(c, "verified", interopSpeckit, "bug:another-crash", "bug:another-crash", "a crash", nil, "2026-05-01T09:35:00Z"))
	rep = r.branch(start, c, GateOptions{})
	if len(rep.Ticks) != 1 || rep.Ticks[0].Kind != KindBug || rep.Ticks[0].Status != StatusEvidenced || rep.Conclusion != Success {
		t.Fatalf("attested bug: %s %+v, want evidenced", rep.Conclusion, rep.Ticks)
	}

	// A commit that also ticks a tasks-file line: the bug's statement does
	// not evidence the line's tick.
	r.git("checkout", "-q", "-B", "bug-and-tick", string(start))
	c = r.edit("specs/001-greet/tasks.md", "- [ ] T003", "- [x] T003", "fix and tick\n\nSpec-Task: 001-greet/bug:third-crash\n")
	r.speccoderTick(c, "001-greet/bug:third-crash", r.predicate(c, "verified", interopSpeckit, "bug:third-crash", "bug:third-crash", "a third crash", nil, "2026-05-01T09:36:00Z"))
	rep = r.branch(start, c, GateOptions{})
	var got []string
	for _, tk := range rep.Ticks {
		got = append(got, tk.Kind+":"+tk.TaskID+":"+tk.Status+"/"+tk.Reason)
	}
	slices.Sort(got)
	if want := []string{":T003:unverifiable/ticked_without_evidence", "bug:bug:third-crash:evidenced/"}; !slices.Equal(got, want) || rep.Conclusion != Failure {
		t.Errorf("tick and bug: %s %v, want %v", rep.Conclusion, got, want)
	}
}
