package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
)

// resignTV replaces the note of commit in r by its task-verification statement
// alone, rewritten by mutate and signed again with r's trusted key (taskproof's
// own signing code), written with the real `git notes`. The note then holds
// one line; a missing VSA is a warning only, so only the mutation decides.
func (r *vfRepo) resignTV(t *testing.T, commit string, mutate func(pred map[string]any)) {
	t.Helper()
	note := r.git(t, "notes", "--ref=refs/notes/speccoder", "show", commit)
	var line []byte
	for _, l := range noteline.Split([]byte(note)) {
		st, payload, ok := statement.FromLine(l)
		if !ok || st.PredicateType != predicate.PredicateType {
			continue
		}
		v, err := strictjson.Decode(payload, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := v.(map[string]any)
		mutate(m["predicate"].(map[string]any))
		b, err := strictjson.Canonical(m)
		if err != nil {
			t.Fatal(err)
		}
		s, err := signer.Load(signer.KindSSH, r.key, nil)
		if err != nil {
			t.Fatal(err)
		}
		env, err := signer.Sign(t.Context(), b, s)
		if err != nil {
			t.Fatal(err)
		}
		if line, err = env.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
	}
	if line == nil {
		t.Fatalf("no task-verification statement on %s:\n%s", commit, note)
	}
	file := filepath.Join(t.TempDir(), "note")
	if err := os.WriteFile(file, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	r.git(t, "notes", "--ref=refs/notes/speccoder", "add", "-f", "-F", file, commit)
}

// TestVerifyVerdictValues: a trusted signer's statement whose verdict is not one
// of the four (docs/format.md#verdicts) fails the gate as malformed, reason
// verdict; the same statement re-signed with its own verdict passes.
func TestVerifyVerdictValues(t *testing.T) {
	r := newVFRepo(t)
	rng := r.base + ".." + r.t2 // T002 only: signed with the trusted key
	args := []string{"verify", rng, "--allowed-signers", r.allowed, "--format", "json"}

	// The honest counterpart first: the re-signing itself changes nothing.
	r.resignTV(t, r.t2, func(p map[string]any) {})
	out, _ := r.run(t, 0, args...)
	if got := vfParse(t, out).ticks(); strings.Join(got, ",") != "T002 evidenced/" {
		t.Fatalf("honest re-signed statement: ticks %v", got)
	}
	for _, verdict := range []string{"failed", "passed", "VERIFIED", "", "Regression_Only", "verified "} {
		t.Run(verdict, func(t *testing.T) {
			r.resignTV(t, r.t2, func(p map[string]any) { p["verdict"] = verdict })
			out, _ := r.run(t, 1, args...)
			rep := vfParse(t, out)
			if got := rep.ticks(); strings.Join(got, ",") != "T002 unverifiable/malformed" {
				t.Fatalf("ticks %v", got)
			}
			var codes []string
			for _, x := range rep.Ticks[0].Reasons {
				codes = append(codes, x.Code)
			}
			if !strings.Contains(","+strings.Join(codes, ",")+",", ",verdict,") {
				t.Errorf("reasons %v do not name verdict", codes)
			}
			text, _ := r.run(t, 1, "verify", rng, "--allowed-signers", r.allowed)
			if !strings.Contains(text, "verdict predicate.verdict") {
				t.Errorf("text report does not name the verdict:\n%s", text)
			}
		})
	}
	r.resignTV(t, r.t2, func(p map[string]any) { p["verdict"] = "regression_only" })
	r.run(t, 0, args...)
}

// TestVerifyNegatedPrincipals: an allowed signers entry whose principals
// patterns accept no principal (`!*`) trusts nobody
// (docs/format.md#principal-patterns); the gate fails untrusted_signer. The
// same key under a principal, or under `!b,*`, passes.
func TestVerifyNegatedPrincipals(t *testing.T) {
	r := newVFRepo(t)
	pub, err := os.ReadFile(r.key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	rng := r.base + ".." + r.t2
	for _, c := range []struct {
		principals string
		exit       int
		want       string
	}{
		{"!*", 1, "T002 unverifiable/untrusted_signer"},
		{"!*,dev@example.invalid", 1, "T002 unverifiable/untrusted_signer"},
		{"!dev*,dev@example.invalid", 1, "T002 unverifiable/untrusted_signer"},
		{"dev@example.invalid", 0, "T002 evidenced/"},
		{"!b,*", 0, "T002 evidenced/"},
	} {
		as := filepath.Join(t.TempDir(), "allowed_signers")
		vfWrite(t, as, c.principals+` namespaces="in-toto" `+string(pub))
		out, _ := r.run(t, c.exit, "verify", rng, "--allowed-signers", as, "--format", "json")
		if got := strings.Join(vfParse(t, out).ticks(), ","); got != c.want {
			t.Errorf("principals %q: ticks %s, want %s", c.principals, got, c.want)
		}
	}
}

// TestVerifyControlCharacters: a feature directory whose name holds CR and ESC
// (`001-x\r\e[32m✓ … evidenced`, made with the real git) cannot repaint the
// failing line of the text report, nor reach the GitHub workflow commands: both
// show the characters escaped (docs/format.md#control-characters-in-reports).
// JSON keeps the name as it is. Once the tick is attested, the gate passes.
func TestVerifyControlCharacters(t *testing.T) {
	r := newVFRepo(t)
	name := "001-x\r\x1b[32m✓ evidenced\x1b[0m\u202e"
	tasks := "specs/" + name + "/tasks.md"
	vfWrite(t, filepath.Join(r.dir, tasks), "# Tasks\n\n- [ ] T001 Do \x1b]0;owned\x07it\n")
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "-m", "evil unit")
	base := r.git(t, "rev-parse", "HEAD")
	vfWrite(t, filepath.Join(r.dir, tasks), "# Tasks\n\n- [x] T001 Do \x1b]0;owned\x07it\n")
	r.git(t, "commit", "-q", "-am", "tick")
	rng := base + "..HEAD"
	args := []string{"verify", rng, "--allowed-signers", r.allowed}

	clean := func(t *testing.T, what, out string) {
		t.Helper()
		if strings.ContainsAny(out, "\x1b\r\x07\u202e") {
			t.Errorf("%s holds a raw control character: %q", what, out)
		}
	}
	escName := `001-x\r\x1b[32m✓ evidenced\x1b[0m\u202e`
	text, stderr := r.run(t, 1, args...)
	clean(t, "text report", text)
	clean(t, "stderr", stderr)
	if !strings.Contains(text, "specs/"+escName+"/tasks.md:3") || !strings.Contains(text, "✗") {
		t.Errorf("text report does not show the escaped path:\n%s", text)
	}
	gh, _ := r.run(t, 1, append(args, "--format", "github")...)
	clean(t, "github report", gh)
	if !strings.Contains(gh, "::error file=specs/"+escName+"/tasks.md,line=3") {
		t.Errorf("github report:\n%s", gh)
	}
	js, _ := r.run(t, 1, append(args, "--format", "json")...)
	if !strings.Contains(js, `\u001b[32m`) {
		t.Errorf("JSON report does not keep the name:\n%s", js)
	}
	// The CLI's own error messages escape what they quote.
	_, stderr = r.run(t, 4, "verify", "no\x1b[2Jsuch-rev", "--allowed-signers", r.allowed)
	clean(t, "stderr", stderr)
	if !strings.Contains(stderr, `no\x1b[2Jsuch-rev`) {
		t.Errorf("stderr: %q", stderr)
	}

	// The honest counterpart: the tick attested, the gate passes.
	r.run(t, 0, "attest", "tick", "--signer", "ssh", "--key", r.key, "--verdict", "regression_only", "--regression-reason", "planning_work")
	text, stderr = r.run(t, 0, args...)
	clean(t, "text report", text+stderr)
	if !strings.Contains(text, "specs/"+escName+"/tasks.md:3") || !strings.Contains(text, "evidenced") {
		t.Errorf("text report:\n%s", text)
	}
	gh, _ = r.run(t, 0, append(args, "--format", "github")...)
	clean(t, "github report", gh)
}

const kiroTasks = `# Implementation Plan

- [ ] 1. Set up the greeting command
  - [ ] 1.1 Write the acceptance test for greet Ada
    - _Requirements: 1.1_
  - [ ] 1.2 Print Hello, name
    - _Requirements: 1.1_
- [ ] 2. Default the name to world
  - _Requirements: 1.2_
`

const kiroRequirements = `# Requirements Document

## Requirements

### Requirement 1

**User Story:** As a user, I want a greeting.

#### Acceptance Criteria

1. WHEN the user runs greet Ada THEN the CLI SHALL print Hello, Ada!
`

// newKiroRepo is a Kiro spec built with the real git: main holds the open
// tasks; branch feature ticks sub-task 1.1 (attested), then, in one commit,
// sub-task 1.2 and its parent 1, as Kiro does.
func newKiroRepo(t *testing.T) (r *vfRepo, t11, last string) {
	t.Helper()
	r = newVFRepo(t)
	tasks := filepath.Join(r.dir, ".kiro/specs/greet/tasks.md")
	vfWrite(t, tasks, kiroTasks)
	vfWrite(t, filepath.Join(r.dir, ".kiro/specs/greet/requirements.md"), kiroRequirements)
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "-m", "kiro spec")
	r.base = r.git(t, "rev-parse", "HEAD")
	tick := func(ids ...string) string {
		b, err := os.ReadFile(tasks)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, id := range ids {
			s = strings.Replace(s, "- [ ] "+id+" ", "- [x] "+id+" ", 1)
		}
		vfWrite(t, tasks, s)
		r.git(t, "commit", "-q", "-am", "tick "+strings.Join(ids, " "))
		return r.git(t, "rev-parse", "HEAD")
	}
	t11 = tick("1.1")
	r.run(t, 0, "attest", "tick", "--signer", "ssh", "--key", r.key, "--verdict", "regression_only", "--regression-reason", "planning_work")
	last = tick("1.2", "1.")
	return r, t11, last
}

// kiroTicks renders the Kiro ticks of a JSON report as "ID status/reason via".
func kiroTicks(t *testing.T, out string) string {
	t.Helper()
	var rep struct {
		Ticks []struct {
			TaskID string   `json:"task_id"`
			Status string   `json:"status"`
			Reason string   `json:"reason"`
			Via    []string `json:"via"`
			Unit   struct {
				Format string `json:"format"`
			} `json:"unit"`
		} `json:"ticks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var parts []string
	for _, tk := range rep.Ticks {
		if tk.Unit.Format == "kiro" {
			parts = append(parts, tk.TaskID+" "+tk.Status+"/"+tk.Reason+" "+strings.Join(tk.Via, "+"))
		}
	}
	return strings.Join(parts, ", ")
}

// TestVerifyKiroParentTasks: a Kiro parent task is evidenced through its
// sub-tasks when every one is ticked at the parent's tick and at head, and
// evidenced in the range (docs/format.md#kiro-parent-tasks), also when the
// parent is ticked in a commit of its own; a sub-task without evidence leaves
// the parent failing.
func TestVerifyKiroParentTasks(t *testing.T) {
	t.Run("last sub-task attested", func(t *testing.T) {
		r, _, _ := newKiroRepo(t)
		r.run(t, 0, "attest", "tick", "--signer", "ssh", "--key", r.key, "--task", "1.2", "--verdict", "regression_only", "--regression-reason", "planning_work")
		args := []string{"verify", "--branch", "--base", r.base, "--allowed-signers", r.allowed}
		out, _ := r.run(t, 0, append(args, "--format", "json")...)
		if got, want := kiroTicks(t, out), "1.1 evidenced/ , 1 evidenced/ greet/1.1+greet/1.2, 1.2 evidenced/ "; got != want {
			t.Errorf("ticks %s, want %s", got, want)
		}
		text, _ := r.run(t, 0, args...)
		if !strings.Contains(text, "greet/1 evidenced via=greet/1.1,greet/1.2") {
			t.Errorf("text report:\n%s", text)
		}
	})
	t.Run("last sub-task not attested", func(t *testing.T) {
		r, _, _ := newKiroRepo(t)
		out, _ := r.run(t, 1, "verify", "--branch", "--base", r.base, "--allowed-signers", r.allowed, "--format", "json")
		if got, want := kiroTicks(t, out), "1.1 evidenced/ , 1 unverifiable/ticked_without_evidence , 1.2 unverifiable/ticked_without_evidence "; got != want {
			t.Errorf("ticks %s, want %s", got, want)
		}
	})
	t.Run("earlier sub-task not attested", func(t *testing.T) {
		r, t11, _ := newKiroRepo(t)
		r.git(t, "notes", "--ref=refs/notes/speccoder", "remove", t11)
		r.run(t, 0, "attest", "tick", "--signer", "ssh", "--key", r.key, "--task", "1.2", "--verdict", "regression_only", "--regression-reason", "planning_work")
		out, _ := r.run(t, 1, "verify", "--branch", "--base", r.base, "--allowed-signers", r.allowed, "--format", "json")
		if got, want := kiroTicks(t, out), "1.1 unverifiable/ticked_without_evidence , 1 unverifiable/ticked_without_evidence , 1.2 evidenced/ "; got != want {
			t.Errorf("ticks %s, want %s", got, want)
		}
	})
	t.Run("sub-task unticked later", func(t *testing.T) {
		// Head shows the parent done over an open sub-task: the credit
		// 1.1's evidence gave is withdrawn.
		r, _, _ := newKiroRepo(t)
		r.run(t, 0, "attest", "tick", "--signer", "ssh", "--key", r.key, "--task", "1.2", "--verdict", "regression_only", "--regression-reason", "planning_work")
		tasks := filepath.Join(r.dir, ".kiro/specs/greet/tasks.md")
		b, err := os.ReadFile(tasks)
		if err != nil {
			t.Fatal(err)
		}
		vfWrite(t, tasks, strings.Replace(string(b), "- [x] 1.1 ", "- [ ] 1.1 ", 1))
		r.git(t, "commit", "-q", "-am", "reopen 1.1")
		out, _ := r.run(t, 1, "verify", "--branch", "--base", r.base, "--allowed-signers", r.allowed, "--format", "json")
		if got, want := kiroTicks(t, out), "1.1 evidenced/ , 1 unverifiable/ticked_without_evidence , 1.2 evidenced/ "; got != want {
			t.Errorf("ticks %s, want %s", got, want)
		}
	})
	t.Run("parent ticked on its own", func(t *testing.T) {
		r := newVFRepo(t)
		tasks := filepath.Join(r.dir, ".kiro/specs/greet/tasks.md")
		vfWrite(t, tasks, kiroTasks)
		vfWrite(t, filepath.Join(r.dir, ".kiro/specs/greet/requirements.md"), kiroRequirements)
		r.git(t, "add", "-A")
		r.git(t, "commit", "-q", "-m", "kiro spec")
		base := r.git(t, "rev-parse", "HEAD")
		s := strings.Replace(strings.Replace(kiroTasks, "- [ ] 1.1 ", "- [x] 1.1 ", 1), "- [ ] 1.2 ", "- [x] 1.2 ", 1)
		vfWrite(t, tasks, s)
		r.git(t, "commit", "-q", "-am", "sub-tasks")
		r.run(t, 0, "attest", "tick", "--signer", "ssh", "--key", r.key, "--verdict", "regression_only", "--regression-reason", "planning_work")
		vfWrite(t, tasks, strings.Replace(s, "- [ ] 1. ", "- [x] 1. ", 1))
		r.git(t, "commit", "-q", "-am", "parent")
		// Its sub-tasks are all ticked at its tick and at head, and
		// evidenced in the range: the parent is credited, whichever commit
		// ticked it (docs/format.md#the-gates-model: Evidence).
		out, _ := r.run(t, 0, "verify", "--branch", "--base", base, "--allowed-signers", r.allowed, "--format", "json")
		if got, want := kiroTicks(t, out), "1.1 evidenced/ , 1.2 evidenced/ , 1 evidenced/ greet/1.1+greet/1.2"; got != want {
			t.Errorf("ticks %s, want %s", got, want)
		}
	})
}

// TestVerifyHints: every failing tick says how to fix it — a "fix:" line in
// the text report, in the GitHub annotation and a JSON hint — and following
// the hint's command fixes it (docs/gate.md "When the gate fails").
func TestVerifyHints(t *testing.T) {
	r := newVFRepo(t)
	t4 := r.tick(t, "T004") // not attested
	args := []string{"verify", "--branch", "--base", r.base, "--allowed-signers", r.allowed}

	out, _ := r.run(t, 1, append(args, "--format", "json")...)
	var rep struct {
		Ticks []struct {
			TaskID  string `json:"task_id"`
			Failing bool   `json:"failing"`
			Hint    string `json:"hint"`
		} `json:"ticks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	hints := map[string]string{}
	for _, tk := range rep.Ticks {
		if tk.Failing != (tk.Hint != "") {
			t.Errorf("%s: failing %v, hint %q", tk.TaskID, tk.Failing, tk.Hint)
		}
		hints[tk.TaskID] = tk.Hint
	}
	signCmd := "taskproof attest sign --signer ssh --key KEY " + r.t3[:12]
	if !strings.Contains(hints["T003"], signCmd) {
		t.Errorf("T003 (unsigned) hint %q does not hold %q", hints["T003"], signCmd)
	}
	tickCmd := "taskproof attest tick --commit " + t4[:12] + " --task T004 --verdict"
	if !strings.Contains(hints["T004"], tickCmd) {
		t.Errorf("T004 (ticked_without_evidence) hint %q does not hold %q", hints["T004"], tickCmd)
	}
	text, _ := r.run(t, 1, args...)
	gh, _ := r.run(t, 1, append(args, "--format", "github")...)
	for _, want := range []string{signCmd, tickCmd} {
		if !strings.Contains(text, "    fix: ") || !strings.Contains(text, want) {
			t.Errorf("text report lacks fix %q:\n%s", want, text)
		}
		if !strings.Contains(gh, "%0Afix: ") || !strings.Contains(gh, want) {
			t.Errorf("github report lacks fix %q:\n%s", want, gh)
		}
	}

	// The hints' commands, as written (KEY and the verdict filled in).
	r.run(t, 0, "attest", "sign", "--signer", "ssh", "--key", r.key, r.t3[:12])
	r.run(t, 0, "attest", "tick", "--commit", t4[:12], "--task", "T004", "--verdict", "regression_only", "--regression-reason", "planning_work", "--signer", "ssh", "--key", r.key)
	text, _ = r.run(t, 0, args...)
	if strings.Contains(text, "fix:") {
		t.Errorf("a passing report holds a hint:\n%s", text)
	}
}
