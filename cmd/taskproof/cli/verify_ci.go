package cli

import (
	"fmt"
	"os"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/report"
	"github.com/taskproof/taskproof/verify"
)

// writeCIReport writes the sarif, github and junit formats to stdout, with
// the gate options the report was made with, so that objects mode's failing
// objects are the ones the conclusion counted. For
// github, when $GITHUB_STEP_SUMMARY names a file, a Markdown summary is appended
// to it (never truncated) after the workflow commands are written.
func writeCIReport(c *cobra.Command, format string, rep *verify.Report, gate verify.GateOptions) error {
	opts := report.CIOptions{ToolVersion: attest.Version, Gate: gate}
	out := c.OutOrStdout()
	switch format {
	case "sarif":
		return report.WriteSARIF(out, rep, opts)
	case "junit":
		return report.WriteJUnit(out, rep, opts)
	case "github":
		if err := report.WriteGitHub(out, rep, opts); err != nil {
			return err
		}
		if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
			if err := appendSummary(path, rep, opts); err != nil {
				// The summary is a convenience: the gate's result is the exit code.
				fmt.Fprintf(c.ErrOrStderr(), "warning: %v (the job summary is not written; the exit code stands)\n", err)
			}
		}
		return nil
	}
	return cmdutil.Usagef("unknown --format %q", format)
}

// appendSummary appends the Markdown job summary to path (created if absent,
// as the runner does).
func appendSummary(path string, rep *verify.Report, opts report.CIOptions) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	if err := report.WriteGitHubSummary(f, rep, opts); err != nil {
		f.Close()
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	return nil
}
