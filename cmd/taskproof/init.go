package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
)

func init() {
	subcommands = append(subcommands, newInitCmd)
}

// refspecMaps reports whether fetch refspec spec (as in remote.<name>.fetch)
// brings remote ref ref into the same local ref: exact ("[+]ref:ref") or by a
// pattern with one '*' on both sides ("refs/notes/*:refs/notes/*").
func refspecMaps(spec, ref string) bool {
	src, dst, ok := strings.Cut(strings.TrimPrefix(spec, "+"), ":")
	if !ok || src != dst {
		return false
	}
	if pre, suf, glob := strings.Cut(src, "*"); glob {
		return strings.HasPrefix(ref, pre) && strings.HasSuffix(ref[len(pre):], suf) && len(ref) >= len(pre)+len(suf)
	}
	return src == ref
}

// initWants are the config settings `taskproof init` makes (issue 9).
//
// The notes refspec is "<ref>*:<ref>*", without '+': a pattern, because git fetch
// fails outright on a configured exact refspec whose ref the remote does not have
// yet ("couldn't find remote ref"), which would break every `git fetch` of a
// project that has not pushed notes; and not forced, because a forced fetch would
// silently replace local notes not yet pushed — git instead reports the notes ref
// as rejected when both sides moved, and `taskproof notes fetch` merges them.
func initWants(remote, notesRef string) []gitref.ConfigWant {
	var w []gitref.ConfigWant
	if remote != "" {
		fetch := "remote." + remote + ".fetch"
		w = append(w,
			gitref.ConfigWant{Key: fetch, Value: notesRef + "*:" + notesRef + "*", Multi: true,
				Satisfied: func(vs []string) bool {
					for _, v := range vs {
						if refspecMaps(v, notesRef) {
							return true
						}
					}
					return false
				}},
			gitref.ConfigWant{Key: fetch, Value: attest.SkipRefPrefix + "*:" + attest.SkipRefPrefix + "*", Multi: true,
				Satisfied: func(vs []string) bool {
					for _, v := range vs {
						if refspecMaps(v, attest.SkipRefPrefix+"x") {
							return true
						}
					}
					return false
				}},
		)
	}
	return append(w,
		gitref.ConfigWant{Key: "notes.rewriteRef", Value: notesRef, Multi: true},
		gitref.ConfigWant{Key: "notes.rewrite.rebase", Value: "true"},
		gitref.ConfigWant{Key: "notes.rewrite.amend", Value: "true"},
	)
}

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

  remote.<NAME>.fetch  += <notes-ref>*:<notes-ref>*
                          refs/speccoder/skipped/*:refs/speccoder/skipped/*
  notes.rewriteRef     += <notes-ref>
  notes.rewrite.rebase  = true
  notes.rewrite.amend   = true

After it, a plain 'git fetch' brings the notes and skip records, and 'git commit --amend'
and 'git rebase' copy a commit's note to the rewritten commit (re-issue the statements for
the new commit with 'taskproof attest carry OLD NEW'). The fetch refspecs are not forced: when
your local notes and the remote's both moved, git reports the notes ref as rejected instead
of dropping your notes — run 'taskproof notes fetch' to merge them. The pattern form
(<ref>*) keeps 'git fetch' working while the remote has no notes yet.

init is idempotent: it prints each setting it adds, and nothing when all are in place. The
file is edited in place, keeping its comments and every other line. Without a remote of that
name, only the notes.* settings are made.

--hooks also installs a prepare-commit-msg hook (in core.hooksPath, else .git/hooks) that adds a
'Spec-Task: <feature>/<task>' trailer for each task the staged change ticks, so that tools finding
tick commits by their trailers (speccoder) find taskproof's too (docs/format.md#commit-trailers).
A prepare-commit-msg hook that is not taskproof's is kept and reported, never replaced.`,
		Example: `  taskproof init                     # remote origin
  taskproof init --hooks --dry-run   # also the prepare-commit-msg hook
  taskproof init --remote upstream --dry-run
  git fetch                          # now also fetches refs/notes/speccoder`,
		Args: cobra.NoArgs,
	}
	c.Flags().StringVar(&remote, "remote", "origin", "the remote whose fetch refspecs get the notes ref")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print what would change without writing")
	c.Flags().BoolVar(&hooks, "hooks", false, "also install the prepare-commit-msg hook that adds Spec-Task trailers")
	format := formatFlag(c, "text", "text", "json")
	c.RunE = func(c *cobra.Command, args []string) error {
		f, err := format()
		if err != nil {
			return err
		}
		repo, notes, err := openRepo(c)
		if err != nil {
			return err
		}
		defer repo.Close()
		var warnings []string
		target := remote
		if _, ok, err := repo.ConfigValue("remote." + remote + ".url"); err != nil {
			return withCode(ExitTrust, err)
		} else if !ok {
			if c.Flags().Changed("remote") {
				return withCode(ExitGit, fmt.Errorf("remote %q is not configured (git remote add %s URL)", remote, remote))
			}
			warnings = append(warnings, fmt.Sprintf("no remote %q: fetch refspecs not added (run `taskproof init --remote NAME` once it exists)", remote))
			target = ""
		}
		changes, err := repo.EnsureConfig(initWants(target, notes.Ref()), dryRun)
		if err != nil {
			return withCode(ExitTrust, err)
		}
		hookChanges := []hookChange{}
		if hooks {
			h, err := installHook(repo, dryRun)
			if err != nil {
				return withCode(ExitGit, fmt.Errorf("installing the prepare-commit-msg hook: %w", err))
			}
			if h.Action == "kept" {
				warnings = append(warnings, fmt.Sprintf("%s is not taskproof's hook: kept; add the line 'taskproof hook prepare-commit-msg \"$@\"' to it", h.Path))
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
				changes = []gitref.ConfigChange{}
			}
			return enc.Encode(map[string]any{"schema_version": 1, "dry_run": dryRun, "changes": changes, "hooks": hookChanges})
		}
		verb := "set"
		if dryRun {
			verb = "would set"
		}
		if len(changes) == 0 && !slices.ContainsFunc(hookChanges, func(h hookChange) bool { return h.Action == "install" }) {
			fmt.Fprintln(c.OutOrStdout(), "already configured: nothing to change")
		}
		for _, h := range hookChanges {
			if h.Action == "install" {
				fmt.Fprintf(c.OutOrStdout(), "%s hook prepare-commit-msg: %s\n", map[bool]string{true: "would install", false: "installed"}[dryRun], h.Path)
			}
		}
		for _, ch := range changes {
			switch {
			case ch.Added:
				fmt.Fprintf(c.OutOrStdout(), "%s %s += %s\n", verb, ch.Key, ch.Value)
			case ch.Old != "":
				fmt.Fprintf(c.OutOrStdout(), "%s %s = %s (was %s)\n", verb, ch.Key, ch.Value, ch.Old)
			default:
				fmt.Fprintf(c.OutOrStdout(), "%s %s = %s\n", verb, ch.Key, ch.Value)
			}
		}
		return nil
	}
	return c
}
