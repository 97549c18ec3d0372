package attest

import "github.com/taskproof/taskproof/statement"

// Exported for the external tests (package attest_test) only.
var (
	FindTask    = findTask
	LineSubject = lineSubject
)

// lineSubject is the subject name and predicateType of the Statement
// [statement.FromLine] reads from a note line.
func lineSubject(line []byte) (name, predicateType string, ok bool) {
	st, _, ok := statement.FromLine(line)
	if !ok {
		return "", "", false
	}
	return st.Subjects[0].Name, st.PredicateType, true
}
