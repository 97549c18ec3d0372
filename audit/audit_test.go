package audit_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/trust"
)

const collectionEvidence = `{"collection":{"files":[
 {"path":"tests/check_greet.py","state":"not_collected","decided_by":"static","tests":0,"test_ids":[],
  "rule":{"toolchain":"python","text":"pytest collects test_*.py","source":"pyproject.toml (default)"},
  "why":"the name does not match test_*.py","fixes":["rename it to tests/test_greet.py","add it to python_files"]},
 {"path":"tests/test_ok.py","state":"collected","decided_by":"junit","tests":2,"test_ids":["a","b"]}]}}`

// scenario is a 20-task repository with notes of all three revisions, every
// regression reason and detail, a decision, a skip record, a malformed line and
// ticks without evidence (see the table in TestRunAll).
type scenarioT struct {
	f       *fixture
	allowed string
}

func scenario(t *testing.T) *scenarioT {
	t.Helper()
	f := newFixture(t, fxTasks)
	signer, allowed := f.sshSigner(t)
	rr := predicate.RegressionOnly
	f.tick(t, 1, predicate.Verified, "", "", signer)
	f.tick(t, 2, rr, "no_story", "", signer)
	f.tick(t, 3, rr, "no_scenarios:story=US2", "")
	f.tick(t, 4, rr, "acceptance_off", "")
	f.tick(t, 5, rr, "author_wrote_none", "")
	f.tick(t, 6, rr, "author_failed:detail=the answer named no file | <b>x</b>", "")
	f.tick(t, 7, rr, "already_passing:implemented_by=T001@abc1234", "")
	f.tick(t, 8, rr, "already_passing:implemented_by=before_feature", "")
	f.tick(t, 9, rr, "already_passing", "")
	f.tick(t, 10, rr, "not_red:red_class=build_error", "")
	f.tick(t, 11, rr, "tests_not_collected", collectionEvidence)
	f.tick(t, 12, rr, "planning_work", "")
	f.tickRevision(t, 13, 1)
	f.tickRevision(t, 14, 2)
	f.tickRevision(t, 15, 3)
	if _, err := attest.Decide(context.Background(), f.repo, f.notes, attest.DecideRequest{
		Commit: f.ticks[15], Task: "T016", Verdict: predicate.Attested, By: "lead@example.invalid", Reason: "docs only", Time: when(16)}); err != nil {
		t.Fatal(err)
	}
	// T018: a note with a malformed line only.
	f.writeRaw(t, 18, "x", []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"not base64!","signatures":[]}`))
	// A skip record for T020, decided at T019's commit (T020 still open there).
	if _, err := attest.Decide(context.Background(), f.repo, f.notes, attest.DecideRequest{
		Commit: f.ticks[18], Task: "T020", Verdict: predicate.Skipped, By: "lead@example.invalid", Reason: "out of scope", Time: when(21)}); err != nil {
		t.Fatal(err)
	}
	return &scenarioT{f: f, allowed: allowed}
}

func run(t *testing.T, s *scenarioT, opts audit.Options) *audit.Report {
	t.Helper()
	if opts.Head == "" {
		opts.Head = s.f.ticks[len(s.f.ticks)-1]
	}
	rep, err := audit.Run(s.f.repo, s.f.notes, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func rowOf(t *testing.T, rep *audit.Report, taskID string) audit.Row {
	t.Helper()
	for _, r := range rep.Ticks {
		if r.TaskID == taskID {
			return r
		}
	}
	t.Fatalf("no row for %s", taskID)
	return audit.Row{}
}

func TestRunAll(t *testing.T) {
	s := scenario(t)
	rep := run(t, s, audit.Options{All: true})

	wantTotals := audit.Totals{Ticks: 20, Evidenced: 16, WithoutEvidence: 4, Statements: 17, RegressionOnly: 14,
		RegressionShare: 14.0 / 17.0}
	if rep.Totals != wantTotals {
		t.Errorf("totals = %+v, want %+v", rep.Totals, wantTotals)
	}
	wantVerdicts := map[string]int{"verified": 1, "regression_only": 14, "attested": 1, "skipped": 1}
	if !reflect.DeepEqual(rep.Verdicts, wantVerdicts) {
		t.Errorf("verdicts = %v, want %v", rep.Verdicts, wantVerdicts)
	}
	wantReasons := map[string]int{"no_story": 1, "no_scenarios": 1, "acceptance_off": 1, "author_wrote_none": 1,
		"author_failed": 1, "already_passing": 3, "not_red": 1, "tests_not_collected": 1, "planning_work": 1, "unrecorded": 3}
	if !reflect.DeepEqual(rep.Regression.ByReason, wantReasons) {
		t.Errorf("by reason = %v, want %v", rep.Regression.ByReason, wantReasons)
	}
	if len(rep.Regression.ByUnit) != 1 || rep.Regression.ByUnit[0].Unit.Dir != fxDir || rep.Regression.ByUnit[0].Total != 14 ||
		rep.Regression.ByUnit[0].Reasons["already_passing"] != 3 {
		t.Errorf("by unit = %+v", rep.Regression.ByUnit)
	}

	// One row per statement, with its reason details, read revision-aware.
	tests := []struct {
		task     string
		revision uint32
		want     *audit.Reason
	}{
		{"T001", 3, nil},
		{"T002", 3, &audit.Reason{Reason: "no_story"}},
		{"T003", 3, &audit.Reason{Reason: "no_scenarios", Story: "US2"}},
		{"T004", 3, &audit.Reason{Reason: "acceptance_off"}},
		{"T005", 3, &audit.Reason{Reason: "author_wrote_none"}},
		{"T006", 3, &audit.Reason{Reason: "author_failed", Detail: "the answer named no file | <b>x</b>"}},
		{"T007", 3, &audit.Reason{Reason: "already_passing", ImplementedBy: &audit.ImplementedBy{Task: "T001", Commit: "abc1234"}}},
		{"T008", 3, &audit.Reason{Reason: "already_passing", ImplementedBy: &audit.ImplementedBy{BeforeFeature: true}}},
		{"T009", 3, &audit.Reason{Reason: "already_passing"}},
		{"T010", 3, &audit.Reason{Reason: "not_red", RedClass: "build_error"}},
		{"T011", 3, &audit.Reason{Reason: "tests_not_collected", NotCollected: []audit.NotCollected{{
			Path: "tests/check_greet.py", Why: "the name does not match test_*.py",
			Fixes: []string{"rename it to tests/test_greet.py", "add it to python_files"}, Rule: "pytest collects test_*.py"}}}},
		{"T012", 3, &audit.Reason{Reason: "planning_work"}},
		{"T013", 1, &audit.Reason{Reason: "unrecorded"}},
		{"T014", 2, &audit.Reason{Reason: "unrecorded"}},
		{"T015", 3, &audit.Reason{Reason: "unrecorded", Missing: true}},
		{"T016", 3, nil},
	}
	for _, tc := range tests {
		r := rowOf(t, rep, tc.task)
		if r.Revision != tc.revision {
			t.Errorf("%s: revision %d, want %d", tc.task, r.Revision, tc.revision)
		}
		if !reflect.DeepEqual(r.Regression, tc.want) {
			t.Errorf("%s: regression = %+v, want %+v", tc.task, r.Regression, tc.want)
		}
		if !r.InHistory || r.Path != fxDir+"/tasks.md" || r.Line == 0 {
			t.Errorf("%s: in_history %v path %q line %d", tc.task, r.InHistory, r.Path, r.Line)
		}
		if r.Signature.Status != audit.SigNotChecked && r.Signature.Status != audit.SigUnsigned {
			t.Errorf("%s: signature %q without trust", tc.task, r.Signature.Status)
		}
	}
	if got := rowOf(t, rep, "T001").Signature; got.Status != audit.SigNotChecked || got.Count != 1 {
		t.Errorf("T001 signature = %+v, want not_checked with 1 signature", got)
	}
	if got := rowOf(t, rep, "T003").Signature.Status; got != audit.SigUnsigned {
		t.Errorf("T003 signature = %q, want unsigned", got)
	}
	if d := rowOf(t, rep, "T016").Decider; d == nil || d.By != "lead@example.invalid" || rowOf(t, rep, "T016").Verdict != "attested" {
		t.Errorf("T016 decider = %+v", d)
	}
	if skip := rowOf(t, rep, "T020"); skip.Verdict != "skipped" || skip.InHistory {
		t.Errorf("T020 skip row = %+v, want skipped, not in history", skip)
	}
	if r := rowOf(t, rep, "T003"); r.Title != fxTitle(3) {
		t.Errorf("T003 title %q", r.Title)
	}

	// Ticks without evidence.
	var without []string
	for _, u := range rep.WithoutEvidence {
		without = append(without, u.TaskID+":"+u.Why)
	}
	if want := []string{"T017:no_note", "T018:no_statement", "T019:no_note", "T020:no_note"}; !reflect.DeepEqual(without, want) {
		t.Errorf("without evidence = %v, want %v", without, want)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Commit != s.f.ticks[17] || rep.Problems[0].NoteLine != 1 {
		t.Errorf("problems = %+v, want one on T018's note line 1", rep.Problems)
	}

	// Weekly trend, by the tick commits' dates: every tick commit was made on
	// 2026-01-01 (2026-W01), though the statements claim two a week from W02
	// to W09; the skip record in the week it was written.
	rec := strings.TrimSpace(testenv.Git(t, s.f.dir, "log", "-1", "--format=%cI", "refs/speccoder/skipped/"+fxFeature+"/T020"))
	recTime, err := time.Parse(time.RFC3339, rec)
	if err != nil {
		t.Fatal(err)
	}
	y, wk := recTime.UTC().ISOWeek()
	var weeks []string
	for _, w := range rep.Weeks {
		weeks = append(weeks, fmt.Sprintf("%s=%d", w.Week, w.Total))
	}
	want := []string{"2026-W01=16", fmt.Sprintf("%04d-W%02d=1", y, wk)}
	if !reflect.DeepEqual(weeks, want) {
		t.Errorf("weeks = %v, want %v", weeks, want)
	}
	if w := rep.Weeks[0]; w.Verdicts["verified"] != 1 || w.Verdicts["regression_only"] != 14 || w.Verdicts["attested"] != 1 {
		t.Errorf("week %s verdicts = %v", w.Week, w.Verdicts)
	}
	if r := rowOf(t, rep, "T002"); r.CommitTime != "2026-01-01T00:00:00Z" || r.Week != "2026-W01" || !strings.HasPrefix(r.Time, "2026-01-05") {
		t.Errorf("T002 commit_time %q week %q time %q", r.CommitTime, r.Week, r.Time)
	}
}

func TestRunFilters(t *testing.T) {
	s := scenario(t)
	tests := []struct {
		name       string
		opts       audit.Options
		ticks      int
		statements int
		without    int
	}{
		{"range", audit.Options{Base: s.f.ticks[9], Head: s.f.ticks[15]}, 6, 6, 0},
		{"range with unticked", audit.Options{Base: s.f.ticks[15], Head: s.f.ticks[19]}, 4, 0, 4},
		{"unit dir glob", audit.Options{All: true, Unit: "specs/*"}, 20, 17, 4},
		{"unit feature glob", audit.Options{All: true, Unit: "001-*"}, 20, 17, 4},
		{"unit no match", audit.Options{All: true, Unit: "other*"}, 0, 0, 0},
		// Statements from when(15) on: T015, T016, the skip; the ticks without
		// evidence were committed on 2026-01-01 (testenv's fixed date), before it.
		{"since", audit.Options{All: true, Since: when(15)}, 2, 3, 0},
		{"since before everything", audit.Options{All: true, Since: when(1).AddDate(0, 0, -7)}, 20, 17, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := run(t, s, tc.opts)
			if rep.Totals.Ticks != tc.ticks || rep.Totals.Statements != tc.statements || rep.Totals.WithoutEvidence != tc.without {
				t.Errorf("totals = %+v, want ticks %d statements %d without %d", rep.Totals, tc.ticks, tc.statements, tc.without)
			}
			if rep.Totals.Ticks != rep.Totals.Evidenced+rep.Totals.WithoutEvidence {
				t.Errorf("ticks %d != evidenced %d + without %d", rep.Totals.Ticks, rep.Totals.Evidenced, rep.Totals.WithoutEvidence)
			}
		})
	}
}

func TestRunWithTrust(t *testing.T) {
	s := scenario(t)
	as, err := trust.LoadAllowedSigners(s.allowed)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trust.NewTrust(trust.WithAllowedSigners(as))
	if err != nil {
		t.Fatal(err)
	}
	rep := run(t, s, audit.Options{All: true, Trust: tr})
	if rep.Signatures != "checked" {
		t.Errorf("signatures = %q", rep.Signatures)
	}
	tests := []struct{ task, status string }{
		{"T001", "ok"}, {"T002", "ok"}, {"T003", "unsigned"}, {"T013", "unsigned"}, {"T015", "malformed"},
	}
	for _, tc := range tests {
		r := rowOf(t, rep, tc.task)
		if r.Signature.Status != tc.status {
			t.Errorf("%s: status %q, want %q", tc.task, r.Signature.Status, tc.status)
		}
	}
	if sg := rowOf(t, rep, "T001").Signature.Signers; len(sg) != 1 || sg[0].Principal != "dev@example.invalid" {
		t.Errorf("T001 signers = %+v", sg)
	}
	// Audit reports: the same statements are counted, checked or not.
	if rep.Totals.Statements != 17 {
		t.Errorf("statements = %d with trust", rep.Totals.Statements)
	}
}

func TestRunNotesRefAbsent(t *testing.T) {
	f := newFixture(t, 2)
	_, err := audit.Run(f.repo, f.notes, audit.Options{All: true, Head: f.ticks[1]})
	if err == nil || !strings.Contains(err.Error(), "notes ref absent") {
		t.Errorf("err = %v, want notes ref absent", err)
	}
}

func TestGate(t *testing.T) {
	s := scenario(t)
	rep := run(t, s, audit.Options{All: true})
	share := func(v float64) *float64 { return &v }
	tests := []struct {
		name   string
		opts   audit.GateOptions
		failed bool
		gated  int
	}{
		{"no gate", audit.GateOptions{}, false, 14},
		{"fail-on present", audit.GateOptions{FailOn: []predicate.Reason{"unrecorded"}}, true, 3},
		{"fail-on two", audit.GateOptions{FailOn: []predicate.Reason{"no_story", "not_red"}}, true, 2},
		{"max-share all exceeded", audit.GateOptions{MaxShare: share(0.2)}, true, 14},
		{"max-share all within", audit.GateOptions{MaxShare: share(0.9)}, false, 14},
		{"max-share equal is within", audit.GateOptions{FailOn: []predicate.Reason{"already_passing"}, MaxShare: share(3.0 / 17.0)}, false, 3},
		{"max-share reason exceeded", audit.GateOptions{FailOn: []predicate.Reason{"already_passing"}, MaxShare: share(0.1)}, true, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.opts.Validate(); err != nil {
				t.Fatal(err)
			}
			g := audit.Gate(rep, tc.opts)
			if g.Failed != tc.failed || g.Gated != tc.gated {
				t.Errorf("gate = %+v, want failed %v gated %d", g, tc.failed, tc.gated)
			}
		})
	}
	for _, bad := range []audit.GateOptions{{MaxShare: share(-0.1)}, {MaxShare: share(1.5)}, {FailOn: []predicate.Reason{"nope"}}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", bad)
		}
	}
}

func TestParse(t *testing.T) {
	if r, err := audit.ParseReasons("unrecorded, not_red,unrecorded"); err != nil || !reflect.DeepEqual(r, []predicate.Reason{"unrecorded", "not_red"}) {
		t.Errorf("ParseReasons = %v, %v", r, err)
	}
	for _, bad := range []string{"", "nope", "no_story,", "NO_STORY"} {
		if _, err := audit.ParseReasons(bad); err == nil {
			t.Errorf("ParseReasons(%q) = nil error", bad)
		}
	}
	if d, err := audit.ParseSince("2026-01-12"); err != nil || d.Format(time.RFC3339) != "2026-01-12T00:00:00Z" {
		t.Errorf("ParseSince = %v, %v", d, err)
	}
	if _, err := audit.ParseSince("2026-01-12T10:00:00Z"); err != nil {
		t.Error(err)
	}
	if _, err := audit.ParseSince("last week"); err == nil {
		t.Error("ParseSince(last week) = nil error")
	}
}

func TestRenderers(t *testing.T) {
	s := scenario(t)
	rep := run(t, s, audit.Options{All: true})
	rep.SetGate(audit.GateOptions{FailOn: []predicate.Reason{"unrecorded"}})

	t.Run("json", func(t *testing.T) {
		var buf bytes.Buffer
		if err := audit.WriteJSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			SchemaVersion int `json:"schema_version"`
			Totals        struct {
				Ticks int `json:"ticks"`
			} `json:"totals"`
			Ticks []map[string]any `json:"ticks"`
			Gate  struct {
				Failed bool `json:"failed"`
			} `json:"gate"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.SchemaVersion != 1 || doc.Totals.Ticks != 20 || len(doc.Ticks) != 17 || !doc.Gate.Failed {
			t.Errorf("json = %+v", doc)
		}
		byTask := map[string]map[string]any{}
		for _, r := range doc.Ticks {
			byTask[r["task_id"].(string)] = r
		}
		reg := func(id string) map[string]any { return byTask[id]["regression"].(map[string]any) }
		if v, ok := reg("T009")["implemented_by"]; !ok || v != nil {
			t.Errorf("T009 implemented_by = %v (present %v), want null", v, ok)
		}
		if v := reg("T008")["implemented_by"].(map[string]any); v["before_feature"] != true {
			t.Errorf("T008 implemented_by = %v", v)
		}
		if _, ok := reg("T002")["implemented_by"]; ok {
			t.Error("T002 (no_story) has implemented_by")
		}
		if v := reg("T011")["not_collected"].([]any)[0].(map[string]any); v["why"] != "the name does not match test_*.py" || len(v["fixes"].([]any)) != 2 {
			t.Errorf("T011 not_collected = %v", v)
		}
		if reg("T015")["missing"] != true || reg("T015")["reason"] != "unrecorded" {
			t.Errorf("T015 regression = %v", reg("T015"))
		}
	})

	t.Run("text", func(t *testing.T) {
		var buf bytes.Buffer
		if err := audit.WriteText(&buf, rep); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{"ticks 20: 16 evidenced, 4 without evidence; 17 statements, 14 regression_only (82.4%)",
			"story US2", "detail: the answer named no file | <b>x</b>", "implemented_by T001@abc1234", "implemented_by before the feature",
			"implemented_by undetermined", "red_class build_error",
			"not collected: tests/check_greet.py (the name does not match test_*.py; fixes: rename it to tests/test_greet.py | add it to python_files)",
			"no reason recorded (revision 3)", "2026-W01", "T018", "no_statement", "gate FAILED"} {
			if !strings.Contains(out, want) {
				t.Errorf("text lacks %q", want)
			}
		}
	})

	t.Run("csv", func(t *testing.T) {
		var buf bytes.Buffer
		if err := audit.WriteCSV(&buf, rep); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1+17+4 || !reflect.DeepEqual(recs[0], audit.CSVHeader) {
			t.Fatalf("csv has %d records, header %v", len(recs), recs[0])
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		found := 0
		for _, r := range recs[1:] {
			switch r[col["task_id"]] {
			case "T007":
				found++
				if r[col["implemented_by"]] != "T001@abc1234" || r[col["reason"]] != "already_passing" {
					t.Errorf("T007 csv = %v", r)
				}
			case "T017":
				found++
				if r[col["evidence"]] != "none: no_note" {
					t.Errorf("T017 csv = %v", r)
				}
			}
		}
		if found != 2 {
			t.Errorf("found %d of T007, T017", found)
		}
	})

	t.Run("markdown", func(t *testing.T) {
		var buf bytes.Buffer
		if err := audit.WriteMarkdown(&buf, rep); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, "<b>") || strings.Contains(out, "<script") {
			t.Error("markdown holds raw HTML from the repository")
		}
		if !strings.Contains(out, `the answer named no file \| \<b\>x\</b\>`) {
			t.Error("markdown does not escape the detail's pipe and HTML")
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "| ") && strings.Contains(line, "author_failed") && !strings.HasPrefix(line, "| unit") {
				if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 8 {
					t.Errorf("row has %d cell separators: %s", n, line)
				}
			}
		}
	})

	t.Run("html", func(t *testing.T) {
		var buf bytes.Buffer
		if err := audit.WriteHTML(&buf, rep); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{`id="reasons-chart"`, `id="trend-chart"`, "&lt;b&gt;x&lt;/b&gt;", "<rect"} {
			if !strings.Contains(out, want) {
				t.Errorf("html lacks %q", want)
			}
		}
		for _, bad := range []string{"<b>x</b>", "<script", "href=", "src=", "@import", "url("} {
			if strings.Contains(out, bad) {
				t.Errorf("html holds %q", bad)
			}
		}
	})
}

func TestRenderersNil(t *testing.T) {
	var buf bytes.Buffer
	for name, w := range map[string]func() error{
		"json": func() error { return audit.WriteJSON(&buf, nil) }, "text": func() error { return audit.WriteText(&buf, nil) },
		"csv": func() error { return audit.WriteCSV(&buf, nil) }, "markdown": func() error { return audit.WriteMarkdown(&buf, nil) },
		"html": func() error { return audit.WriteHTML(&buf, nil) },
	} {
		if err := w(); err == nil {
			t.Errorf("%s(nil) = nil error", name)
		}
	}
}
