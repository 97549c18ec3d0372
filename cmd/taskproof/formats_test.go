package main

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// The formats' own readings and the layouts of BMAD, Agent OS,
// spec-workflow-mcp and cc-sdd, with the real git and the real binary
// (docs/format.md#the-formats-own-readings, docs/format.md#units-and-task-lines):
// a tick any reader the team trusts sees fails the gate without evidence and
// passes attested.

const openspecTasks = "## 1. Setup\n\n- [ ] 1.1 Padded\n- [ ] 1.2 Fenced\n- [ ] 1.3 Commented\n- [ ] 1.4 Plus\n- [ ] 1.5 Parenthesis\n- [ ] 1.6 Glued\n"

// TestGateOpenSpecOwnReading: ticks OpenSpec's own task counter reads as done
// and GitHub shows no checkbox for — padded, moved into a fence or a comment,
// glued to the marker — and ticks under "+" and "1)" markers fail the gate
// unevidenced and pass when attested.
func TestGateOpenSpecOwnReading(t *testing.T) {
	const path = "openspec/changes/add-x/tasks.md"
	for _, tt := range []struct{ name, id, from, to string }{
		{"padded", "1.1", "- [ ] 1.1 Padded\n", "- [ x] 1.1 Padded\n"},
		{"fenced", "1.2", "- [ ] 1.2 Fenced\n", "```\n- [x] 1.2 Fenced\n```\n"},
		{"commented", "1.3", "- [ ] 1.3 Commented\n", "<!--\n- [x] 1.3 Commented\n-->\n"},
		{"commented on one line", "1.3", "- [ ] 1.3 Commented\n", "<!-- - [x] 1.3 Commented -->\n"},
		{"plus", "1.4", "- [ ] 1.4 Plus\n", "+ [x] 1.4 Plus\n"},
		{"parenthesis", "1.5", "- [ ] 1.5 Parenthesis\n", "1) [x] 1.5 Parenthesis\n"},
		{"glued", "1.6", "- [ ] 1.6 Glued\n", "-[x] 1.6 Glued\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{path: openspecTasks})
			c := r.commit(t, tt.id+" done", map[string]string{path: strings.Replace(openspecTasks, tt.from, tt.to, 1)})
			out, _ := r.run(t, 0, "ticks", "main..HEAD", "--format", "json")
			if !strings.Contains(out, `"task_id": "`+tt.id+`"`) || !strings.Contains(out, `"reading": "`) {
				t.Fatalf("ticks does not list %s:\n%s", tt.id, out)
			}
			rep := r.gate(t, 1)
			checkRows(t, rep, "failure", path+":"+tt.id+" unverifiable/ticked_without_evidence")
			r.attest(t, c)
			rep = r.gate(t, 0)
			checkRows(t, rep, "success", path+":"+tt.id+" evidenced/")
		})
	}
}

// TestGateNewLayouts: a BMAD story tick, an Agent OS tick, a
// spec-workflow-mcp "[-]"→"[x]" tick and a cc-sdd tick fail the gate
// unevidenced and pass when attested; the statements name the unit in the
// format's own string (taskproof's extension of the predicate).
func TestGateNewLayouts(t *testing.T) {
	for _, tt := range []struct {
		name, path, plan, done, id, format string
		more                               map[string]string
	}{
		{"bmad story", "docs/sprint-artifacts/1-1-init.md",
			"# Story 1.1: Init\n\nStatus: in-progress\n\n## Acceptance Criteria\n\n1. A repo\n\n## Tasks / Subtasks\n\n- [ ] **Task 1: Init** (AC: 1)\n  - [ ] Create the repo\n",
			"# Story 1.1: Init\n\nStatus: in-progress\n\n## Acceptance Criteria\n\n1. A repo\n\n## Tasks / Subtasks\n\n- [ ] **Task 1: Init** (AC: 1)\n  - [x] Create the repo\n",
			"1.h-", "bmad", nil},
		{"bmad v6 story", "_bmad-output/implementation-artifacts/2-3-user-login.md",
			"# Story 2.3: User login\n\n## Tasks / Subtasks\n\n- [ ] Task 1: Form (AC: #1)\n  - [ ] Subtask 1.1: Fields\n",
			"# Story 2.3: User login\n\n## Tasks / Subtasks\n\n- [ ] Task 1: Form (AC: #1)\n  - [x] Subtask 1.1: Fields\n",
			"1.1", "bmad", nil},
		{"bmad v4 story", "docs/stories/1.2.login.md",
			"## Tasks / Subtasks\n\n- [ ] Task 1 (AC: 1)\n  - [ ] Subtask 1.1 Form\n",
			"## Tasks / Subtasks\n\n- [ ] Task 1 (AC: 1)\n  - [x] Subtask 1.1 Form\n",
			"1.1", "bmad", nil},
		{"agent os", ".agent-os/specs/2025-09-06-client/tasks.md",
			"# Spec Tasks\n\n- [ ] 1. Implement the client\n  - [ ] 1.1 Write tests for the client\n",
			"# Spec Tasks\n\n- [ ] 1. Implement the client\n  - [x] 1.1 Write tests for the client\n",
			"1.1", "agent-os", nil},
		{"agent os v2", "agent-os/specs/2025-09-06-client/tasks.md",
			"- [ ] 1.0 Complete the API layer\n",
			"- [x] 1.0 Complete the API layer\n",
			"1.0", "agent-os", nil},
		{"spec-workflow in progress to done", ".spec-workflow/specs/ui/tasks.md",
			"# Tasks\n\n- [-] 1. Register definitions\n  - _Requirements: 1.1_\n",
			"# Tasks\n\n- [x] 1. Register definitions\n  - _Requirements: 1.1_\n",
			"1", "spec-workflow", map[string]string{".spec-workflow/specs/ui/requirements.md": "# Requirements\n\n### Requirement 1\nRegister.\n"}},
		{"cc-sdd", ".kiro/specs/evm/tasks.md",
			"# Implementation Plan\n\n- [ ] 1. Core\n- [ ] 1.1 (P) Compute EVM\n  - _Requirements: 1.1_\n  - _Boundary: EvmCalculator_\n",
			"# Implementation Plan\n\n- [ ] 1. Core\n- [x] 1.1 (P) Compute EVM\n  - _Requirements: 1.1_\n  - _Boundary: EvmCalculator_\n",
			"1.1", "cc-sdd", map[string]string{".kiro/specs/evm/spec.json": `{"feature_name":"evm","language":"ja","phase":"tasks-generated"}` + "\n",
				".kiro/specs/evm/requirements.md": "# 要件定義書\n\n### 要件 1: 計算\nEVM を計算する\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{tt.path: tt.plan}
			for p, c := range tt.more {
				files[p] = c
			}
			r := newGateRepo(t, files)
			c := r.commit(t, "done", map[string]string{tt.path: tt.done})
			rep := r.gate(t, 1)
			if len(rep.Ticks) != 1 || rep.Ticks[0].Path != tt.path || !strings.HasPrefix(rep.Ticks[0].TaskID, tt.id) || rep.Ticks[0].Reason != "ticked_without_evidence" {
				t.Fatalf("gate: %s (%s), want %s's %s ticked without evidence", rep.rows(), rep.Conclusion, tt.path, tt.id)
			}
			r.attest(t, c)
			rep = r.gate(t, 0)
			if len(rep.Ticks) != 1 || rep.Ticks[0].Status != "evidenced" || rep.Conclusion != "success" {
				t.Fatalf("gate after attest: %s (%s)", rep.rows(), rep.Conclusion)
			}
			if got := statementFormats(t, r, c); got != tt.format {
				t.Errorf("unit.format %q, want %q", got, tt.format)
			}
		})
	}
}

// TestSpeckitBracketedID: spec-kit's "- [ ] [T001] …" is task T001: ticked,
// it is attested under the subject "<feature>/T001".
func TestSpeckitBracketedID(t *testing.T) {
	const path = "specs/001-x/tasks.md"
	plan := "# Tasks\n\n- [ ] [T001] [P1] [SETUP] Create the skeleton\n- [ ] [T002] [deps:T001] Write the test\n"
	r := newGateRepo(t, map[string]string{path: plan})
	c := r.commit(t, "T001 done", map[string]string{path: strings.Replace(plan, "- [ ] [T001]", "- [x] [T001]", 1)})
	out, _ := r.run(t, 0, "ticks", "main..HEAD", "--format", "json")
	if !strings.Contains(out, `"task_id": "T001"`) {
		t.Fatalf("ticks:\n%s", out)
	}
	r.gate(t, 1)
	r.attest(t, c)
	rep := r.gate(t, 0)
	checkRows(t, rep, "success", path+":T001 evidenced/")
	if note := r.git(t, "notes", "--ref", "refs/notes/speccoder", "show", c); !strings.Contains(decodedPayloads(t, note), `"name":"001-x/T001"`) {
		t.Errorf("no statement about 001-x/T001 in the note:\n%s", decodedPayloads(t, note))
	}
}

// TestTicksExplain: `ticks --explain` names each tasks file's layout and the
// readings that recognised it.
func TestTicksExplain(t *testing.T) {
	const path = "openspec/changes/add-x/tasks.md"
	r := newGateRepo(t, map[string]string{path: openspecTasks})
	r.commit(t, "1.1 done", map[string]string{path: strings.Replace(openspecTasks, "- [ ] 1.1", "- [ x] 1.1", 1)})
	out, _ := r.run(t, 0, "ticks", "main..HEAD", "--explain")
	for _, want := range []string{"openspec/changes/*/tasks.md (built-in)", "OpenSpec 1.13 task counter", "the format's own tool reads this box"} {
		if !strings.Contains(out, want) {
			t.Errorf("ticks --explain lacks %q:\n%s", want, out)
		}
	}
	out, _ = r.run(t, 0, "ticks", "main..HEAD", "--explain", "--format", "json")
	var doc struct {
		Files []struct {
			Path, Layout string
			Builtin      bool
			Readings     []string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Files) != 1 || doc.Files[0].Layout != "openspec/changes/*/tasks.md" || !doc.Files[0].Builtin || len(doc.Files[0].Readings) != 2 {
		t.Errorf("ticks --explain --format json: %+v, %v\n%s", doc, err, out)
	}
}

// decodedPayloads is the note's envelopes' payloads, decoded, one a line.
func decodedPayloads(t *testing.T, note string) string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(note, "\n") {
		var env struct{ Payload string }
		if json.Unmarshal([]byte(line), &env) != nil {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(env.Payload)
		if err != nil {
			t.Fatalf("payload: %v", err)
		}
		out = append(out, string(b))
	}
	return strings.Join(out, "\n")
}

// statementFormats is the unit.format of the task-verification statements
// on c's note (one string when they agree).
func statementFormats(t *testing.T, r *gateRepo, c string) string {
	t.Helper()
	formats := map[string]bool{}
	for _, p := range strings.Split(decodedPayloads(t, r.git(t, "notes", "--ref", "refs/notes/speccoder", "show", c)), "\n") {
		var st struct {
			PredicateType string `json:"predicateType"`
			Predicate     struct {
				Unit struct{ Format string }
			}
		}
		if json.Unmarshal([]byte(p), &st) == nil && strings.Contains(st.PredicateType, "task-verification") {
			formats[st.Predicate.Unit.Format] = true
		}
	}
	var out []string
	for f := range formats {
		out = append(out, f)
	}
	return strings.Join(out, ",")
}

// TestSpeckitChecklistsAreNoTasks: spec-kit's checklists/*.md hold reviewers'
// sign-offs, not tasks: ticking CHK001 is no tick (ticks lists nothing, the
// gate has nothing to judge), while a tick of the feature's tasks.md in the
// same commit is still judged.
func TestSpeckitChecklistsAreNoTasks(t *testing.T) {
	const checklist = "specs/001-x/checklists/requirements.md"
	plan := "# Specification Quality Checklist\n\n- [ ] CHK001 No implementation details\n- [ ] CHK002 Requirements are testable\n"
	r := newGateRepo(t, map[string]string{checklist: plan, "specs/001-x/tasks.md": gateTasks})
	r.commit(t, "review", map[string]string{checklist: strings.ReplaceAll(plan, "- [ ]", "- [x]")})
	if out, _ := r.run(t, 0, "ticks", "main..HEAD"); strings.TrimSpace(out) != "" {
		t.Errorf("ticks lists a checklist's sign-offs:\n%s", out)
	}
	if rep := r.gate(t, 0); len(rep.Ticks) != 0 || rep.Conclusion == "failure" {
		t.Errorf("gate over a checklist's sign-offs: %s (%s)", rep.rows(), rep.Conclusion)
	}
	r.tick(t, []string{"specs/001-x/tasks.md"}, "T001")
	checkRows(t, r.gate(t, 1), "failure", "specs/001-x/tasks.md:T001 unverifiable/ticked_without_evidence")
}
