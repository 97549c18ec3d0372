package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/printable"
)

func TestCIJUnitGolden(t *testing.T) {
	for _, c := range ciReports {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteJUnit(&b, c.rep(), c.opts); err != nil {
				t.Fatal(err)
			}
			checkCIGolden(t, "ci-"+c.name+".junit.xml", b.Bytes())
		})
	}
}

// junitDoc reads JUnit XML back with its own struct (not the writer's), so a
// misspelt tag or attribute fails.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   string `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			File      string `xml:"file,attr"`
			Line      int    `xml:"line,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestCIJUnitParsesBack(t *testing.T) {
	for _, c := range ciReports {
		t.Run(c.name, func(t *testing.T) {
			rep := c.rep()
			var b bytes.Buffer
			if err := WriteJUnit(&b, rep, c.opts); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(b.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
				t.Errorf("no XML declaration: %q", b.String()[:40])
			}
			var doc junitDoc
			dec := xml.NewDecoder(&b)
			dec.Strict = true
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("not well-formed: %v", err)
			}
			if len(doc.Suites) != 1 || doc.Suites[0].Name != "taskproof verify" {
				t.Fatalf("suites = %+v, want one named taskproof verify", doc.Suites)
			}
			s := doc.Suites[0]
			items, _ := ciItems(rep, c.opts)
			wantCases, wantFail, wantSkip := len(items), 0, 0
			for _, it := range items {
				if it.failing {
					wantFail++
				}
				if it.unticked {
					wantSkip++
				}
			}
			if wantCases == 0 {
				wantCases, wantSkip = 1, 1
			}
			if s.Tests != wantCases || len(s.Cases) != wantCases || s.Failures != wantFail || s.Skipped != wantSkip || s.Errors != "0" {
				t.Errorf("suite counts tests=%d cases=%d failures=%d skipped=%d errors=%q, want %d %d %d %d 0",
					s.Tests, len(s.Cases), s.Failures, s.Skipped, s.Errors, wantCases, wantCases, wantFail, wantSkip)
			}
			if doc.Tests != s.Tests || doc.Failures != s.Failures || doc.Skipped != s.Skipped {
				t.Errorf("testsuites counts %d/%d/%d differ from the suite's", doc.Tests, doc.Failures, doc.Skipped)
			}
			props := map[string]string{}
			for _, p := range s.Props {
				props[p.Name] = p.Value
			}
			if props["conclusion"] != rep.Conclusion || props["mode"] != rep.Mode {
				t.Errorf("properties %v", props)
			}
			if len(items) == 0 {
				if s.Cases[0].Skipped == nil || s.Cases[0].Failure != nil {
					t.Errorf("nothing to check: want one skipped case, got %+v", s.Cases[0])
				}
				return
			}
			for i, it := range items {
				tc := s.Cases[i]
				wantClass := it.unitDir
				if wantClass == "" {
					wantClass = "taskproof"
				}
				if tc.Classname != wantClass || !strings.HasPrefix(tc.Name, it.taskText()+" @ "+printable.Short(string(it.commit))) {
					t.Errorf("case %d: classname %q name %q", i, tc.Classname, tc.Name)
				}
				if tc.File != it.path || tc.Line != map[bool]int{true: it.line, false: 0}[it.path != ""] {
					t.Errorf("case %d: file %q line %d, want %q %d", i, tc.File, tc.Line, it.path, it.line)
				}
				switch {
				case it.failing:
					if tc.Failure == nil {
						t.Errorf("case %d (%s): no failure", i, it.task)
						continue
					}
					if tc.Failure.Type != it.rule || tc.Failure.Message != it.statusText() {
						t.Errorf("case %d: failure type %q message %q", i, tc.Failure.Type, tc.Failure.Message)
					}
					// The body lists every reason's code, field, expected and found
					// (text XML cannot hold comes back as U+FFFD; CR as LF).
					for _, r := range it.reasons {
						for _, part := range []string{r.Code, r.Field, r.Expected, r.Found} {
							if !strings.Contains(tc.Failure.Body, part) {
								t.Errorf("case %d: failure body misses %q of %+v:\n%s", i, part, r, tc.Failure.Body)
							}
						}
					}
				case it.unticked:
					if tc.Skipped == nil || tc.Failure != nil {
						t.Errorf("case %d: untick not skipped", i)
					}
				default:
					if tc.Failure != nil || tc.Skipped != nil {
						t.Errorf("case %d (%s): passing case has failure or skipped", i, it.task)
					}
				}
			}
		})
	}
}

// TestCIJUnitHostileText checks text XML cannot hold does not break the
// document: control characters arrive escaped (Printable), markup as text.
func TestCIJUnitHostileText(t *testing.T) {
	rep := ciBranchReport()
	rep.Ticks[2].Message = "bell\x07 nul\x00 ]]> </failure><x a=\"&\">"
	rep.Ticks[2].Path = "specs/a\"<b>&/tasks.md"
	var b bytes.Buffer
	if err := WriteJUnit(&b, rep, ciOpts); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	dec := xml.NewDecoder(&b)
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, b.String())
	}
	tc := doc.Suites[0].Cases[2]
	if tc.File != "specs/a\"<b>&/tasks.md" {
		t.Errorf("file = %q", tc.File)
	}
	if tc.Failure == nil || !strings.Contains(tc.Failure.Body, `bell\x07 nul\x00 ]]> </failure><x a="&">`) {
		t.Errorf("failure body = %+v", tc.Failure)
	}
}
