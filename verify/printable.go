package verify

import "github.com/taskproof/taskproof/internal/printable"

// printableReasons is rs with every text field passed through printable.String.
func printableReasons(rs []Reason) []Reason {
	out := make([]Reason, len(rs))
	for i, r := range rs {
		r.Code, r.Field, r.Expected, r.Found, r.Message = printable.String(r.Code), printable.String(r.Field), printable.String(r.Expected), printable.String(r.Found), printable.String(r.Message)
		out[i] = r
	}
	return out
}
