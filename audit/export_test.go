package audit

// ReadNotesInPackOrder sets whether Run reads the notes of --all in pack
// order (the default) or in commit-id order, and returns the previous setting.
func ReadNotesInPackOrder(on bool) bool {
	prev := notesInPackOrder
	notesInPackOrder = on
	return prev
}

// The report tables, for the external tests.
var (
	ReasonColors  = reasonColors
	VerdictColors = verdictColors
	CSVHeader     = csvHeader
)
