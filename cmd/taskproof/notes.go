package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
)

func init() {
	subcommands = append(subcommands, newNotesCmd)
	codeClassifiers = append(codeClassifiers, func(err error) (int, bool) {
		switch {
		case errors.Is(err, gitref.ErrRemoteNotesAbsent), errors.Is(err, gitref.ErrGitProgram),
			errors.Is(err, gitref.ErrPushRetries), errors.Is(err, gitref.ErrLocked), errors.Is(err, gitref.ErrRefChanged):
			return ExitGit, true
		case errors.Is(err, gitref.ErrConfig):
			return ExitTrust, true
		case errors.Is(err, attest.ErrNothingToCarry):
			return ExitUsage, true
		}
		return 0, false
	})
}

func newNotesCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "notes",
		Short: "Push and fetch the attestation notes, merging them line by line when both sides moved",
		Long: `git does not push or fetch notes by default. 'taskproof notes push' and 'taskproof notes
fetch' move the notes ref (--notes-ref, default refs/notes/speccoder) and the skip records
(refs/speccoder/skipped/*) to and from a remote, never by force.

When both sides added notes, the two notes histories are merged: a notes commit with both
sides as parents, holding every note of both. Where both sides wrote a note for the same
commit, the lines are merged (SPEC §2 ownership): every line of the local note is kept; the
remote's lines for tasks the local note does not attest, and other tools' lines, are added;
for a task both sides attest differently, the local lines win and the task is reported as a
conflict (re-run 'taskproof attest tick' or 'attest carry' if the remote's were the ones to
keep). A push rejected because the remote moved is retried after such a merge (5 attempts).

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
		c.Long = `notes push pushes the notes ref and the skip records to REMOTE (default origin) without force.
If the remote's notes moved since you last fetched, it fetches them, merges them with yours
line by line (see 'taskproof notes --help') and pushes again, up to --attempts times, so that
two clones pushing at once both land. Skip records the remote already holds with other values
are reported, not overwritten.

Exit codes: 0 pushed or up to date; 4 git failed (no local notes ref, unknown remote, network,
authentication, still rejected after every attempt).`
		c.Example = `  taskproof notes push
  taskproof notes push upstream --format json`
	case "fetch":
		c.Short = "Fetch the notes ref and skip records from REMOTE (default origin) and merge them into yours"
		c.Long = `notes fetch fetches REMOTE's notes ref (default origin) into a temporary ref and brings it
into yours: created when you have none, fast-forwarded when yours is behind, kept when yours is
ahead, and otherwise merged line by line (see 'taskproof notes --help'). Skip records are
fetched too, never forced.

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
		remote := "origin"
		if len(args) == 1 {
			remote = args[0]
		}
		repo, notes, err := openRepo(c)
		if err != nil {
			return err
		}
		defer repo.Close()
		conflicts := map[string]map[string]bool{} // commit → subjects
		opts := gitref.SyncOptions{Remote: remote, SkipRefs: !noSkip, MaxAttempts: attempts,
			Merge: func(commit gitref.Hash, local, remoteNote []byte) ([]byte, error) {
				merged, cs, err := attest.UnionNote(local, remoteNote)
				for _, s := range cs {
					if conflicts[string(commit)] == nil {
						conflicts[string(commit)] = map[string]bool{}
					}
					conflicts[string(commit)][s] = true
				}
				return merged, err
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
		type conflict struct {
			Commit   string   `json:"commit"`
			Subjects []string `json:"subjects"`
		}
		cl := []conflict{}
		for commit, subs := range conflicts {
			var names []string
			for s := range subs {
				names = append(names, s)
			}
			sort.Strings(names)
			cl = append(cl, conflict{commit, names})
		}
		sort.Slice(cl, func(i, j int) bool { return cl[i].Commit < cl[j].Commit })
		for _, r := range res.Rejected {
			fmt.Fprintf(c.ErrOrStderr(), "warning: not moved: %s\n", r)
		}
		for _, x := range cl {
			fmt.Fprintf(c.ErrOrStderr(), "warning: %s: local and remote attest %v differently; kept the local statements\n", short(gitref.Hash(x.Commit)), x.Subjects)
		}
		if f == "json" {
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"schema_version": 1, "operation": op, "result": res, "conflicts": cl})
		}
		switch res.Action {
		case "up-to-date":
			fmt.Fprintf(c.OutOrStdout(), "%s: %s is up to date with %s (%s)\n", op, res.Ref, res.Remote, short(res.After))
		case "merged":
			fmt.Fprintf(c.OutOrStdout(), "%s: merged %s from %s: %s (%d notes merged line by line)\n", op, res.Ref, res.Remote, short(res.After), len(res.Merged))
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
