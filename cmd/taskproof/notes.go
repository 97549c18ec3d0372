package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/verify"
)

func init() {
	subcommands = append(subcommands, newNotesCmd)
}

func newNotesCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "notes",
		Short: "Push and fetch the attestation notes, merging them line by line when both sides moved",
		Long: `git does not push or fetch notes by default. 'taskproof notes push' and 'taskproof notes
fetch' move the notes ref (--notes-ref, default refs/notes/speccoder) and the skip records
(refs/speccoder/skipped/*) to and from a remote, never by force.

Fetching goes into tracking refs (refs/notes/remotes/<REMOTE>/<name>, as 'git fetch' does
after 'taskproof init'), then merges into your notes ref. When both sides added notes, the two
notes histories are merged: a notes commit with both sides as parents, holding every note of both.
Where both sides wrote a note for the same commit, the lines are merged: other tools' lines and
every tick only one side attests are kept; for a task both sides attest differently, one side's
statements are kept whole — the later 'time', the same choice on every clone — and the others move
to <notes-ref>-conflicts (refs/notes/speccoder-conflicts), which is pushed and fetched too. Both
people are told (stderr; JSON 'conflicts' and 'displaced_elsewhere'): the commit, the task, the
kept and the displaced statements. See docs/format.md#conflicting-statements-of-one-tick.

The transport is the git program, so your credential helpers, SSH configuration and
url.*.insteadOf rules apply as for 'git push' and 'git fetch'.`,
		Example: `  taskproof notes push               # after attesting
  taskproof notes fetch upstream`,
	}
	c.AddCommand(newNotesSyncCmd("push"), newNotesSyncCmd("fetch"))
	return c
}

func newNotesSyncCmd(op string) *cobra.Command {
	var (
		noSkip   bool
		attempts int
	)
	c := &cobra.Command{
		Use:  op + " [REMOTE]",
		Args: cobra.MaximumNArgs(1),
	}
	switch op {
	case "push":
		c.Short = "Push the notes ref and skip records to REMOTE (default origin), merging on a non-fast-forward"
		c.Long = `notes push first fetches REMOTE's notes (default origin) and merges them into yours as
'notes fetch' does, then pushes the notes ref, the conflicts ref and the skip records without
force. If the remote moved in between, it fetches, merges and pushes again, up to --attempts
times, so that two clones pushing at once both land. Skip records the remote already holds with other values
are reported, not overwritten.

Exit codes: 0 pushed or up to date; 4 git failed (no local notes ref, unknown remote, network,
authentication, still rejected after every attempt).`
		c.Example = `  taskproof notes push
  taskproof notes push upstream --format json`
	case "fetch":
		c.Short = "Fetch the notes ref and skip records from REMOTE (default origin) and merge them into yours"
		c.Long = `notes fetch fetches REMOTE's notes ref (default origin) into its tracking ref
(refs/notes/remotes/REMOTE/<name>; a temporary ref for a URL) and brings it into yours: created when you have none, fast-forwarded when yours is behind, kept when yours is
ahead, and otherwise merged line by line (see 'taskproof notes --help'). Skip records are
fetched into refs/speccoder/remotes/REMOTE/skipped/* and created or fast-forwarded locally,
never forced; one that differs is reported.

Exit codes: 0 fetched; 4 git failed or the remote has no notes ref.`
		c.Example = `  taskproof notes fetch
  taskproof notes fetch origin && taskproof verify --branch --allowed-signers ~/.config/taskproof/allowed_signers`
	}
	c.Flags().BoolVar(&noSkip, "no-skip-refs", false, "do not move refs/speccoder/skipped/*")
	c.Flags().IntVar(&attempts, "attempts", 5, "how many times to push (each after a fetch and merge) before giving up")
	format := formatFlag(c, "text", "text", "json")
	c.RunE = func(c *cobra.Command, args []string) error {
		f, err := format()
		if err != nil {
			return err
		}
		if attempts < 1 || attempts > 100 {
			return usageErr("--attempts %d: want 1 to 100", attempts)
		}
		remote := argOr(args, "origin")
		repo, notes, err := openRepo(c)
		if err != nil {
			return err
		}
		defer repo.Close()
		type conflict struct {
			Commit string `json:"commit"`
			attest.NoteConflict
		}
		var conflicts []conflict
		opts := gitref.SyncOptions{Remote: remote, SkipRefs: !noSkip, MaxAttempts: attempts,
			ConflictsRef: conflictsRef(notes.Ref()), MergeConflicts: attest.UnionLines,
			Merge: func(commit gitref.Hash, local, remoteNote []byte) ([]byte, []byte, error) {
				m, err := attest.MergeNotes(local, remoteNote)
				if err != nil {
					return nil, nil, err
				}
				for _, c := range m.Conflicts {
					conflicts = append(conflicts, conflict{string(commit), c})
				}
				var displaced []byte
				for _, l := range m.Displaced {
					displaced = append(append(displaced, l...), '\n')
				}
				return m.Merged, displaced, nil
			}}
		var res *gitref.SyncResult
		if op == "push" {
			res, err = notes.Push(context.Background(), opts)
		} else {
			res, err = notes.Fetch(context.Background(), opts)
		}
		if err != nil {
			return err
		}
		// A merge may run again after a lost race: keep each conflict once.
		sort.SliceStable(conflicts, func(i, j int) bool { return conflicts[i].Commit < conflicts[j].Commit })
		cl := []conflict{}
		for i, x := range conflicts {
			if i > 0 && x.Commit == conflicts[i-1].Commit && x.Subject == conflicts[i-1].Subject &&
				x.LineHash == conflicts[i-1].LineHash && x.Displaced.PayloadSHA256 == conflicts[i-1].Displaced.PayloadSHA256 {
				continue
			}
			cl = append(cl, x)
		}
		arrived := []displacedStatement{}
		for _, a := range displacedElsewhere(res.Arrived) {
			own := false // displaced by this very merge: reported with the conflict
			for _, x := range cl {
				own = own || (x.Commit == a.Commit && x.Displaced.PayloadSHA256 == a.Displaced.PayloadSHA256)
			}
			if !own {
				arrived = append(arrived, a)
			}
		}
		for _, r := range res.Rejected {
			fmt.Fprintf(c.ErrOrStderr(), "warning: not moved: %s\n", r)
		}
		cref := strings.TrimPrefix(opts.ConflictsRef, "refs/notes/")
		for _, x := range cl {
			fmt.Fprintf(c.ErrOrStderr(), "warning: %s %s: your notes and %s's attest this task differently; kept %s statements (%s); "+
				"%s (%s) are kept in %s (git notes --ref %s show %s) — see docs/format.md#conflicting-statements-of-one-tick\n",
				short(gitref.Hash(x.Commit)), verify.Printable(x.Subject), remote, whose(x.KeptSide, remote), x.Kept, whose(otherSide(x.KeptSide), remote), x.Displaced, opts.ConflictsRef, cref, x.Commit)
		}
		for _, x := range arrived {
			fmt.Fprintf(c.ErrOrStderr(), "warning: %s %s: a statement (%s) was displaced by a conflicting one when another clone merged; "+
				"it is kept in %s (git notes --ref %s show %s); the notes ref keeps the winner — see docs/format.md#conflicting-statements-of-one-tick\n",
				short(gitref.Hash(x.Commit)), verify.Printable(x.Subject), x.Displaced, opts.ConflictsRef, cref, x.Commit)
		}
		removed := make([]string, 0, len(res.Removed))
		for id := range res.Removed {
			removed = append(removed, string(id))
		}
		sort.Strings(removed)
		for _, id := range removed {
			n := bytes.Count(res.Removed[gitref.Hash(id)], []byte("\n"))
			fmt.Fprintf(c.ErrOrStderr(), "warning: %s: %s's notes no longer hold %d line(s) of yours (another clone replaced or removed them: attest --force, attest carry); "+
				"they are kept in %s (git notes --ref %s show %s) — see docs/format.md#conflicting-statements-of-one-tick\n",
				short(gitref.Hash(id)), res.Remote, n, opts.ConflictsRef, cref, id)
		}
		if f == "json" {
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"schema_version": 1, "operation": op, "result": res, "conflicts": cl, "displaced_elsewhere": arrived})
		}
		switch res.Action {
		case "up-to-date":
			fmt.Fprintf(c.OutOrStdout(), "%s: %s is up to date with %s (%s)\n", op, res.Ref, res.Remote, short(res.After))
		case "merged":
			fmt.Fprintf(c.OutOrStdout(), "%s: merged %s from %s: %s (%d notes merged line by line)\n", op, res.Ref, res.Remote, short(res.After), len(res.Merged))
		case "pushed":
			fmt.Fprintf(c.OutOrStdout(), "%s: pushed %s to %s (%s)\n", op, res.Ref, res.Remote, short(res.After))
		default:
			fmt.Fprintf(c.OutOrStdout(), "%s: %s %s %s: %s -> %s\n", op, res.Action, res.Ref, res.Remote, short(res.Before), short(res.After))
		}
		if op == "push" && len(res.Merged) > 0 {
			fmt.Fprintf(c.OutOrStdout(), "%s: merged the remote's notes first (%d notes merged line by line, %d attempts)\n", op, len(res.Merged), res.Attempts)
		}
		return nil
	}
	return c
}

// conflictsRef is the notes ref that keeps the statements a notes merge
// displaced (docs/format.md#conflicting-statements-of-one-tick).
func conflictsRef(notesRef string) string { return notesRef + "-conflicts" }

// whose names a merge side for a person: "your" or "<remote>'s".
func whose(side, remote string) string {
	if side == "local" {
		return "your"
	}
	return remote + "'s"
}

func otherSide(side string) string {
	if side == "local" {
		return "remote"
	}
	return "local"
}

// displacedStatement is a task-verification statement that reached the local
// conflicts ref from the remote: someone else's merge displaced it.
type displacedStatement struct {
	Commit    string                   `json:"commit"`
	Subject   string                   `json:"subject"`
	Displaced attest.StatementsSummary `json:"displaced"`
}

// displacedElsewhere names each task-verification statement among lines that
// arrived in the conflicts ref, by commit.
func displacedElsewhere(arrived map[gitref.Hash][]byte) []displacedStatement {
	out := []displacedStatement{}
	for commit, lines := range arrived {
		for _, l := range noteline.Split(lines) {
			for _, t := range attest.SummarizeNote(append(append([]byte{}, l...), '\n')) {
				if t.PayloadSHA256 != "" {
					out = append(out, displacedStatement{string(commit), t.Subject, t.StatementsSummary})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Commit != out[j].Commit {
			return out[i].Commit < out[j].Commit
		}
		return out[i].Displaced.PayloadSHA256 < out[j].Displaced.PayloadSHA256
	})
	return out
}

// notesFromRemotesFlag adds --notes-from-remotes to a reading command and
// returns the function that turns its notes store into the view it asks for:
// the local notes ref merged, read-only, with every remote's tracking ref
// (what `git fetch` mirrors after `taskproof init`), as `taskproof notes
// fetch` would merge them (docs/format.md#sharing-notes-between-clones).
func notesFromRemotesFlag(c *cobra.Command) func(*cobra.Command, *gitref.NotesStore) (*gitref.NotesStore, error) {
	var on bool
	c.Flags().BoolVar(&on, "notes-from-remotes", false, "read the local notes merged with every remote's tracking notes ref (refs/notes/remotes/*/…, fetched by `git fetch` after `taskproof init`), without writing them")
	return func(c *cobra.Command, notes *gitref.NotesStore) (*gitref.NotesStore, error) {
		if !on {
			return notes, nil
		}
		tracking, err := notes.TrackingRefs()
		if err != nil {
			return nil, err
		}
		view, err := notes.WithTracking(tracking, func(_ gitref.Hash, local, remote []byte) ([]byte, error) {
			m, err := attest.MergeNotes(local, remote)
			if err != nil {
				return nil, err
			}
			for _, x := range m.Conflicts {
				fmt.Fprintf(c.ErrOrStderr(), "warning: %s: the local and a remote's notes attest it differently; reading the %s statements (%s), as `taskproof notes fetch` will keep\n", verify.Printable(x.Subject), x.KeptSide, x.Kept)
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
}
