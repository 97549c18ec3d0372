// Package testreport reads the reports test runners write — JUnit XML (pytest
// --junitxml, Maven Surefire, jest-junit, cargo nextest, go-junit-report,
// vitest), `go test -json` and `cargo test`'s output — into one shape,
// [Report], and says what a report shows as evidence of a tick: how a red run
// failed and what decided it ([Report.Classify], against the [Change] the
// tick made), the failure output a red excerpt is cut from
// ([Report.FailureOutput]), and which changed test files a run collected
// ([Collect]). The mapping from reports to predicate fields is
// docs/format.md#test-reports; the classification
// docs/format.md#how-a-red-run-is-classified.
package testreport
