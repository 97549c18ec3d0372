package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/report"
)

// writeErrorResult writes, for a verify run that ends in err with exit 1–5
// and a machine-readable format (--format), a result that says so on stdout, so that a
// CI step reading the output sees an error rather than nothing
// (docs/format.md#precondition-errors-in-ci-formats): a JSON object with
// conclusion "error", a ::error:: workflow command (and a job summary line),
// a SARIF run whose invocation failed with a tool execution notification, a
// JUnit suite with one errored test case; and the JSON result to the file
// jsonReport (verify's --json-report) when one is named, whatever the format.
// Failures to write are warnings: the exit code stays err's. A --json-report
// file that could not be written is not tried again: its error is the one err
// reports.
func writeErrorResult(c *cobra.Command, format, jsonReport string, err error) {
	code := cmdutil.ExitCode(err)
	if cmdutil.IsSilent(err) || code < cmdutil.ExitFailure || code > cmdutil.ExitInternal {
		return
	}
	out := c.OutOrStdout()
	res := report.ErrorResult{ExitCode: code, Kind: cmdutil.ErrorKind(code), Conclusion: conclusionOf(code), Case: junitErrorCase(code), Message: err.Error(), ToolVersion: attest.Version}
	if jsonReport != "" && !cmdutil.IsType[*cmdutil.OutputFileError](err) {
		if werr := cmdutil.WriteOutputFile("--json-report", jsonReport, func(w io.Writer) error { return report.WriteErrorJSON(w, res) }); werr != nil {
			fmt.Fprintf(c.ErrOrStderr(), "warning: %v\n", werr)
		}
	}
	var werr error
	switch format {
	case "json":
		werr = report.WriteErrorJSON(out, res)
	case "github":
		werr = report.WriteErrorGitHub(out, res)
		if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
			if serr := appendText(path, report.ErrorSummary(res)); serr != nil {
				fmt.Fprintf(c.ErrOrStderr(), "warning: %v (the job summary is not written; the exit code stands)\n", serr)
			}
		}
	case "sarif":
		werr = report.WriteErrorSARIF(out, res)
	case "junit":
		werr = report.WriteErrorJUnit(out, res)
	default:
		return
	}
	if werr != nil {
		fmt.Fprintf(c.ErrOrStderr(), "warning: writing the %s error result: %v\n", format, werr)
	}
}

// junitErrorCase names the errored test case of report.WriteErrorJUnit: "internal"
// for taskproof's own bug (exit 5), "preconditions" for the rest.
func junitErrorCase(code int) string {
	if code == cmdutil.ExitInternal {
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
	if code == cmdutil.ExitFailure {
		return "failure"
	}
	return "error"
}
