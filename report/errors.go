package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// ErrorResult is a verify run that ended in an error instead of a report
// (docs/format.md#precondition-errors-in-ci-formats), as the machine-readable
// formats write it, so that a CI step reading the output sees an error rather
// than nothing.
type ErrorResult struct {
	ExitCode    int    // the run's exit code, 1–5
	Kind        string // the exit code's class ("trust_or_config", …)
	Conclusion  string // "failure" (exit 1) or "error"
	Case        string // JUnit's errored test case
	Message     string
	ToolVersion string // taskproof's version, SARIF's tool.driver.version
}

// WriteErrorJSON writes e as the JSON report's error form: schema_version 1,
// e's conclusion and an error object (code, exit_code, message).
func WriteErrorJSON(w io.Writer, e ErrorResult) error {
	type jsonError struct {
		Code     string `json:"code"`
		ExitCode int    `json:"exit_code"`
		Message  string `json:"message"`
	}
	v := struct {
		SchemaVersion int       `json:"schema_version"`
		Conclusion    string    `json:"conclusion"`
		Error         jsonError `json:"error"`
	}{1, e.Conclusion, jsonError{e.Kind, e.ExitCode, e.Message}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// githubEscape escapes a workflow command's message as the runner reads it
// (%, CR, LF) and writes every other control character as \xNN, so that
// nothing from the repository drives the log.
func githubEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '%':
			b.WriteString("%25")
		case r == '\r':
			b.WriteString("%0D")
		case r == '\n':
			b.WriteString("%0A")
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WriteErrorGitHub writes e as one ::error:: workflow command.
func WriteErrorGitHub(w io.Writer, e ErrorResult) error {
	_, err := fmt.Fprintf(w, "::error title=taskproof verify::%s\n", githubEscape(e.Message))
	return err
}

// ErrorSummary is e as a job summary's Markdown section.
func ErrorSummary(e ErrorResult) string {
	return fmt.Sprintf("### taskproof verify: error (exit %d, %s)\n\n%s\n", e.ExitCode, e.Kind, e.Message)
}

// WriteErrorSARIF writes e as a SARIF log whose one run's invocation failed
// with a tool execution notification, and has no results.
func WriteErrorSARIF(w io.Writer, e ErrorResult) error {
	type text struct {
		Text string `json:"text"`
	}
	type notification struct {
		Level      string `json:"level"`
		Message    text   `json:"message"`
		Descriptor struct {
			ID string `json:"id"`
		} `json:"descriptor"`
	}
	type invocation struct {
		ExecutionSuccessful bool           `json:"executionSuccessful"`
		ExitCode            int            `json:"exitCode"`
		Notifications       []notification `json:"toolExecutionNotifications"`
	}
	n := notification{Level: "error", Message: text{e.Message}}
	n.Descriptor.ID = e.Kind
	type driver struct {
		Name           string `json:"name"`
		Version        string `json:"version"`
		InformationURI string `json:"informationUri"`
	}
	type run struct {
		Tool struct {
			Driver driver `json:"driver"`
		} `json:"tool"`
		Invocations []invocation `json:"invocations"`
		Results     []struct{}   `json:"results"`
	}
	r := run{Invocations: []invocation{{ExecutionSuccessful: false, ExitCode: e.ExitCode, Notifications: []notification{n}}}, Results: []struct{}{}}
	r.Tool.Driver = driver{Name: ToolName, Version: e.ToolVersion, InformationURI: ToolInformation}
	log := struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []run  `json:"runs"`
	}{SARIFSchema, "2.1.0", []run{r}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// WriteErrorJUnit writes e as a JUnit suite with one errored test case,
// named e.Case.
func WriteErrorJUnit(w io.Writer, e ErrorResult) error {
	type junitError struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	}
	type testcase struct {
		Classname string     `xml:"classname,attr"`
		Name      string     `xml:"name,attr"`
		Error     junitError `xml:"error"`
	}
	type suite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Errors   int        `xml:"errors,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	v := struct {
		XMLName  xml.Name `xml:"testsuites"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []suite  `xml:"testsuite"`
	}{Name: JUnitSuiteName, Tests: 1, Errors: 1, Suites: []suite{{
		Name: JUnitSuiteName, Tests: 1, Errors: 1,
		Cases: []testcase{{Classname: "taskproof", Name: e.Case, Error: junitError{Message: e.Message, Type: e.Kind, Body: e.Message}}},
	}}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
