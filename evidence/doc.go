// Package evidence is what a tick's test reports and red run say
// (docs/format.md#test-reports, docs/format.md#verdict-from-evidence): the
// evidence `taskproof attest tick` puts in the task-verification predicate.
//
//   - [FromReports] turns the red and green test reports into trace rows,
//     the judged test files' collection, the red run and, when the request
//     gives none, the verdict and regression reason; a verdict, reason or red
//     kind the request gives is checked against them ([ContradictionError]).
//     [Why] says why the reports give the verdict.
//   - [ReadRedOutput] reads a red run's captured output within bounded
//     memory, and [CheckRedOutput] checks what it shows against the request.
//   - [ReadLimited], [MaxTestReport] and [MaxEvidenceFile] bound what is read
//     of the input files.
//
// Parsing the runners' report formats is package testreport's; building and
// signing the statements is package attest's.
package evidence
