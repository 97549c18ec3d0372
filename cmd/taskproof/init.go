package main

import (
	"encoding/json"
	"fmt"
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
	)
	c := &cobra.Command{
		Use:   "init [--remote NAME] [--dry-run]",
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
name, only the notes.* settings are made.`,
		Example: `  taskproof init                     # remote origin
  taskproof init --remote upstream --dry-run
  git fetch                          # now also fetches refs/notes/speccoder`,
		Args: cobra.NoArgs,
	}
	c.Flags().StringVar(&remote, "remote", "origin", "the remote whose fetch refspecs get the notes ref")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print what would change without writing")
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
		for _, w := range warnings {
			fmt.Fprintf(c.ErrOrStderr(), "warning: %s\n", w)
		}
		if f == "json" {
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetIndent("", "  ")
			if changes == nil {
				changes = []gitref.ConfigChange{}
			}
			return enc.Encode(map[string]any{"schema_version": 1, "dry_run": dryRun, "changes": changes})
		}
		verb := "set"
		if dryRun {
			verb = "would set"
		}
		if len(changes) == 0 {
			fmt.Fprintln(c.OutOrStdout(), "already configured: nothing to change")
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
