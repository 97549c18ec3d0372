package notescmd

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/notemerge"
)

func newNotesConflictsCmd() *cobra.Command {
	var (
		all     bool
		resolve []string
	)
	c := &cobra.Command{
		Use:   "conflicts [--all] [--resolve COMMIT|SHA256|all]…",
		Short: "List the statements notes merges displaced, and acknowledge them",
		Long: `When two clones attest one task differently, the notes merge keeps one side's statements and
moves the other's to the conflicts ref (<notes-ref>-conflicts, refs/notes/speccoder-conflicts),
telling both sides once (docs/format.md#conflicting-statements-of-one-tick). notes conflicts
lists the displaced statements not acknowledged yet (--all: every one): the commit, the task, the
displaced statement, the one the notes ref keeps, the fields that differ and the rule that chose.

--resolve acknowledges displaced statements — by commit id, by the statement's sha256 (the
messages print its first 12 digits), or all of them — writing an acknowledgement line into the
conflicts ref. 'taskproof notes push' shares it: clones that fetch it later are not told about
those statements. An acknowledgement only stops the report; the statement stays in the conflicts
ref, and the gate never reads it. To restore a displaced statement instead, attest the tick again
(attest tick --force) or carry it (attest carry).`,
		Example: `  taskproof notes conflicts
  taskproof notes conflicts --resolve 6f0b6900000f && taskproof notes push
  taskproof notes conflicts --all --format json`,
		Args: cobra.NoArgs,
	}
	c.Flags().BoolVar(&all, "all", false, "list acknowledged statements too")
	c.Flags().StringArrayVar(&resolve, "resolve", nil, "acknowledge `COMMIT|SHA256|all`: the statements displaced on a commit, the one whose sha256 starts so, or every one (repeatable)")
	format := options.NewFormat("text", "text", "json")
	format.AddFlags(c)
	c.RunE = cmdutil.InRepo(format.Get, func(ctx context.Context, c *cobra.Command, _ []string, f string, repo *gitref.Repo, notes *gitref.NotesStore) error {
		if len(resolve) > 0 {
			done, err := notemerge.ResolveConflicts(repo, notes, resolve, acknowledger(repo), time.Now())
			if err != nil {
				return err
			}
			if f == "json" {
				return cmdutil.WriteJSON(c, map[string]any{"schema_version": 1, "conflicts_ref": notemerge.ConflictsRef(notes.Ref()), "acknowledged": done})
			}
			for _, r := range done {
				fmt.Fprintf(c.OutOrStdout(), "acknowledged %s %s: %s\n", cmdutil.Short(gitref.Hash(r.Commit)), printable.String(r.Subject), printable.String(r.Displaced.String()))
			}
			if len(done) == 0 {
				fmt.Fprintln(c.OutOrStdout(), "nothing to acknowledge: those statements were acknowledged already")
			} else {
				fmt.Fprintf(c.OutOrStdout(), "%d acknowledged in %s; share it with taskproof notes push\n", len(done), notemerge.ConflictsRef(notes.Ref()))
			}
			return nil
		}
		records, err := notemerge.ListConflicts(repo, notes)
		if err != nil {
			return err
		}
		shown := []notemerge.DisplacedRecord{}
		for _, r := range records {
			if all || r.Acknowledged == nil {
				shown = append(shown, r)
			}
		}
		if f == "json" {
			return cmdutil.WriteJSON(c, map[string]any{"schema_version": 1, "conflicts_ref": notemerge.ConflictsRef(notes.Ref()), "displaced": shown})
		}
		printConflicts(c, shown, len(records)-len(shown))
		return nil
	})
	return c
}

// printConflicts is notes conflicts' text report: each displaced statement,
// what the notes ref keeps instead, and how to acknowledge it; hidden is how
// many acknowledged ones are not shown.
func printConflicts(c *cobra.Command, records []notemerge.DisplacedRecord, hidden int) {
	w := c.OutOrStdout()
	for _, r := range records {
		fmt.Fprintf(w, "%s %s: displaced %s\n", cmdutil.Short(gitref.Hash(r.Commit)), printable.String(r.Subject), printable.String(r.Displaced.String()))
		if r.Kept != nil {
			fmt.Fprintf(w, "    kept %s\n", printable.String(r.Kept.String()))
			fmt.Fprintf(w, "    %s; kept because %s\n", differences(r.Differs, *r.Kept, r.Displaced, "kept", "displaced"), notemerge.RuleText(r.Rule))
		} else {
			fmt.Fprintf(w, "    the notes ref holds no statement for the task now\n")
		}
		if r.Acknowledged != nil {
			fmt.Fprintf(w, "    acknowledged by %s at %s\n", printable.String(r.Acknowledged.By), printable.String(r.Acknowledged.Time))
		} else {
			fmt.Fprintf(w, "    acknowledge: taskproof notes conflicts --resolve %s\n", shortSHA(r.Displaced.PayloadSHA256))
		}
	}
	switch {
	case len(records) == 0 && hidden == 0:
		fmt.Fprintln(w, "no displaced statements")
	case len(records) == 0:
		fmt.Fprintf(w, "no displaced statements to acknowledge (%d acknowledged: --all lists them)\n", hidden)
	case hidden > 0:
		fmt.Fprintf(w, "%d acknowledged not shown (--all lists them)\n", hidden)
	}
}

// acknowledger names who acknowledges, as git names the committer: the
// repository's user.email, else user.name, else $USER.
func acknowledger(repo *gitref.Repo) string {
	if cfg, err := repo.Config(); err == nil {
		for _, k := range []string{"user.email", "user.name"} {
			if v, ok := cfg.Get(k); ok && v != "" {
				return v
			}
		}
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}
