package attest

// Exported for the external tests (package attest_test) only.
var (
	FindTask    = findTask
	LineSubject = lineSubject
)
