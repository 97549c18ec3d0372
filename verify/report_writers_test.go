package verify_test

import (
	"io"

	"github.com/taskproof/taskproof/report"
	"github.com/taskproof/taskproof/verify"
)

func init() {
	verify.ReportWriters = func(opts verify.GateOptions) []verify.ReportWriter {
		ci := report.CIOptions{Gate: opts}
		return []verify.ReportWriter{
			{Format: "text", Write: func(w io.Writer, r *verify.Report) error { return report.WriteText(w, r, false) }},
			{Format: "sarif", Write: func(w io.Writer, r *verify.Report) error { return report.WriteSARIF(w, r, ci) }},
			{Format: "github", Write: func(w io.Writer, r *verify.Report) error { return report.WriteGitHub(w, r, ci) }},
			{Format: "github-summary", Write: func(w io.Writer, r *verify.Report) error { return report.WriteGitHubSummary(w, r, ci) }},
			{Format: "junit", Write: func(w io.Writer, r *verify.Report) error { return report.WriteJUnit(w, r, ci) }},
		}
	}
}
