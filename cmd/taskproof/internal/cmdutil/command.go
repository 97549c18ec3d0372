package cmdutil

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/panics"
	"github.com/taskproof/taskproof/internal/printable"
)

// OpenRepo opens the repository named by --repo, read as access says, and
// the notes store of --notes-ref.
func OpenRepo(c *cobra.Command, access ...gitref.Access) (*gitref.Repo, *gitref.NotesStore, error) {
	dir, _ := c.Flags().GetString("repo")
	ref, _ := c.Flags().GetString("notes-ref")
	panics.Inject("command")
	repo, err := gitref.Open(dir, access...)
	if err != nil {
		return nil, nil, err
	}
	notes, err := repo.Notes(ref)
	if err != nil {
		repo.Close()
		return nil, nil, err
	}
	notes.Message = "Notes added by 'taskproof attest'\n"
	return repo, notes, nil
}

// OpenCommit is OpenRepo and the commit rev names in it: what the commands
// about one commit (attest tick, decide, show) start from. The caller closes
// the repository.
func OpenCommit(c *cobra.Command, rev string) (*gitref.Repo, *gitref.NotesStore, gitref.Hash, error) {
	repo, notes, err := OpenRepo(c)
	if err != nil {
		return nil, nil, "", err
	}
	id, err := repo.Resolve(rev)
	if err != nil {
		repo.Close()
		return nil, nil, "", err
	}
	return repo, notes, id, nil
}

// Short is a commit id as messages show it: its first 12 hex digits.
func Short(h gitref.Hash) string {
	if len(h) > 12 {
		return string(h[:12])
	}
	return string(h)
}

// RunInRepo is a command's run function when it works in the repository:
// ctx is the command's context, f the --format given.
type RunInRepo func(ctx context.Context, c *cobra.Command, args []string, f string, repo *gitref.Repo, notes *gitref.NotesStore) error

// InRepo is the RunE of a command that writes in a --format and works in the
// repository: it reads the format, opens the repository and its notes, calls
// run with them and the command's context, and closes the repository.
func InRepo(format func() (string, error), run RunInRepo) func(*cobra.Command, []string) error {
	return InRepoWith(format, nil, run)
}

// InRepoWith is InRepo opening the repository with the Access access
// returns for the command's flags (nil: the default).
func InRepoWith(format func() (string, error), access func() gitref.Access, run RunInRepo) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		f, err := format()
		if err != nil {
			return err
		}
		var a []gitref.Access
		if access != nil {
			a = append(a, access())
		}
		repo, notes, err := OpenRepo(c, a...)
		if err != nil {
			return err
		}
		defer repo.Close()
		return run(c.Context(), c, args, f, repo, notes)
	}
}

// WriteJSON writes v on c's stdout as indented JSON, HTML characters as
// they are.
func WriteJSON(c *cobra.Command, v any) error {
	enc := json.NewEncoder(c.OutOrStdout())
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ArgOr is the command's one optional argument, or def when it has none.
func ArgOr(args []string, def string) string {
	if len(args) == 1 {
		return args[0]
	}
	return def
}

// ParseAt reads an --at value (RFC 3339); "" is def.
func ParseAt(at string, def time.Time) (time.Time, error) {
	if at == "" {
		return def, nil
	}
	when, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return time.Time{}, Usagef("--at %q: want RFC 3339 (2026-01-02T15:04:05Z): %v", at, err)
	}
	return when, nil
}

// MessageText is a message for people on a terminal
// (docs/format.md#control-characters-in-reports). Messages quote paths, refs,
// note text and git's own error output: every character of a line that could
// act on a terminal is escaped (printable.String), while the line breaks and
// tabs of a message of several lines are kept as such, never shown as `\n`
// or `\t`. Every line after the first is indented, so that no line of quoted
// text can pass for a message of its own ("taskproof: …", "warning: …").
func MessageText(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		for j, c := range cells {
			cells[j] = printable.String(c)
		}
		lines[i] = strings.Join(cells, "\t")
		if i > 0 {
			lines[i] = "  " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}
