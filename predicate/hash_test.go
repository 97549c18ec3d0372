package predicate

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/predicate/specfmt"
)

// TestExcerptVectors checks testdata/vectors/excerpt/NAME.out against NAME.json
// (expected red fields made with python3 hashlib; withheld decided by hand).
func TestExcerptVectors(t *testing.T) {
	outs, _ := filepath.Glob(filepath.Join(vectorDir(t, "excerpt"), "*.out"))
	if len(outs) < 15 {
		t.Fatalf("found %d excerpt vectors", len(outs))
	}
	for _, out := range outs {
		name := strings.TrimSuffix(filepath.Base(out), ".out")
		t.Run(name, func(t *testing.T) {
			output, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(strings.TrimSuffix(out, ".out") + ".json")
			if err != nil {
				t.Fatal(err)
			}
			var want struct {
				Excerpt       *string `json:"excerpt"`
				ExcerptSHA256 *string `json:"excerpt_sha256"`
				OutputSHA256  string  `json:"output_sha256"`
				Withheld      bool    `json:"withheld"`
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			got := NewRed(RedAssertion, output)
			if got.OutputSHA256 != want.OutputSHA256 || got.Withheld != want.Withheld {
				t.Errorf("output_sha256/withheld = %s/%v, want %s/%v (reason %q)", got.OutputSHA256, got.Withheld,
					want.OutputSHA256, want.Withheld, WithheldReason(string(output[max(0, len(output)-MaxExcerpt):])))
			}
			checkOpt := func(field string, o Opt[string], w *string) {
				if w == nil {
					if !o.Set || !o.Null {
						t.Errorf("%s = %+v, want null", field, o)
					}
				} else if v, ok := o.Get(); !ok || v != *w {
					t.Errorf("%s = %q, want %q", field, v, *w)
				}
			}
			checkOpt("excerpt", got.Excerpt, want.Excerpt)
			checkOpt("excerpt_sha256", got.ExcerptSHA256, want.ExcerptSHA256)
		})
	}
}

func TestOutputSHA256Vectors(t *testing.T) {
	outs, _ := filepath.Glob(filepath.Join(vectorDir(t, "output_sha256"), "*.out"))
	if len(outs) < 4 {
		t.Fatalf("found %d output_sha256 vectors", len(outs))
	}
	for _, out := range outs {
		output, _ := os.ReadFile(out)
		want, err := os.ReadFile(strings.TrimSuffix(out, ".out") + ".sha256")
		if err != nil {
			t.Fatal(err)
		}
		if got := OutputSHA256(output); got != strings.TrimSpace(string(want)) {
			t.Errorf("%s: OutputSHA256 = %s, want %s", filepath.Base(out), got, want)
		}
	}
}

// TestPolicyVectors checks testdata/vectors/policy_sha256/NAME.toml (absent for
// no_file: no speccoder.toml) against NAME.json and NAME.sha256 (sha256sum of
// NAME.json). NAME.json is what Rust's toml (0.5.11) + serde_json (1.0.87) give
// for the recipe's outer layout, see testdata/vectors/policy_sha256/README.md.
func TestPolicyVectors(t *testing.T) {
	jsons, _ := filepath.Glob(filepath.Join(vectorDir(t, "policy_sha256"), "*.json"))
	if len(jsons) < 5 {
		t.Fatalf("found %d policy vectors", len(jsons))
	}
	for _, j := range jsons {
		base := strings.TrimSuffix(j, ".json")
		t.Run(filepath.Base(base), func(t *testing.T) {
			wantJSON, _ := os.ReadFile(j)
			wantHash, err := os.ReadFile(base + ".sha256")
			if err != nil {
				t.Fatal(err)
			}
			toml, err := os.ReadFile(base + ".toml")
			if errors.Is(err, os.ErrNotExist) {
				toml = nil
			} else if err != nil {
				t.Fatal(err)
			}
			got, err := PolicyJSON(toml)
			if err != nil {
				t.Fatalf("PolicyJSON: %v", err)
			}
			if !bytes.Equal(got, wantJSON) {
				t.Errorf("PolicyJSON\n got %s\nwant %s", got, wantJSON)
			}
			h, err := PolicySHA256(toml)
			if err != nil || h != strings.TrimSpace(string(wantHash)) {
				t.Errorf("PolicySHA256 = %s (%v), want %s", h, err, wantHash)
			}
		})
	}
}

// TestPolicyErrors: only a file that is not TOML cannot be hashed; the values
// serde_json::to_value gives no number (NaN, ±Inf) are null and a non-table
// [attest]/[model] reads as absent (docs/format.md#policy_sha256), as speccoder
// reads them.
func TestPolicyErrors(t *testing.T) {
	for name, toml := range map[string]string{
		"not toml":      "[acceptance\n",
		"duplicate key": "[tests]\na = 1\na = 2\n",
	} {
		if _, err := PolicySHA256([]byte(toml)); !errors.Is(err, ErrPolicy) {
			t.Errorf("%s: err = %v, want ErrPolicy", name, err)
		}
	}
	absent, err := PolicySHA256(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ toml, want string }{
		"attest scalar":    {"attest = 5\n", absent},
		"model array":      {"model = [1]\n", absent},
		"signer not str":   {"[attest]\nsigner = 1\n", absent},
		"provider not str": {"[model]\nprovider = true\nmodel = 1979-05-27\n", absent},
		"nan in a table":   {"[tests]\nx = nan\n", `"tests":{"x":null}`},
		"inf in an array":  {"[checks]\nx = [1.0, -inf]\n", `"checks":{"x":[1.0,null]}`},
		"datetime":         {"[tests]\nx = 2026-01-02T03:04:05.60Z\n", `"tests":{"x":{"$__toml_private_datetime":"2026-01-02T03:04:05.6Z"}}`},
	} {
		h, err := PolicySHA256([]byte(tc.toml))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(tc.want) == 64 {
			if h != tc.want {
				t.Errorf("%s: %s, want the hash of no file", name, h)
			}
			continue
		}
		b, _ := PolicyJSON([]byte(tc.toml))
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %s, want it to hold %s", name, b, tc.want)
		}
	}
}

func TestLineAndSectionHash(t *testing.T) {
	// Expected values: printf '%s' ... | sha256sum.
	tests := []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"- [ ] T001 Do it", "010ba507c349f4013e9e186369d7f75e2b4123bfdf539ff8ebf627f063791146"},
	}
	for _, tt := range tests {
		if got := LineHash(tt.in); got != tt.want {
			t.Errorf("LineHash(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := SectionHash([]byte(tt.in)); got != tt.want {
			t.Errorf("SectionHash(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestWithheldPatterns(t *testing.T) {
	tests := []struct {
		text   string
		reason string // "" = clean
	}{
		{"ok 3 tests passed", ""},
		{"see src/lib.rs:10 and 1/2 and and/or", ""},
		{"https://example.com/a/b?x=1 is fine", ""},
		{"ratio 10/20/30", ""},
		{"task-runner skip-this", ""},
		{"tokens: 3 passed", "secret_assignment"}, // over-withholding is the safe side
		{"at /usr/lib/python3/x.py", "unix_path"},
		{`File "/home/a/b.py"`, "unix_path"},
		{"PATH=/usr/bin:/bin", "unix_path"},
		{"open ~/.ssh/id", "home_path"},
		{`D:\work\x`, "windows_path"},
		{`\\server\share`, "windows_path"},
		{"file:///etc/passwd", "file_url"},
		{"git clone https://u:p@h/r", "url_credentials"},
		{"ssh://git@host/r", "url_credentials"},
		{"-----BEGIN RSA PRIVATE KEY-----", "private_key"},
		{"-----END PGP PRIVATE KEY BLOCK-----", "private_key"},
		{"id ASIAABCDEFGHIJKLMNOP", "aws_key"},
		{"gho_abcdefghijklmnopqrstuvwxyz", "github_token"},
		{"github_pat_11ABCDEFG0123456789_abcdef", "github_token"},
		{"xoxp-123456789012", "slack_token"},
		{"sk-ant-api03-abcdefghijklmnop", "sk_token"},
		{"sk_live_abcdefghijklmnopqrst", "sk_token"},
		{"AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "google_key"},
		{"npm_abcdefghijklmnopqrstuvwxyz0123456789", "package_token"},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.sig", "jwt"},
		{"Authorization: Basic dXNlcjpwYXNz", "bearer"},
		{"Bearer abcdefghijklmnopqrstuvwxyz", "bearer"},
		{"password=hunter2", "secret_assignment"},
		{"Secret: x", "secret_assignment"},
		{`"api_key": "k"`, "secret_assignment"},
		{"AWS_SECRET_ACCESS_KEY = abc", "secret_assignment"},
	}
	for _, tt := range tests {
		if got := WithheldReason(tt.text); got != tt.reason {
			t.Errorf("WithheldReason(%q) = %q, want %q", tt.text, got, tt.reason)
		}
	}
}

func TestExcerptBoundary(t *testing.T) {
	// 3-byte characters: the cut at len-2048 falls inside one and moves forward.
	out := []byte(strings.Repeat("日", 1000))
	ex, withheld := Excerpt(out)
	if withheld || len(ex) != 2046 || !strings.HasPrefix(ex, "日") {
		t.Errorf("len %d withheld %v", len(ex), withheld)
	}
	short := []byte("short")
	if ex, _ := Excerpt(short); ex != "short" {
		t.Errorf("Excerpt(short) = %q", ex)
	}
}

var hexTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

func buildInput() Input {
	line := "- [x] T012 [US1] Parse config"
	return Input{
		Unit:    specfmt.Unit{Format: specfmt.Speckit, Feature: "007-config", Dir: "specs/007-config"},
		Task:    specfmt.Task{ID: "T012", Line: line, BoxCol: 3, Box: 'x', Title: "Parse config", Story: "US1"},
		Section: &specfmt.SectionText{Name: "US1", Text: []byte("### User Story 1\nText")},
		Tree:    hexTree,
		Policy:  nil,
		Red:     &RedRun{Kind: RedAssertion, Output: []byte("FAIL: want 3, got 2\n")},
		Evidence: []byte(`{"trace":[{"phase":"green"}],"monitor":{"state":"clean","findings":[]},"mutation":null,
			"regression":{"reason":"no_scenarios","story":"US1"},"future":{"kept":true}}`),
		Verdict: RegressionOnly,
		Time:    time.Date(2025, 1, 2, 3, 4, 5, 999, time.FixedZone("x", 3600)),
	}
}

func TestBuild(t *testing.T) {
	p, err := Build(buildInput())
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	c, err := p.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	// The built predicate validates and round-trips.
	q, err := Decode(c)
	if err != nil {
		t.Fatalf("Decode(built): %v", err)
	}
	c2, _ := q.Canonical()
	if !bytes.Equal(c, c2) {
		t.Errorf("built predicate does not round-trip")
	}
	var got map[string]any
	if err := json.Unmarshal(c, &got); err != nil {
		t.Fatal(err)
	}
	// Independent expectations: printf '%s' '- [ ] T012 [US1] Parse config' | sha256sum, etc.
	checks := map[string]any{
		"revision": float64(3),
		"time":     "2025-01-02T02:04:05Z",
		"verdict":  "regression_only",
		"tree":     hexTree,
	}
	for k, want := range checks {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	if p.Task.LineHash != sha256Hex([]byte("- [ ] T012 [US1] Parse config")) {
		t.Errorf("line_hash = %s", p.Task.LineHash)
	}
	if s, _ := p.Spec.Get(); s.SectionHash != sha256Hex([]byte("### User Story 1\nText")) || s.Section.V != "US1" {
		t.Errorf("spec = %+v", s)
	}
	if p.PolicySHA256 != "6746c220657b8bc11346de7a9de0d3f100a6effb73cf41056aa0b3f39a1146b1" {
		t.Errorf("policy_sha256 = %s", p.PolicySHA256)
	}
	if got["future"] == nil || !p.Mutation.Null || got["red"] == nil {
		t.Errorf("evidence not copied: %s", c)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Input)
		field string
	}{
		{"computed field in evidence", func(in *Input) { in.Evidence = []byte(`{"tree":"x","regression":{"reason":"no_story"}}`) }, "evidence.tree"},
		{"wrong type of object field", func(in *Input) { in.Evidence = []byte(`{"monitor":"clean","regression":{"reason":"no_story"}}`) }, "evidence.monitor"},
		{"trace not an array", func(in *Input) { in.Evidence = []byte(`{"trace":"x","regression":{"reason":"no_story"}}`) }, "evidence.trace"},
		{"trace row not an object", func(in *Input) { in.Evidence = []byte(`{"trace":[{"test":"a"},1],"regression":{"reason":"no_story"}}`) }, "evidence.trace[1]"},
		{"trace an object", func(in *Input) { in.Evidence = []byte(`{"trace":{"a":1},"regression":{"reason":"no_story"}}`) }, "evidence.trace"},
		{"run not an object", func(in *Input) { in.Evidence = []byte(`{"run":5,"regression":{"reason":"no_story"}}`) }, "evidence.run"},
		{"decisions not an array", func(in *Input) { in.Evidence = []byte(`{"decisions":"x","regression":{"reason":"no_story"}}`) }, "evidence.decisions"},
		{"decision not an object", func(in *Input) { in.Evidence = []byte(`{"decisions":["x"],"regression":{"reason":"no_story"}}`) }, "evidence.decisions[0]"},
		{"instructions not an array", func(in *Input) {
			in.Evidence = []byte(`{"instructions":"AGENTS.md","regression":{"reason":"no_story"}}`)
		}, "evidence.instructions"},
		{"wrong type in regression", func(in *Input) { in.Evidence = []byte(`{"regression":{"reason":7}}`) }, "evidence.regression.reason"},
		{"wrong type in collection", func(in *Input) {
			in.Evidence = []byte(`{"regression":{"reason":"no_story"},"collection":{"files":[{"path":"a","state":"collected","tests":"3","test_ids":[]}]}}`)
		}, "evidence.collection.files[0].tests"},
		{"regression_only without reason", func(in *Input) { in.Evidence = []byte(`{}`) }, "evidence.regression"},
		{"regression null", func(in *Input) { in.Evidence = []byte(`{"regression":null}`) }, "evidence.regression"},
		{"regression on verified", func(in *Input) { in.Verdict = Verified }, "evidence.regression"},
		{"unrecorded written", func(in *Input) { in.Evidence = []byte(`{"regression":{"reason":"unrecorded"}}`) }, "evidence.regression.reason"},
		{"reason without its field", func(in *Input) { in.Evidence = []byte(`{"regression":{"reason":"no_scenarios"}}`) }, "evidence"},
		{"evidence not an object", func(in *Input) { in.Evidence = []byte(`[]`) }, "evidence"},
		{"bad verdict", func(in *Input) { in.Verdict = "great" }, "verdict"},
		{"decision without decider", func(in *Input) { in.Verdict = Attested }, "decider"},
		{"tick with decider", func(in *Input) { in.Decider = &Decider{By: "a", Reason: "b"} }, "decider"},
		{"bad tree", func(in *Input) { in.Tree = "HEAD" }, "tree"},
		{"bad box column", func(in *Input) { in.Task.BoxCol = 99 }, "task.line"},
		{"bad format", func(in *Input) { in.Unit.Format = "jira" }, "unit.format"},
		{"zero time", func(in *Input) { in.Time = time.Time{} }, "time"},
		{"bad red kind", func(in *Input) { in.Red.Kind = "boom" }, "red.kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := buildInput()
			tt.edit(&in)
			_, err := Build(in)
			var be *BuildError
			if !errors.As(err, &be) || !errors.Is(err, ErrBuild) {
				t.Fatalf("err = %v, want a *BuildError", err)
			}
			if be.Field != tt.field {
				t.Errorf("Field = %q, want %q (%v)", be.Field, tt.field, err)
			}
		})
	}
	// Strict decoding applies to evidence too.
	in := buildInput()
	in.Evidence = []byte(`{"Monitor":{}}`)
	if _, err := Build(in); !errors.Is(err, ErrMalformed) {
		t.Errorf("case-variant evidence key: %v", err)
	}
	in = buildInput()
	in.Policy = []byte("[attest\n") // not TOML
	if _, err := Build(in); !errors.Is(err, ErrPolicy) {
		t.Errorf("bad policy: %v", err)
	}
}

func TestBuildDecision(t *testing.T) {
	in := buildInput()
	in.Verdict, in.Decider, in.Red, in.Section = Skipped, &Decider{By: "alice", Reason: "dup"}, nil, nil
	in.Evidence = nil
	in.Policy = []byte("[attest]\nsigner = \"ssh\"\n")
	p, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Spec.Null || p.Red.Set || p.Decider.V.By != "alice" || p.Regression.Set {
		t.Errorf("decision = %+v", p)
	}
	if v := p.Read(); v.Revision != 3 || v.Regression != nil || len(v.NewerFields) != 0 {
		t.Errorf("view = %+v", v)
	}
}

func vectorDir(t testing.TB, recipe string) string {
	t.Helper()
	return filepath.Join("..", "testdata", "vectors", recipe)
}
