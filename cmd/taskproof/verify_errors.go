package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/verify"
)

// errorKind names an exit code's class in machine-readable error results.
func errorKind(code int) string {
	switch code {
	case ExitFailure:
		return "unjudgeable_input"
	case ExitUsage:
		return "usage"
	case ExitTrust:
		return "trust_or_config"
	case ExitGit:
		return "git_precondition"
	}
	return "internal"
}

// writeErrorResult writes, for a verify run that ends in err with exit 1–5
// and a machine-readable --format, a result that says so on stdout, so that a
// CI step reading the output sees an error rather than nothing
// (docs/format.md#precondition-errors-in-ci-formats): a JSON object with
// conclusion "error", a ::error:: workflow command (and a job summary line),
// a SARIF run whose invocation failed with a tool execution notification, a
// JUnit suite with one errored test case. Failures to write are warnings: the
// exit code stays err's. A --json-report file that could not be written is
// not tried again: its error is the one err reports.
func writeErrorResult(c *cobra.Command, err error) {
	code := exitCode(err)
	if isSilent(err) || code < ExitFailure || code > ExitInternal {
		return
	}
	format, _ := c.Flags().GetString("format")
	out := c.OutOrStdout()
	msg := err.Error()
	kind := errorKind(code)
	if path, _ := c.Flags().GetString("json-report"); path != "" && !isType[*outputFileError](err) {
		if werr := writeOutputFile("--json-report", path, func(w io.Writer) error { return writeErrorJSON(w, code, kind, msg) }); werr != nil {
			fmt.Fprintf(c.ErrOrStderr(), "warning: %v\n", werr)
		}
	}
	var werr error
	switch format {
	case "json":
		werr = writeErrorJSON(out, code, kind, msg)
	case "github":
		werr = writeErrorGitHub(out, msg)
		if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
			if serr := appendText(path, fmt.Sprintf("### taskproof verify: error (exit %d, %s)\n\n%s\n", code, kind, msg)); serr != nil {
				fmt.Fprintf(c.ErrOrStderr(), "warning: %v (the job summary is not written; the exit code stands)\n", serr)
			}
		}
	case "sarif":
		werr = writeErrorSARIF(out, code, kind, msg)
	case "junit":
		werr = writeErrorJUnit(out, code, kind, msg)
	default:
		return
	}
	if werr != nil {
		fmt.Fprintf(c.ErrOrStderr(), "warning: writing the %s error result: %v\n", format, werr)
	}
}

func writeErrorJSON(w io.Writer, code int, kind, msg string) error {
	type jsonError struct {
		Code     string `json:"code"`
		ExitCode int    `json:"exit_code"`
		Message  string `json:"message"`
	}
	v := struct {
		SchemaVersion int       `json:"schema_version"`
		Conclusion    string    `json:"conclusion"`
		Error         jsonError `json:"error"`
	}{1, conclusionOf(code), jsonError{kind, code, msg}}
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

func writeErrorGitHub(w io.Writer, msg string) error {
	_, err := fmt.Fprintf(w, "::error title=taskproof verify::%s\n", githubEscape(msg))
	return err
}

func writeErrorSARIF(w io.Writer, code int, kind, msg string) error {
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
	n := notification{Level: "error", Message: text{msg}}
	n.Descriptor.ID = kind
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
	r := run{Invocations: []invocation{{ExecutionSuccessful: false, ExitCode: code, Notifications: []notification{n}}}, Results: []struct{}{}}
	r.Tool.Driver = driver{Name: verify.ToolName, Version: attest.Version, InformationURI: verify.ToolInformation}
	log := struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []run  `json:"runs"`
	}{verify.SARIFSchema, "2.1.0", []run{r}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func writeErrorJUnit(w io.Writer, code int, kind, msg string) error {
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
	}{Name: verify.JUnitSuiteName, Tests: 1, Errors: 1, Suites: []suite{{
		Name: verify.JUnitSuiteName, Tests: 1, Errors: 1,
		Cases: []testcase{{Classname: "taskproof", Name: junitErrorCase(code), Error: junitError{Message: msg, Type: kind, Body: msg}}},
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

// junitErrorCase names the errored test case of writeErrorJUnit: "internal"
// for taskproof's own bug (exit 5), "preconditions" for the rest.
func junitErrorCase(code int) string {
	if code == ExitInternal {
		return "internal"
	}
	return "preconditions"
}

// appendText appends s to the file at path (created if absent, as the runner
// does for $GITHUB_STEP_SUMMARY).
func appendText(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	if _, err := io.WriteString(f, s); err != nil {
		f.Close()
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	return nil
}

// conclusionOf is the conclusion of a run that ended in an error with exit
// code: "failure" for a gate that failed because it could not judge its input
// (exit 1), "error" for the preconditions and taskproof's own bugs (exit 2–5).
func conclusionOf(code int) string {
	if code == ExitFailure {
		return "failure"
	}
	return "error"
}
