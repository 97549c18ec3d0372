package options

import (
	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/notesref"
)

// RepoOptions are the root's flags that every command inherits: where the
// repository is and which notes ref holds the attestations.
type RepoOptions struct {
	Dir      string
	NotesRef string
}

// AddFlags declares --repo (-C) and --notes-ref as persistent flags of c.
func (o *RepoOptions) AddFlags(c *cobra.Command) {
	c.PersistentFlags().StringVarP(&o.Dir, "repo", "C", ".", "run as if started in directory `DIR`")
	c.PersistentFlags().StringVar(&o.NotesRef, "notes-ref", notesref.Default, "the notes `REF` attestations are stored under")
}
