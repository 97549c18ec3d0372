package attest

// Exported for the external tests (package attest_test) only.
var (
	FindTask    = findTask
	LineSubject = lineSubject
)

// lineSubject is the subject name and predicateType of the Statement
// [LineStatement] reads from a note line.
func lineSubject(line []byte) (name, predicateType string, ok bool) {
	st, _, ok := LineStatement(line)
	if !ok {
		return "", "", false
	}
	return st.Subjects[0].Name, st.PredicateType, true
}
