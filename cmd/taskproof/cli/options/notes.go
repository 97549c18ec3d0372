package options

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/notemerge"
)

// NotesFromRemotesOptions is --notes-from-remotes of a reading command: the
// local notes ref merged, read-only, with every remote's tracking ref (what
// `git fetch` mirrors after `taskproof init`), as `taskproof notes fetch`
// would merge them (docs/format.md#sharing-notes-between-clones).
type NotesFromRemotesOptions struct {
	On bool
}

// AddFlags declares --notes-from-remotes on c.
func (o *NotesFromRemotesOptions) AddFlags(c *cobra.Command) {
	c.Flags().BoolVar(&o.On, "notes-from-remotes", false, "read the local notes merged with every remote's tracking notes ref (refs/notes/remotes/*/…, which git fetch fetches after taskproof init), without writing them")
}

// Notes returns the notes the command reads: notes itself, or with
// --notes-from-remotes its merged view, preferring the statements trusted
// credits, each conflict and the refs merged named on c's stderr.
func (o *NotesFromRemotesOptions) Notes(c *cobra.Command, notes *gitref.NotesStore, trusted func([]byte) bool) (*gitref.NotesStore, error) {
	if !o.On {
		return notes, nil
	}
	view, tracking, err := notes.WithTracking(func(_ gitref.Hash, local, remote []byte) ([]byte, error) {
		m, err := notemerge.MergeNotesWith(local, remote, notemerge.MergeOptions{Trusted: trusted})
		if err != nil {
			return nil, err
		}
		for _, x := range m.Conflicts {
			fmt.Fprintf(c.ErrOrStderr(), "warning: %s: the local and a remote's notes attest it differently; reading the %s statements (%s), as `taskproof notes fetch` will keep\n", printable.String(x.Subject), x.KeptSide, x.Kept)
		}
		return m.Merged, nil
	})
	if err != nil {
		return nil, err
	}
	if len(tracking) > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "notes: %s merged with %s (read-only)\n", notes.Ref(), strings.Join(tracking, ", "))
	}
	return view, nil
}
