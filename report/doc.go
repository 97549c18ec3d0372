// Package report writes a verification report (verify.Report) for people and
// for CI: text (WriteText), GitHub workflow commands
// and a job summary (WriteGitHub, WriteGitHubSummary), SARIF 2.1.0
// (WriteSARIF) and JUnit XML (WriteJUnit); and a run that ended in an error
// instead of a report in the machine-readable formats (ErrorResult,
// docs/format.md#precondition-errors-in-ci-formats). The JSON report is the
// Report's own encoding, verify.WriteJSON, written where its spool holds it.
//
// The writers read a report through its exported fields and iterators
// (Report.AllTicks, Report.TickSummaries), never its spool; every text from
// the repository passes through internal/printable where people read it.
package report
