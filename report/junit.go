package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// JUnitSuiteName is the name of the one <testsuite> WriteJUnit writes.
const JUnitSuiteName = "taskproof verify"

// JUnit XML, in the shape CI test reporters (GitHub, GitLab, Jenkins) read.
type (
	junitTestsuites struct {
		XMLName  xml.Name         `xml:"testsuites"`
		Name     string           `xml:"name,attr"`
		Tests    int              `xml:"tests,attr"`
		Failures int              `xml:"failures,attr"`
		Errors   int              `xml:"errors,attr"`
		Skipped  int              `xml:"skipped,attr"`
		Suites   []junitTestsuite `xml:"testsuite"`
	}
	junitTestsuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitTestcase `xml:"testcase"`
	}
	junitProperties struct {
		Property []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitTestcase struct {
		Classname  string           `xml:"classname,attr"`
		Name       string           `xml:"name,attr"`
		File       string           `xml:"file,attr,omitempty"`
		Line       int              `xml:"line,attr,omitempty"`
		Properties *junitProperties `xml:"properties,omitempty"`
		Failure    *junitFailure    `xml:"failure,omitempty"`
		Skipped    *junitSkipped    `xml:"skipped,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr,omitempty"`
	}
)

// WriteJUnit writes the report as JUnit XML: <testsuites> holding one
// <testsuite name="taskproof verify"> with one <testcase classname="<unit dir>"
// name="<task> @ <short commit>"> per tick (branch mode) or object (objects
// mode). A failing one holds <failure message="<status (reason)>" type="<rule>">
// whose body lists the reasons (code, field, expected, found). A testcase whose
// tick or object credits signers holds <properties> with, per signer,
// signer.N.kind, signer.N.keyid and signer.N.principal, and for a Sigstore
// signer signer.N.identity, signer.N.issuer and signer.N.tlog_index (N from 1;
// tlog_index absent without a log entry). An untick is a
// testcase holding <skipped message="unticked"/>; a report with nothing to check
// holds one testcase with <skipped/>, so CI shows the run. errors is always 0: a
// verification problem is a failure. Text is escaped by encoding/xml (characters
// XML cannot hold become U+FFFD). Errors wrap ErrReport for a nil report or
// unknown mode, or are w's.
func WriteJUnit(w io.Writer, rep *verify.Report, opts CIOptions) error {
	items, err := ciItems(rep, opts)
	if err != nil {
		return err
	}
	suite := junitTestsuite{Name: JUnitSuiteName, Properties: []junitProperty{
		{"mode", rep.Mode}, {"conclusion", rep.Conclusion}, {"notes_ref", rep.NotesRef},
	}}
	if rep.Base != "" {
		suite.Properties = append(suite.Properties, junitProperty{"base", string(rep.Base)})
	}
	if rep.Head != "" {
		suite.Properties = append(suite.Properties, junitProperty{"head", string(rep.Head)})
	}
	for _, it := range items {
		classname := it.unitDir
		if classname == "" {
			classname = ToolName
		}
		tc := junitTestcase{Classname: classname, Name: it.taskText() + " @ " + printable.Short(string(it.commit)), File: it.path, Line: it.line,
			Properties: junitWarnings(junitSigners(it.signers), it.warnings)}
		switch {
		case it.unticked:
			tc.Name += " (unticked)"
			tc.Skipped = &junitSkipped{Message: "unticked"}
			suite.Skipped++
		case it.failing:
			tc.Failure = &junitFailure{Message: it.statusText(), Type: it.rule, Body: it.text()}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	if len(suite.Cases) == 0 {
		suite.Cases = append(suite.Cases, junitTestcase{Classname: ToolName, Name: "nothing to check", Skipped: &junitSkipped{}})
		suite.Skipped++
	}
	suite.Tests = len(suite.Cases)
	doc := junitTestsuites{Name: ToolName, Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Suites: []junitTestsuite{suite}}
	var b strings.Builder
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err = io.WriteString(w, b.String())
	return err
}

// junitSigners are a testcase's signer properties (see WriteJUnit); nil when
// there are no signers, so no empty <properties/> is written.
func junitSigners(ss []trust.Signer) *junitProperties {
	if len(ss) == 0 {
		return nil
	}
	var out []junitProperty
	for i, s := range ss {
		p := fmt.Sprintf("signer.%d.", i+1)
		out = append(out, junitProperty{p + "kind", string(s.Kind)}, junitProperty{p + "keyid", s.KeyID},
			junitProperty{p + "principal", s.Principal})
		if s.Identity != "" || s.Issuer != "" {
			out = append(out, junitProperty{p + "identity", s.Identity}, junitProperty{p + "issuer", s.Issuer})
		}
		if s.TlogIndex != nil {
			out = append(out, junitProperty{p + "tlog_index", fmt.Sprint(*s.TlogIndex)})
		}
	}
	return &junitProperties{Property: out}
}
