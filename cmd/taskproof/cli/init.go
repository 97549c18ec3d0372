package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"
	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/gitref/gitconfig"
	"github.com/taskproof/taskproof/notemerge"
)

func newInitCmd() *cobra.Command {
	var (
		remote string
		dryRun bool
		hooks  bool
	)
	c := &cobra.Command{
		Use:   "init [--remote NAME] [--hooks] [--dry-run]",
		Short: "Configure the repository so git fetches notes and carries them across amend and rebase",
		Long: `init configures the repository (its own .git/config, nothing global) so attestations
travel with the work:

  remote.<NAME>.fetch  += +<notes-ref>*:refs/notes/remotes/<NAME>/<name>*
                          +refs/speccoder/skipped/*:refs/speccoder/remotes/<NAME>/skipped/*
  notes.rewriteRef     += <notes-ref>
  notes.rewrite.rebase  = true
  notes.rewrite.amend   = true

After it, a plain 'git fetch' or 'git pull' mirrors the remote's notes, conflicts ref and
skip records into tracking refs (as it does refs/remotes/<NAME>/* for branches) and never
touches your own notes, so it cannot fail because you and the remote both attested. Run
'taskproof notes fetch' to merge them into your notes ref, and 'taskproof notes push' to
publish yours. 'git commit --amend' and 'git rebase' copy a commit's note to the rewritten
commit (re-issue the statements for the new commit with 'taskproof attest carry').

Run again, init replaces the refspecs an earlier init wrote into your own notes ref
(<notes-ref>*:<notes-ref>*, refs/speccoder/skipped/*:…) and says so. It warns about other
refspecs that write your notes ref directly. It prints each setting it adds, and nothing
when all are in place. The file is edited in place, keeping its comments and every other
line. Without a remote of that name, only the notes.* settings are made.
See docs/format.md#sharing-notes-between-clones.

--hooks also installs a prepare-commit-msg hook (in core.hooksPath, else .git/hooks) that adds a
'Spec-Task: <feature>/<task>' trailer for each task the staged change ticks, so that tools finding
tick commits by their trailers (speccoder) find taskproof's too (docs/format.md#commit-trailers).
A prepare-commit-msg hook that is not taskproof's is kept and reported, never replaced.`,
		Example: `  taskproof init                     # remote origin
  taskproof init --hooks --dry-run   # also the prepare-commit-msg hook
  taskproof init --remote upstream --dry-run
  git fetch                          # now also mirrors refs/notes/speccoder into refs/notes/remotes/origin/speccoder`,
		Args: cobra.NoArgs,
	}
	c.Flags().StringVar(&remote, "remote", "origin", "the `REMOTE` whose fetch refspecs get the notes ref")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print what would change without writing")
	c.Flags().BoolVar(&hooks, "hooks", false, "also install the prepare-commit-msg hook that adds Spec-Task trailers")
	format := options.NewFormat("text", "text", "json")
	format.AddFlags(c)
	c.RunE = cmdutil.InRepo(format.Get, func(ctx context.Context, c *cobra.Command, args []string, f string, repo *gitref.Repo, notes *gitref.NotesStore) error {
		changes, warnings, err := initConfig(repo, notes.Ref(), remote, c.Flags().Changed("remote"), dryRun)
		if err != nil {
			return err
		}
		hookChanges := []attest.HookChange{}
		if hooks {
			h, err := attest.InstallHook(repo, dryRun)
			if err != nil {
				return cmdutil.WithCode(cmdutil.ExitGit, fmt.Errorf("installing the prepare-commit-msg hook: %w", err))
			}
			if h.Action == "kept" {
				warnings = append(warnings, fmt.Sprintf("%s is not taskproof's hook: kept; add the line 'taskproof hook prepare-commit-msg \"$@\"' to it", h.Path))
			}
			if _, err := exec.LookPath("taskproof"); err != nil {
				warnings = append(warnings, "taskproof is not on PATH: the hook does nothing (no Spec-Task trailers) until it is, in the environment git commit runs in")
			}
			hookChanges = append(hookChanges, h)
		}
		for _, w := range warnings {
			fmt.Fprintf(c.ErrOrStderr(), "warning: %s\n", w)
		}
		if f == "json" {
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetIndent("", "  ")
			if changes == nil {
				changes = []gitconfig.Change{}
			}
			return enc.Encode(map[string]any{"schema_version": 1, "dry_run": dryRun, "changes": changes, "hooks": hookChanges})
		}
		printInitChanges(c.OutOrStdout(), changes, hookChanges, dryRun)
		return nil
	})
	return c
}

// initConfig makes (or, dry run, lists) init's git configuration for notesRef
// and remote, with the warnings to print: no such remote (an error when the
// remote was asked for by name), refspecs that write the notes ref directly.
func initConfig(repo *gitref.Repo, notesRef, remote string, named, dryRun bool) ([]gitconfig.Change, []string, error) {
	var warnings []string
	target := remote
	cfg, err := repo.Config()
	if err != nil {
		return nil, nil, cmdutil.OrCode(cmdutil.ExitTrust, err)
	}
	if _, ok := cfg.Get("remote." + remote + ".url"); !ok {
		if named {
			return nil, nil, cmdutil.WithCode(cmdutil.ExitGit, fmt.Errorf("remote %q is not configured (git remote add %s URL)", remote, remote))
		}
		warnings = append(warnings, fmt.Sprintf("no remote %q: fetch refspecs not added (run `taskproof init --remote NAME` once it exists)", remote))
		target = ""
	}
	// A forced refspec onto the notes ref makes every `git fetch` replace the
	// local notes with the remote's: what was attested and not pushed yet is
	// lost, with nothing in the conflicts ref. init does not set up sync over
	// it, whichever remote or source it names.
	if forced := notemerge.ForcedOntoNotes(repo, notesRef); len(forced) > 0 {
		f := forced[0]
		return nil, nil, cmdutil.WithCode(cmdutil.ExitTrust, fmt.Errorf("remote.%s.fetch = %s makes every `git fetch %s` overwrite your notes (a forced update), losing the statements you have not pushed; remove it first (`git config --fixed-value --unset remote.%s.fetch '%s'`, in the file `git config --show-origin --get-all remote.%s.fetch` names), then run taskproof init again", f.Remote, f.Spec, f.Remote, f.Remote, f.Spec, f.Remote))
	}
	var self []string
	if target != "" {
		self = notemerge.SelfMappingRefspecs(repo, target, notesRef)
	}
	changes, err := cfg.Ensure(notemerge.NotesConfig(target, notesRef), dryRun)
	if err != nil {
		return nil, nil, cmdutil.OrCode(cmdutil.ExitTrust, err)
	}
	for _, v := range self {
		warnings = append(warnings, fmt.Sprintf("remote.%s.fetch = %s makes `git fetch` write your notes directly and fail (non-fast-forward) once both sides attested; remove it with `git config --fixed-value --unset remote.%s.fetch '%s'`", target, v, target, v))
	}
	return changes, warnings, nil
}

// printInitChanges writes what init set (or, dry run, would set): the hook
// installed and each configuration change, or that nothing changes.
func printInitChanges(w io.Writer, changes []gitconfig.Change, hookChanges []attest.HookChange, dryRun bool) {
	verb := "set"
	if dryRun {
		verb = "would set"
	}
	if len(changes) == 0 && !slices.ContainsFunc(hookChanges, func(h attest.HookChange) bool { return h.Action == "install" }) {
		fmt.Fprintln(w, "already configured: nothing to change")
	}
	for _, h := range hookChanges {
		if h.Action == "install" {
			fmt.Fprintf(w, "%s hook prepare-commit-msg: %s\n", map[bool]string{true: "would install", false: "installed"}[dryRun], h.Path)
		}
	}
	for _, ch := range changes {
		if ch.Replaced != "" {
			fmt.Fprintf(w, "%s %s -= %s (migrated: the refspec an earlier init wrote updates your notes directly, so `git fetch` failed once both sides attested)\n", verb, ch.Key, ch.Replaced)
		}
		switch {
		case ch.Replaced != "" && !ch.Added:
		case ch.Added:
			fmt.Fprintf(w, "%s %s += %s\n", verb, ch.Key, ch.Value)
		case ch.Old != "":
			fmt.Fprintf(w, "%s %s = %s (was %s)\n", verb, ch.Key, ch.Value, ch.Old)
		default:
			fmt.Fprintf(w, "%s %s = %s\n", verb, ch.Key, ch.Value)
		}
	}
}
