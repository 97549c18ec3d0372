package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// updateCIGolden rewrites the CI formats' golden files: go test ./verify -run CI -update-ci-golden
var updateCIGolden = flag.Bool("update-ci-golden", false, "rewrite verify/testdata/golden/ci-* files")

// ciHash is a fake 40-hex commit id made of one repeated hex digit pair.
func ciHash(pair string) gitref.Hash { return gitref.Hash(strings.Repeat(pair, 20)) }

var ciUnit = specfmt.Unit{Format: specfmt.Speckit, Feature: "001-greeting", Dir: "specs/001-greeting"}

func ciTick(id string, line int, commit gitref.Hash) verify.TickResult {
	return verify.TickResult{Commit: commit, Path: ciUnit.Dir + "/tasks.md", Line: line, Unit: ciUnit, TaskID: id,
		Task: statement.SubjectName(ciUnit.Feature, id), Reasons: []verify.Reason{}, Signers: []trust.Signer{}}
}

// ciBranchReport is a failing merge gate covering every tick status and the
// unverifiable sub-reasons: evidenced, stale, ticked_without_evidence,
// commit_unreachable with same_tree_as, bad_signature with several reasons,
// edited_after_tick, and an untick. Texts hold characters every format must
// escape.
func ciBranchReport() *verify.Report {
	ok := ciTick("T001", 9, ciHash("a1"))
	ok.Status, ok.Evidence, ok.Verdict, ok.Outcome = verify.StatusEvidenced, ok.Commit, "verified", verify.OK
	ok.Signers = []trust.Signer{{Kind: signer.KindSSH, KeyID: "SHA256:abc", Principal: "dev@example.invalid"}}

	stale := ciTick("T002", 13, ciHash("b2"))
	stale.Status, stale.Failing, stale.Evidence, stale.Verdict, stale.Outcome = verify.StatusStale, true, stale.Commit, "verified", verify.OK
	// A failing tick still credits the signer that verified: a Sigstore one.
	tlog := int64(4242)
	stale.Signers = []trust.Signer{{Kind: signer.KindSigstore, KeyID: "https://github.com/acme/calc/.github/workflows/release.yml@refs/heads/main",
		Identity: "https://github.com/acme/calc/.github/workflows/release.yml@refs/heads/main", Issuer: "https://token.actions.githubusercontent.com", TlogIndex: &tlog}}
	stale.Reasons = []verify.Reason{{Code: verify.CodeSectionHash, Field: "predicate.spec.section_hash", Expected: "11aa", Found: "22bb", Message: "section US1 changed since the tick", Outcome: verify.Mismatch}}

	noEvidence := ciTick("T004", 19, ciHash("c3"))
	noEvidence.Status, noEvidence.Reason, noEvidence.Failing = verify.StatusUnverifiable, verify.ReasonTickedWithoutEvidence, true

	moved := ciTick("T003", 14, ciHash("d4"))
	moved.Status, moved.Reason, moved.Failing = verify.StatusUnverifiable, verify.ReasonCommitUnreachable, true
	moved.SameTreeAs = ciHash("e5")
	moved.Message = "evidence for 001-greeting/T003 is on 1 other commit(s), not on the tick commit"

	forged := ciTick("T005", 21, ciHash("f6"))
	forged.Status, forged.Reason, forged.Failing, forged.Outcome = verify.StatusUnverifiable, string(verify.BadSignature), true, verify.BadSignature
	forged.Evidence, forged.Verdict = forged.Commit, "verified"
	forged.Reasons = []verify.Reason{
		{Code: verify.CodeSignature, Field: "line 2: signatures[0]", Message: "ssh: signature did not verify", Outcome: verify.BadSignature},
		{Code: verify.CodeUntrusted, Field: "line 3: signatures[1]", Message: "key SHA256:xyz is not in allowed signers", Outcome: verify.UntrustedSigner},
		{Code: verify.CodeLineHash, Field: "predicate.task.line_hash", Expected: "3f3f", Found: "4e4e", Message: "specs/001-greeting/tasks.md:21", Outcome: verify.Mismatch},
	}

	edited := ciTick("T006", 23, ciHash("07"))
	edited.Status, edited.Reason, edited.Failing = verify.StatusEdited, verify.ReasonEditedAfterTick, true
	// Text from the repository: CR, LF, '%', ':' and ',', a pipe, HTML and a
	// would-be workflow command.
	edited.Message = "the ticked task line changed: \"- [x] T006 50% done, a|b <b>x</b>\" → \"- [x] T006 done\r\n::error::forged\""

	untick := ciTick("T007", 25, ciHash("08"))
	untick.Status = "unticked"

	return &verify.Report{SchemaVersion: 1, Mode: "branch", NotesRef: "refs/notes/speccoder", Base: ciHash("00"), Head: ciHash("ff"),
		Conclusion: verify.Failure, Objects: []verify.ObjectResult{}, Ticks: []verify.TickResult{ok, stale, noEvidence, moved, forged, edited},
		Unticks: []verify.TickResult{untick}, Summary: map[string]int{}}
}

// ciObjectsReport is objects mode: an ok object, a missing one (no unit), a
// mismatch with several reasons, an unsigned one, and one whose predicate names
// a forged unit dir (never used as a location).
func ciObjectsReport() *verify.Report {
	return &verify.Report{SchemaVersion: 1, Mode: "objects", NotesRef: "refs/notes/speccoder", Conclusion: verify.Failure,
		Ticks: []verify.TickResult{}, Unticks: []verify.TickResult{}, Summary: map[string]int{},
		Objects: []verify.ObjectResult{
			{Object: ciHash("a1"), Kind: verify.ObjectTick, Task: "001-greeting/T001", TaskID: "T001", Unit: ciUnit, Verdict: "verified", Outcome: verify.OK, Reasons: []verify.Reason{}, Signers: []trust.Signer{}},
			{Object: ciHash("b2"), Kind: verify.ObjectTick, Outcome: verify.Missing, Reasons: []verify.Reason{{Code: verify.CodeNoEvidence, Message: "no note on this commit under refs/notes/speccoder", Outcome: verify.Missing}}},
			{Object: ciHash("c3"), Kind: verify.ObjectTick, Task: "001-greeting/T003", TaskID: "T003", Unit: ciUnit, Verdict: "verified", Outcome: verify.Mismatch,
				// Two signers; the principal holds text every format must escape.
				Signers: []trust.Signer{{Kind: signer.KindSSH, KeyID: "SHA256:abc", Principal: "dev|<b>x</b>@example.invalid"},
					{Kind: signer.KindSigstore, KeyID: "ci@example.invalid", Identity: "ci@example.invalid", Issuer: "https://issuer.example"}},
				Reasons: []verify.Reason{
					{Code: verify.CodeTree, Field: "predicate.tree", Expected: "aaaa", Found: "bbbb", Outcome: verify.Mismatch},
					{Code: verify.CodePolicySHA256, Field: "predicate.policy_sha256", Expected: "cccc", Found: "dddd", Outcome: verify.Mismatch},
				}},
			{Object: ciHash("d4"), Kind: verify.ObjectDecision, Task: "add-auth/1.2", TaskID: "1.2", Unit: specfmt.Unit{Format: specfmt.OpenSpec, Feature: "add-auth", Dir: "openspec/changes/add-auth"}, Verdict: "attested", Outcome: verify.Unsigned, Reasons: []verify.Reason{{Code: verify.CodeUnsigned, Field: "line 1", Expected: "a signature", Found: "none", Outcome: verify.Unsigned}}},
			{Object: ciHash("e5"), Kind: verify.ObjectTick, Task: "x/T1", TaskID: "T1", Unit: specfmt.Unit{Format: specfmt.Speckit, Feature: "x", Dir: "../../etc/x"}, Outcome: verify.Malformed, Reasons: []verify.Reason{{Code: verify.CodePredicate, Field: "predicate", Message: "unit.dir: not a clean path", Outcome: verify.Malformed}}},
		}}
}

// ciNeutralReport has nothing to check.
func ciNeutralReport() *verify.Report {
	return &verify.Report{SchemaVersion: 1, Mode: "branch", NotesRef: "refs/notes/speccoder", Base: ciHash("00"), Head: ciHash("00"),
		Conclusion: verify.Neutral, Objects: []verify.ObjectResult{}, Ticks: []verify.TickResult{}, Unticks: []verify.TickResult{}, Summary: map[string]int{}}
}

// ciSuccessReport has one evidenced tick.
func ciSuccessReport() *verify.Report {
	r := ciNeutralReport()
	ok := ciBranchReport().Ticks[0]
	r.Ticks, r.Conclusion, r.Head = []verify.TickResult{ok}, verify.Success, ciHash("ff")
	return r
}

var ciOpts = CIOptions{ToolVersion: "1.2.3-test"}

// ciReports are the hand-made reports every format's golden test covers.
var ciReports = []struct {
	name string
	rep  func() *verify.Report
	opts CIOptions
}{
	{"branch", ciBranchReport, ciOpts},
	{"objects", ciObjectsReport, ciOpts},
	{"objects-require-verified", ciObjectsReport, CIOptions{ToolVersion: "1.2.3-test", Gate: verify.GateOptions{RequireVerified: true, AllowUnsigned: true}}},
	{"neutral", ciNeutralReport, ciOpts},
	{"success", ciSuccessReport, ciOpts},
}

// checkCIGolden compares got with testdata/golden/<name>, rewriting it under
// -update-ci-golden.
func checkCIGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *updateCIGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./verify -run CI -update-ci-golden to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update-ci-golden after checking the change)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func TestCIReportErrors(t *testing.T) {
	writers := map[string]func(*bytes.Buffer, *verify.Report) error{
		"sarif":   func(b *bytes.Buffer, r *verify.Report) error { return WriteSARIF(b, r, ciOpts) },
		"github":  func(b *bytes.Buffer, r *verify.Report) error { return WriteGitHub(b, r, ciOpts) },
		"summary": func(b *bytes.Buffer, r *verify.Report) error { return WriteGitHubSummary(b, r, ciOpts) },
		"junit":   func(b *bytes.Buffer, r *verify.Report) error { return WriteJUnit(b, r, ciOpts) },
	}
	for name, write := range writers {
		for _, rep := range []*verify.Report{nil, {Mode: "bogus"}} {
			var b bytes.Buffer
			err := write(&b, rep)
			if err == nil || !strings.Contains(err.Error(), "cannot write report") {
				t.Errorf("%s(%v): err = %v, want ErrReport", name, rep, err)
			}
			if b.Len() != 0 {
				t.Errorf("%s(%v) wrote %q before failing", name, rep, b.String())
			}
		}
	}
}

func TestCIItemsFailingAndRules(t *testing.T) {
	tests := []struct {
		name        string
		rep         *verify.Report
		opts        CIOptions
		wantRules   []string // rule of each item, "" when passing
		wantPaths   []string
		wantUnticks int
	}{
		{"branch", ciBranchReport(), ciOpts,
			[]string{"", verify.StatusStale, verify.ReasonTickedWithoutEvidence, verify.ReasonCommitUnreachable, string(verify.BadSignature), verify.ReasonEditedAfterTick, ""},
			[]string{"specs/001-greeting/tasks.md", "specs/001-greeting/tasks.md", "specs/001-greeting/tasks.md", "specs/001-greeting/tasks.md", "specs/001-greeting/tasks.md", "specs/001-greeting/tasks.md", "specs/001-greeting/tasks.md"}, 1},
		{"objects", ciObjectsReport(), ciOpts,
			[]string{"", string(verify.Missing), string(verify.Mismatch), string(verify.Unsigned), string(verify.Malformed)},
			[]string{"specs/001-greeting/tasks.md", "", "specs/001-greeting/tasks.md", "openspec/changes/add-auth/tasks.md", ""}, 0},
		{"objects allow unsigned", ciObjectsReport(), CIOptions{Gate: verify.GateOptions{AllowUnsigned: true}},
			[]string{"", string(verify.Missing), string(verify.Mismatch), "", string(verify.Malformed)},
			[]string{"specs/001-greeting/tasks.md", "", "specs/001-greeting/tasks.md", "openspec/changes/add-auth/tasks.md", ""}, 0},
		{"objects require verified", ciObjectsReport(), CIOptions{Gate: verify.GateOptions{AllowUnsigned: true, RequireVerified: true}},
			[]string{"", string(verify.Missing), string(verify.Mismatch), RuleNotVerified, string(verify.Malformed)},
			[]string{"specs/001-greeting/tasks.md", "", "specs/001-greeting/tasks.md", "openspec/changes/add-auth/tasks.md", ""}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := ciItems(tt.rep, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != len(tt.wantRules) {
				t.Fatalf("%d items, want %d", len(items), len(tt.wantRules))
			}
			unticks := 0
			for i, it := range items {
				if it.rule != tt.wantRules[i] || it.failing != (tt.wantRules[i] != "") {
					t.Errorf("item %d (%s): rule %q failing %v, want rule %q", i, it.task, it.rule, it.failing, tt.wantRules[i])
				}
				if it.path != tt.wantPaths[i] {
					t.Errorf("item %d (%s): path %q, want %q", i, it.task, it.path, tt.wantPaths[i])
				}
				if it.unticked {
					unticks++
				}
			}
			if unticks != tt.wantUnticks {
				t.Errorf("%d unticks, want %d", unticks, tt.wantUnticks)
			}
		})
	}
}

func TestCIFingerprint(t *testing.T) {
	items, err := ciItems(ciBranchReport(), ciOpts)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, it := range items {
		if !it.failing {
			continue
		}
		fp := it.fingerprint()
		if len(fp) != 64 {
			t.Errorf("%s: fingerprint %q is not 64 hex", it.task, fp)
		}
		if other, dup := seen[fp]; dup {
			t.Errorf("%s and %s share fingerprint %s", it.task, other, fp)
		}
		seen[fp] = it.task
		// The same task failing the same rule on another line or commit is the same alert.
		moved := it
		moved.line, moved.commit = it.line+40, ciHash("99")
		if moved.fingerprint() != fp {
			t.Errorf("%s: fingerprint changed when the line and commit moved", it.task)
		}
		// Another rule is another alert.
		other := it
		other.rule = "x" + it.rule
		if other.fingerprint() == fp {
			t.Errorf("%s: fingerprint ignores the rule", it.task)
		}
	}
}

// sarifDoc is the part of SARIF 2.1.0 GitHub code scanning requires, read back
// strictly enough to catch a missing or misspelt field.
type sarifDoc struct {
	Schema  *string `json:"$schema"`
	Version *string `json:"version"`
	Runs    []struct {
		Tool *struct {
			Driver *struct {
				Name           *string `json:"name"`
				Version        *string `json:"version"`
				InformationURI *string `json:"informationUri"`
				Rules          []struct {
					ID               *string `json:"id"`
					Name             string  `json:"name"`
					ShortDescription *struct {
						Text *string `json:"text"`
					} `json:"shortDescription"`
					DefaultConfiguration struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results *[]struct {
			RuleID    *string `json:"ruleId"`
			RuleIndex *int    `json:"ruleIndex"`
			Level     string  `json:"level"`
			Message   *struct {
				Text *string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation *struct {
					ArtifactLocation *struct {
						URI *string `json:"uri"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine *int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

func TestCISARIFGolden(t *testing.T) {
	for _, c := range ciReports {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteSARIF(&b, c.rep(), c.opts); err != nil {
				t.Fatal(err)
			}
			checkCIGolden(t, "ci-"+c.name+".sarif", b.Bytes())
		})
	}
}

// TestCISARIFStructure checks every report's SARIF has the fields SARIF 2.1.0
// and GitHub code scanning require: one run, the driver, rules whose index the
// results point at, one error result per failing item, each located.
func TestCISARIFStructure(t *testing.T) {
	for _, c := range ciReports {
		t.Run(c.name, func(t *testing.T) {
			rep := c.rep()
			var b bytes.Buffer
			if err := WriteSARIF(&b, rep, c.opts); err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(&b)
			var doc sarifDoc
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("output is not JSON: %v", err)
			}
			if doc.Schema == nil || *doc.Schema != "https://json.schemastore.org/sarif-2.1.0.json" {
				t.Errorf("$schema = %v", doc.Schema)
			}
			if doc.Version == nil || *doc.Version != "2.1.0" {
				t.Errorf("version = %v", doc.Version)
			}
			if len(doc.Runs) != 1 {
				t.Fatalf("%d runs, want 1", len(doc.Runs))
			}
			run := doc.Runs[0]
			if run.Tool == nil || run.Tool.Driver == nil {
				t.Fatal("no tool.driver")
			}
			d := run.Tool.Driver
			if d.Name == nil || *d.Name != "taskproof" || d.Version == nil || *d.Version != c.opts.ToolVersion ||
				d.InformationURI == nil || *d.InformationURI != "https://github.com/taskproof/taskproof" {
				t.Errorf("driver = %+v", d)
			}
			for i, r := range d.Rules {
				if r.ID == nil || *r.ID == "" || r.Name == "" || r.ShortDescription == nil || r.ShortDescription.Text == nil || *r.ShortDescription.Text == "" {
					t.Errorf("rule %d incomplete: %+v", i, r)
				}
				if r.DefaultConfiguration.Level != "error" {
					t.Errorf("rule %d level %q", i, r.DefaultConfiguration.Level)
				}
			}
			if run.Results == nil {
				t.Fatal("results absent (want an array, empty when nothing fails)")
			}
			items, err := ciItems(rep, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var failing []ciItem
			for _, it := range items {
				if it.failing {
					failing = append(failing, it)
				}
			}
			if len(*run.Results) != len(failing) {
				t.Fatalf("%d results, want %d (one per failing item)", len(*run.Results), len(failing))
			}
			usedRules := map[string]bool{}
			for i, res := range *run.Results {
				it := failing[i]
				if res.RuleID == nil || res.RuleIndex == nil || *res.RuleIndex < 0 || *res.RuleIndex >= len(d.Rules) || *d.Rules[*res.RuleIndex].ID != *res.RuleID {
					t.Errorf("result %d: ruleId/ruleIndex do not name a rule", i)
					continue
				}
				usedRules[*res.RuleID] = true
				if *res.RuleID != it.rule || res.Level != "error" {
					t.Errorf("result %d: rule %q level %q, want %q error", i, *res.RuleID, res.Level, it.rule)
				}
				if res.Message == nil || res.Message.Text == nil || !strings.Contains(*res.Message.Text, it.task) || !strings.Contains(*res.Message.Text, printable.Short(string(it.commit))) || !strings.Contains(*res.Message.Text, it.status) {
					t.Errorf("result %d: message does not name task and status: %+v", i, res.Message)
				}
				for _, r := range it.reasons {
					if !strings.Contains(*res.Message.Text, r.Code) || !strings.Contains(*res.Message.Text, r.Expected) || !strings.Contains(*res.Message.Text, r.Found) {
						t.Errorf("result %d: message misses reason %+v", i, r)
					}
				}
				if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation == nil || res.Locations[0].PhysicalLocation.ArtifactLocation == nil ||
					res.Locations[0].PhysicalLocation.ArtifactLocation.URI == nil || *res.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
					t.Errorf("result %d: no artifact location (GitHub rejects the upload)", i)
					continue
				}
				pl := res.Locations[0].PhysicalLocation
				wantURI := it.path
				if wantURI == "" {
					wantURI = rep.NotesRef
				}
				if *pl.ArtifactLocation.URI != wantURI {
					t.Errorf("result %d: uri %q, want %q", i, *pl.ArtifactLocation.URI, wantURI)
				}
				switch {
				case it.line > 0 && it.path != "":
					if pl.Region == nil || pl.Region.StartLine == nil || *pl.Region.StartLine != it.line {
						t.Errorf("result %d: region %+v, want startLine %d", i, pl.Region, it.line)
					}
				case pl.Region != nil:
					t.Errorf("result %d: region %+v for an unknown line", i, pl.Region)
				}
				if fp := res.PartialFingerprints[SARIFFingerprintKey]; fp != it.fingerprint() {
					t.Errorf("result %d: partialFingerprints = %v", i, res.PartialFingerprints)
				}
			}
			if len(usedRules) != len(d.Rules) {
				t.Errorf("%d rules for %d rule ids used", len(d.Rules), len(usedRules))
			}
		})
	}
}

func TestCISARIFURI(t *testing.T) {
	tests := []struct{ path, want string }{
		{"specs/001-greeting/tasks.md", "specs/001-greeting/tasks.md"},
		{".kiro/specs/a b/tasks.md", ".kiro/specs/a%20b/tasks.md"},
		{"specs/50%#?/tasks.md", "specs/50%25%23%3F/tasks.md"},
		{"c:/tasks.md", "./c:/tasks.md"},
		{"refs/notes/speccoder", "refs/notes/speccoder"},
	}
	for _, tt := range tests {
		if got := sarifURI(tt.path); got != tt.want {
			t.Errorf("sarifURI(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
