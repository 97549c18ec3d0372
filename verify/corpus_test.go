package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
)

// TestCorpora attests every tick of seven real projects' histories (the shared
// corpora, one clone each: spec-kit, OpenSpec, Kiro, Agent OS, BMAD, cc-sdd,
// spec-workflow-mcp) in process with a trusted ed25519 key, and runs the
// merge gate over the whole history (base "": the root commit has no ticks):
//   - every attested tick is evidenced, and nothing fails but the corpus's
//     own edits of ticked lines (corpusEdits), which no statement evidences;
//   - flipping one byte of one payload makes exactly that tick bad_signature;
//   - ticking one more task by hand makes exactly that tick
//     ticked_without_evidence.
//
// docs/format.md#statements has a tick write a task-verification statement and
// a VSA (two note lines for a regression_only tick without test phases), and
// docs/format.md#limits caps a note at 64 lines: a commit ticking more than 32
// tasks cannot hold all its evidence. Two corpora have such commits (55 ticks
// in one commit); the test pins what happens there — attest.Tick refuses with
// notemerge.ErrNoteLimit and writes nothing, and the gate reports those ticks
// ticked_without_evidence — and reports it with t.Log. If the limit or the
// per-tick lines change, the expectations follow from the same arithmetic. A
// task ID written on two lines of one tasks file (5.3 under two headings of one
// OpenSpec change, both ticked in 400b361f) is ticked line by line: each line
// is attested (its own line_hash, title and section) and evidenced by the
// statement binding it (docs/format.md#choices-where-the-brief-leaves-room, "A
// tick is a line, also when its task ID repeats").
//
// A tick that also rewrites the task's text (agent-validator 05e24301: 4.2 and
// 5.1) is evidenced: attest binds the line as ticked, which is what the object
// check recomputes. Tasks added already ticked to an existing tasks file
// (tick.Tick.Born: 18 in agent-validator) are ticks, attested and evidenced;
// the ticked tasks of tasks files new in their commit are listed in
// Report.BornTicked (bornTicked below), not judged. So in agent-validator every
// tick is evidenced, the two 5.3 ticks included.
func TestCorpora(t *testing.T) {
	for _, tc := range []struct {
		name string
		// bornTicked is len(Report.BornTicked) over the whole history: the
		// born_ticked records of `taskproof ticks` (youbencha 136,
		// agent-validator 376) less a merge's repeats of what its other parent's
		// commits listed, and the tasks the root commit has checked (with no
		// base, its checked tasks are origins born in a new file:
		// agent-validator's root brings 7).
		bornTicked, born int
		// bornPaths are the tasks files the corpus really brings in already
		// ticked (a unit imported or merged whole): the verifier's policy
		// allows born-ticked tasks there ([born_ticked] allow) and nowhere
		// else (docs/format.md#born-ticked-tasks).
		bornPaths []string
	}{
		{"speckit-youbencha", 136, 0, corpusBornPaths["speckit-youbencha"]},
		{"openspec-agent-validator", 383, 18, corpusBornPaths["openspec-agent-validator"]},
		{"kiro-task-orchestrator-maxspec", 0, 0, nil},
		{"agentos-forgejo-mcp", 53, 11, corpusBornPaths["agentos-forgejo-mcp"]},
		{"bmad-etch-maxspec", 1387, 161, corpusBornPaths["bmad-etch-maxspec"]},
		{"ccsdd-evmtools", 20, 15, corpusBornPaths["ccsdd-evmtools"]},
		{"specworkflow-statevia-maxspec", 0, 3, corpusBornPaths["specworkflow-statevia-maxspec"]},
	} {
		t.Run(tc.name, func(t *testing.T) { corpus(t, tc.name, tc.bornTicked, tc.born, tc.bornPaths) })
	}
}

// corpusEdits are, per corpus, its edits of ticked tasks' text (a task's line
// and the lines that belong to it), each one of the project's own: in
// bmad-etch-maxspec two redesigns of story 3.7 rewrote its done tasks' detail
// lines (903d3f2, 6ef6c6f) and the rename to Etch rewrote a done task in 3.7
// (8333d3b) and one in 5.1 (fc812a0); an Agent OS spec rewrote one done task
// in place (agentos-forgejo-mcp); in specworkflow-statevia-maxspec a change of
// the header icon rewrote the detail bullets of done tasks T8 and T9, was
// reverted and applied again (b4a2a8b, 7354cb9, 4e4f637).
var corpusEdits = map[string]int{"bmad-etch-maxspec": 9, "agentos-forgejo-mcp": 1, "specworkflow-statevia-maxspec": 6}

// corpusEditsGone are the corpora whose edits are all of a tasks file the
// head no longer holds (statevia's head deletes the ui-design-unification
// spec): the gate judges the lines head holds checked, so it succeeds.
var corpusEditsGone = map[string]bool{"specworkflow-statevia-maxspec": true}

// corpusBornPaths are, per corpus, the tasks files with born-ticked tasks.
var corpusBornPaths = map[string][]string{
	"speckit-youbencha": {
		"specs/001-face-framework/tasks.md",
		"specs/002-claude-code-adapter/tasks.md",
		"specs/004-agent-file-install/tasks.md",
	},
	// Agent OS: spec folders committed with their first tasks already done.
	"agentos-forgejo-mcp": {
		".agent-os/specs/2025-09-07-cobra-cli-integration/tasks.md",
		".agent-os/specs/2025-09-11-pr-comment-list/tasks.md",
		".agent-os/specs/2025-09-19-directory-parameter-support/tasks.md",
	},
	// BMAD: stories were ticked on pull request branches off the replayed
	// chain, whose merges bring the story files in already ticked.
	"bmad-etch-maxspec": {
		"docs/sprint-artifacts/1-2-configure-hono-api-server-with-health-endpoint.md",
		"docs/sprint-artifacts/1-3-create-shared-types-package.md",
		"docs/sprint-artifacts/1-4-set-up-vitest-testing-framework.md",
		"docs/sprint-artifacts/1-5-configure-development-scripts-and-tooling.md",
		"docs/sprint-artifacts/2-1-implement-room-creation-api-endpoint.md",
		"docs/sprint-artifacts/2-12-implement-leave-meeting-flow.md",
		"docs/sprint-artifacts/2-13-implement-room-invite-link-generation-and-sharing.md",
		"docs/sprint-artifacts/2-14-implement-user-preferences-storage.md",
		"docs/sprint-artifacts/2-15-fix-production-room-join.md",
		"docs/sprint-artifacts/2-16-fix-retry-button-closed-rooms.md",
		"docs/sprint-artifacts/2-17-validate-room-existence.md",
		"docs/sprint-artifacts/2-2-implement-room-join-api-endpoint.md",
		"docs/sprint-artifacts/2-3-build-home-screen-with-create-join-meeting-ui.md",
		"docs/sprint-artifacts/2-4-implement-join-meeting-flow-with-name-input.md",
		"docs/sprint-artifacts/2-5-create-meeting-room-layout-shell.md",
		"docs/sprint-artifacts/2-6-integrate-livekit-room-connection.md",
		"docs/sprint-artifacts/2-7-implement-audio-publishing-and-controls.md",
		"docs/sprint-artifacts/2-8-implement-video-publishing-and-controls.md",
		"docs/sprint-artifacts/2-9-display-remote-participant-audio-video-streams.md",
		"docs/sprint-artifacts/3-1-implement-screen-share-initiation-hybrid-capture.md",
		"docs/sprint-artifacts/3-10-implement-rust-screen-capture-sidecar-macos-linux.md",
		"docs/sprint-artifacts/3-11-associate-screen-share-participant-with-main-identity.md",
		"docs/sprint-artifacts/3-2-display-shared-screen-for-viewers.md",
		"docs/sprint-artifacts/3-4-enforce-single-active-screen-share.md",
		"docs/sprint-artifacts/3-5-implement-screen-share-quality-optimization.md",
		"docs/sprint-artifacts/3-7-create-sharers-floating-control-bar.md",
		"docs/sprint-artifacts/3-8-create-share-border-indicator.md",
		"docs/sprint-artifacts/3-9-implement-main-window-auto-minimize-and-restore.md",
		"docs/sprint-artifacts/4-1-create-annotation-canvas-component-for-viewers.md",
		"docs/sprint-artifacts/4-11-render-annotations-on-sharers-overlay.md",
		"docs/sprint-artifacts/4-3-implement-local-stroke-drawing-pen-tool.md",
		"docs/sprint-artifacts/4-4-implement-highlighter-tool.md",
		"docs/sprint-artifacts/4-5-implement-eraser-tool.md",
		"docs/sprint-artifacts/4-6-build-annotation-toolbar-component.md",
		"docs/sprint-artifacts/4-7-implement-datatrack-annotation-sync.md",
		"docs/sprint-artifacts/4-8-implement-late-joiner-annotation-sync.md",
		"docs/sprint-artifacts/4-9-implement-resolution-independent-coordinates.md",
		"docs/sprint-artifacts/5-2-display-user-role-in-ui.md",
	},
	// cc-sdd: a release merge brings this spec in with its tasks done.
	"ccsdd-evmtools": {
		".kiro/specs/sdd-consolidation/tasks.md",
	},
	"openspec-agent-validator": {
		// The root commit brings this change in already ticked: with base ""
		// the state check asks for its evidence too.
		"openspec/changes/archive/2026-01-23-add-review-trust-setting/tasks.md",
		"openspec/changes/add-adapter-configuration/tasks.md",
		"openspec/changes/add-auto-push-pr/tasks.md",
		"openspec/changes/add-built-in-reviews/tasks.md",
		"openspec/changes/add-cursor-stop-hook/tasks.md",
		"openspec/changes/add-gauntlet-help-skill/tasks.md",
		"openspec/changes/add-prompt-configurability/tasks.md",
		"openspec/changes/add-skills-migration/tasks.md",
		"openspec/changes/archive/2026-01-23-remove-check-name-attribute/tasks.md",
		"openspec/changes/archive/2026-01-23-remove-rerun-unify-logs/tasks.md",
		"openspec/changes/archive/2026-01-24-add-entry-point-exclude-pattern/tasks.md",
		"openspec/changes/archive/2026-01-24-improve-review-tracking/tasks.md",
		"openspec/changes/archive/2026-01-25-improve-review-dispatch/tasks.md",
		"openspec/changes/archive/2026-01-31-remove-pre-flight/tasks.md",
		"openspec/changes/archive/2026-02-03-add-rerun-command/tasks.md",
		"openspec/changes/archive/2026-02-28-dynamic-review-control/tasks.md",
		"openspec/changes/archive/2026-02-28-gauntlet-workflow-skills/tasks.md",
		"openspec/changes/archive/2026-03-03-fix-stash-untracked-to-tracked-diff/tasks.md",
		"openspec/changes/archive/2026-03-04-codex-skill-support/tasks.md",
		"openspec/changes/archive/2026-03-05-pluginify/tasks.md",
		"openspec/changes/archive/2026-03-13-cursor-coding-agent-support/tasks.md",
		"openspec/changes/archive/2026-03-13-cursor-plugin-update/tasks.md",
		"openspec/changes/archive/2026-03-15-baton-gauntlet-integration/tasks.md",
		"openspec/changes/archive/2026-03-21-remove-stop-hooks/tasks.md",
		"openspec/changes/archive/2026-03-23-github-cli-agent-adapter/tasks.md",
		"openspec/changes/archive/2026-04-06-init-reviewer-recommendations/tasks.md",
		"openspec/changes/refactor-built-in-reviews/tasks.md",
		"openspec/changes/scope-rerun-diff/tasks.md",
		"openspec/changes/update-log-rotation-and-auto-clean/tasks.md",
	},
}

// corpus runs TestCorpora on one corpus; bornTicked and born are the
// Report.BornTicked length and the number of Born ticks expected.
func corpus(t *testing.T, name string, bornTicked, born int, bornPaths []string) {
	dir := testenv.CloneBundle(t, name)
	f := &fixture{t: t, dir: dir}
	f.key = newSSHKey(t)
	f.signer = f.sshSigner(f.key)
	f.signers = filepath.Join(t.TempDir(), "allowed_signers")
	f.setAllowed(`ci@example.invalid namespaces="in-toto" ` + f.key.line + "\n")
	head := f.head()

	repo, notes := f.open()
	ticks, err := tick.Range(repo, "", head, tick.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var commits []gitref.Hash
	byCommit := map[gitref.Hash][]tick.Tick{}
	unticks, edits, borns, bornRecords := 0, 0, 0, 0
	for _, tk := range ticks {
		switch tk.Kind {
		case tick.KindUntick:
			unticks++
			continue
		case tick.KindEdit:
			edits++
			continue
		case tick.KindBornTicked:
			bornRecords++
			continue
		}
		if tk.Born {
			borns++
		}
		if byCommit[tk.Commit] == nil {
			commits = append(commits, tk.Commit)
		}
		byCommit[tk.Commit] = append(byCommit[tk.Commit], tk)
	}
	if len(ticks) == 0 {
		t.Fatalf("%s: no ticks", name)
	}
	// The policy allows born-ticked tasks exactly where the corpus has them.
	seen := map[string]bool{}
	var got []string
	root := gitref.Hash(f.git("rev-list", "--max-parents=0", "HEAD"))
	rootFiles, err := tick.TasksFiles(repo, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rf := range rootFiles {
		if bytes.Contains(rf.Content, []byte("[x]")) && !seen[rf.Path] {
			seen[rf.Path] = true
			got = append(got, rf.Path)
		}
	}
	for _, tk := range ticks {
		if tk.Kind == tick.KindBornTicked && !seen[tk.Path] {
			seen[tk.Path] = true
			got = append(got, tk.Path)
		}
	}
	sort.Strings(got)
	bornPaths = slices.Sorted(slices.Values(bornPaths))
	if strings.Join(got, "\n") != strings.Join(bornPaths, "\n") {
		t.Fatalf("born-ticked tasks files:\n%q\nwant the named ones:\n%s", got, strings.Join(bornPaths, "\n"))
	}
	var pol strings.Builder
	pol.WriteString("version = 1\n[born_ticked]\nallow = [\n")
	for _, p := range bornPaths {
		fmt.Fprintf(&pol, "  %q,\n", p)
	}
	pol.WriteString("]\n")
	if f.policy, err = policy.Parse([]byte(pol.String()), name+"-policy.toml"); err != nil {
		t.Fatal(err)
	}

	// Attest every tick commit, every task it ticks (as `taskproof attest tick
	// --commit C --verdict regression_only --regression-reason planning_work`).
	attested := map[string]bool{} // commit + task ID
	key := func(c gitref.Hash, id string) string { return string(c) + " " + id }
	linesPerTick := 2 // the task-verification statement and the VSA
	for _, c := range commits {
		req := attest.TickRequest{Commit: c, Verdict: predicate.RegressionOnly, Signers: []signer.Signer{f.signer},
			Regression: map[string]any{"reason": "planning_work"}, Time: fxTime}
		ws, err := attest.Tick(context.Background(), repo, notes, req)
		budget := noteline.MaxNoteLines / linesPerTick
		switch n := len(byCommit[c]); {
		case err == nil && n <= noteline.MaxNoteLines:
			// Beyond budget, attest writes the task-verification statements
			// alone (one line per tick, no VSA) with a warning.
			lines := linesPerTick
			if n > budget {
				lines = 1
				t.Logf("statements vs note line limit: %s ticks %d tasks = %d note lines > %d; written without VSAs", c, n, n*linesPerTick, noteline.MaxNoteLines)
			}
			for _, w := range ws {
				if len(w.Lines) != lines {
					t.Fatalf("%s %s: %d note lines, want %d", c, w.Task, len(w.Lines), lines)
				}
				attested[key(c, w.Task)] = true
			}
		case errors.Is(err, notemerge.ErrNoteLimit) && n > noteline.MaxNoteLines:
			// attest.Tick writes a commit's tasks in one note update: nothing.
			t.Logf("statements vs note line limit: %s ticks %d tasks = %d note lines > %d; attest.Tick: %v", c, n, n*linesPerTick, noteline.MaxNoteLines, err)
		default:
			t.Fatalf("attest.Tick(%s) with %d ticks: %v", c, n, err)
		}
	}

	// Every tick is attested, so every tick is evidenced; an edit of a
	// ticked line fails where head's line comes from it and is superseded
	// where no line head holds does (docs/format.md#the-gates-model: which
	// is the model's to say, and internal/gatemodel checks the gate against
	// it), as is a tick without evidence.
	want := func(rep *Report) []tickRow {
		var out []tickRow
		for _, tk := range ticks {
			r := tickRow{tk.Commit, tk.TaskID, StatusEvidenced, "", ""}
			switch {
			case tk.Kind == tick.KindUntick, tk.Kind == tick.KindBornTicked:
				continue
			case tk.Kind == tick.KindEdit:
				r.Status, r.Reason = StatusEdited, ReasonEditedAfterTick
			case !attested[key(tk.Commit, tk.TaskID)]:
				r.Status, r.Reason = StatusUnverifiable, ReasonTickedWithoutEvidence
			}
			if r.Status != StatusEvidenced && len(out) < len(rep.Ticks) && rep.Ticks[len(out)].Status == StatusSuperseded {
				r.Status, r.Reason = StatusSuperseded, ""
			}
			out = append(out, r)
		}
		return out
	}
	conclusion := func(rep *Report) string {
		for _, r := range want(rep) {
			if r.Status != StatusEvidenced && r.Status != StatusSuperseded {
				return Failure
			}
		}
		return Success
	}
	rep := f.branch("", head, GateOptions{})
	checkGate(t, rep, conclusion(rep), want(rep))
	// Every tick attested, the gate fails nothing but the corpus's own edits
	// of ticked lines (edited_after_tick, which attesting cannot evidence).
	var notEdits []string
	for _, r := range rep.Ticks {
		if r.Failing && r.Reason != ReasonEditedAfterTick {
			notEdits = append(notEdits, fmt.Sprintf("%s %s %s/%s", r.Status, r.Reason, printable.Short(string(r.Commit)), r.TaskID))
		}
	}
	if len(notEdits) != 0 || edits != corpusEdits[name] || (edits == 0 || corpusEditsGone[name]) != (rep.Conclusion == Success) {
		t.Errorf("%s: failing %v, %d edits (the corpus has %d), conclusion %s", name, notEdits, edits, corpusEdits[name], rep.Conclusion)
	}
	t.Logf("%s: %d ticks in %d commits, %d evidenced; %d unticks, %d edits", name, len(ticks)-unticks-edits-bornRecords, len(commits), rep.Summary[StatusEvidenced], unticks, edits)
	if len(rep.Unticks) != unticks {
		t.Errorf("%d unticks, want %d", len(rep.Unticks), unticks)
	}
	t.Logf("%s: %d Born ticks, %d born_ticked listed", name, borns, len(rep.BornTicked))
	if len(rep.BornTicked) != bornTicked || borns != born || rep.Summary[StatusBornTicked] != bornTicked {
		t.Errorf("%d born_ticked listed (summary %d), %d Born ticks; want %d, %d", len(rep.BornTicked), rep.Summary[StatusBornTicked], borns, bornTicked, born)
	}
	for _, b := range rep.BornTicked {
		if b.Status != StatusBornTicked || b.Failing || b.Commit == "" || b.TaskID == "" {
			t.Errorf("born_ticked entry %+v", b)
		}
	}
	if name == "openspec-agent-validator" {
		// Every tick is evidenced, the two 5.3 ticks of 400b361f (two lines
		// of one tasks file with one ID, under two headings) included: each
		// by the statement binding its own line.
		var notEvidenced []string
		lines := map[int]string{} // the 5.3 ticks' lines → their evidence's line hash
		for _, r := range rep.Ticks {
			if r.Status != StatusEvidenced && r.Status != StatusEdited && r.Status != StatusSuperseded {
				notEvidenced = append(notEvidenced, fmt.Sprintf("%s %s %s/%s", r.Status, r.Reason, printable.Short(string(r.Commit)), r.TaskID))
			}
			if strings.HasPrefix(string(r.Commit), "400b361f") && r.TaskID == "5.3" && r.Status == StatusEvidenced {
				lines[r.Line] = r.Object.LineHash
			}
		}
		if len(notEvidenced) != 0 || len(rep.Ticks) != 342 || rep.Summary[StatusEvidenced] != 342 || rep.Conclusion != Success {
			t.Errorf("%d ticks, %d evidenced, conclusion %s, not evidenced: %v; want all 342 evidenced, success", len(rep.Ticks), rep.Summary[StatusEvidenced], rep.Conclusion, notEvidenced)
		}
		for _, tk := range ticks {
			if strings.HasPrefix(string(tk.Commit), "400b361f") && tk.TaskID == "5.3" {
				if tk.Ambiguous == "" || lines[tk.Line] != tk.LineHash {
					t.Errorf("5.3 tick at line %d (ambiguous %q): evidenced by a statement of line_hash %q, want %s", tk.Line, tk.Ambiguous, lines[tk.Line], tk.LineHash)
				}
				delete(lines, tk.Line)
			}
		}
		if len(lines) != 0 {
			t.Errorf("400b361f: 5.3 ticks %v evidenced that gitref does not list", lines)
		}
	}

	// Flip one byte of one payload: that tick, and no other, is bad_signature
	// — a tick head's line comes from (the latest tick of a line head has
	// checked). Where head has no task checked (kiro-task-orchestrator-maxspec
	// rewrites its tasks file at the end), no tick is what a line of head
	// comes from: the first tick is flipped, and is superseded.
	checkedAtHead := map[string]bool{} // path, task ID, line_hash
	headFiles, err := tick.TasksFiles(repo, head, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, hf := range headFiles {
		if hf.Irregular != "" || hf.Unrecognized {
			continue
		}
		tf, err := specfmt.ParseTasks(hf.Unit, hf.Content, specfmt.AllowDuplicateIDs())
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tf.Tasks {
			if x.Ticked() {
				checkedAtHead[hf.Path+" "+x.ID+" "+predicate.LineHash(x.OpenLine())] = true
			}
		}
	}
	var victim tickRow
	failing := false
	for _, tk := range ticks {
		if tk.Kind == tick.KindTick && attested[key(tk.Commit, tk.TaskID)] {
			if checkedAtHead[tk.Path+" "+tk.TaskID+" "+tk.LineHash] {
				victim, failing = tickRow{Commit: tk.Commit, TaskID: tk.TaskID}, true
			} else if victim.Commit == "" {
				victim = tickRow{Commit: tk.Commit, TaskID: tk.TaskID}
			}
		}
	}
	flipPayloadByte(t, f, victim.Commit, statement.SubjectName(featureOf(t, ticks, victim), victim.TaskID))
	before := rep
	rep = f.branch("", head, GateOptions{})
	exp := want(before)
	for i := range exp {
		if exp[i].Commit == victim.Commit && exp[i].TaskID == victim.TaskID {
			exp[i].Status, exp[i].Reason = StatusUnverifiable, string(BadSignature)
			if !failing {
				exp[i].Status, exp[i].Reason = StatusSuperseded, ""
			}
		}
	}
	if failing {
		checkGate(t, rep, Failure, exp)
	} else {
		checkGate(t, rep, conclusion(before), exp)
	}

	// Tick one more open task by hand, with no evidence.
	path := handTick(t, f, ticks)
	c := f.head()
	repo, _ = f.open()
	added, err := tick.Range(repo, head, c, tick.Options{})
	if err != nil || len(added) != 1 || added[0].Kind != tick.KindTick {
		t.Fatalf("hand tick in %s: ticks %+v, %v", path, added, err)
	}
	rep = f.branch("", c, GateOptions{})
	exp = append(exp, tickRow{c, added[0].TaskID, StatusUnverifiable, ReasonTickedWithoutEvidence, ""})
	checkGate(t, rep, Failure, exp)
	t.Logf("%s: hand-ticked %s in %s", name, added[0].TaskID, path)
}

func featureOf(t *testing.T, ticks []tick.Tick, r tickRow) string {
	for _, tk := range ticks {
		if tk.Commit == r.Commit && tk.TaskID == r.TaskID {
			return tk.Unit.Feature
		}
	}
	t.Fatalf("no tick %+v", r)
	return ""
}

// flipPayloadByte changes one byte of the recorded time in the payload of
// subject's task-verification statement on commit c (the payload stays valid
// JSON, so only the signature can tell), and stores the note.
func flipPayloadByte(t *testing.T, f *fixture, c gitref.Hash, subject string) {
	t.Helper()
	var out [][]byte
	flipped := false
	for _, l := range f.lines(c) {
		name := l.statement["subject"].([]any)[0].(map[string]any)["name"]
		if name != subject || l.predType != predicate.PredicateType {
			out = append(out, l.raw)
			continue
		}
		p := append([]byte(nil), l.env.Payload...)
		i := bytes.Index(p, []byte(`"time":"2026-05-01T09:30:00Z"`))
		if i < 0 {
			t.Fatalf("no time in %s", p)
		}
		p[i+len(`"time":"2026-05-01T0`)] ^= 0x01 // '9' → '8'
		env := *l.env
		env.Payload = p
		out = append(out, marshal(t, &env))
		flipped = true
	}
	if !flipped {
		t.Fatalf("no task-verification statement for %s on %s", subject, c)
	}
	f.setNoteLines(c, out)
}

var openBox = regexp.MustCompile(`(?m)^([ \t]*[-*] )\[ \]( \S+)`)

// handTick ticks the first open task of the first tasks file (in path order)
// of HEAD that has one, and commits; it returns the file. When HEAD holds no
// open task (specworkflow-statevia-maxspec's last commit deletes every spec),
// it first adds a unit of its own beside the first tick's, with one open
// task, in a commit of its own (which ticks nothing).
func handTick(t *testing.T, f *fixture, ticks []tick.Tick) string {
	t.Helper()
	repo, _ := f.open()
	files, err := tick.TasksFiles(repo, f.head(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	tickFirst := func(p string, b []byte) bool {
		m := openBox.FindSubmatchIndex(b)
		if m == nil {
			return false
		}
		nb := append(append(append([]byte{}, b[:m[3]]...), "[x]"...), b[m[3]+3:]...)
		f.commit(fmt.Sprintf("tick %s by hand", b[m[4]:m[5]]), map[string]string{p: string(nb)})
		return true
	}
	for _, tf := range files {
		if tf.Unrecognized || tf.Irregular != "" {
			continue
		}
		if tickFirst(tf.Path, tf.Content) {
			return tf.Path
		}
	}
	for _, tk := range ticks {
		if tk.Kind != tick.KindTick || tk.Unrecognized || tk.Unit.Format.StoryFile() {
			continue
		}
		p := path.Dir(tk.Unit.Dir) + "/zz-hand-tick/tasks.md"
		b := []byte("# Tasks\n\n- [ ] 1. Hand task\n")
		f.commit("add a unit to tick by hand", map[string]string{p: string(b)})
		if tickFirst(p, b) {
			return p
		}
	}
	t.Fatal("no open task at HEAD, and no unit to add one beside")
	return ""
}
