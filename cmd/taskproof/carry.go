package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/verify"
)

func newAttestCarryCmd() *cobra.Command {
	var (
		sf                 signerFlags
		src                verify.TrustSources
		keep, dryRun       bool
		unverifiedInsecure bool
	)
	c := &cobra.Command{
		Use:   "carry FROM TO",
		Short: "Re-issue FROM's task statements on TO (after a cherry-pick, rebase or squash merge), re-signed",
		Long: `attest carry moves attestations to the commit that now carries the work: the commit a
cherry-pick, rebase or amend made, or a squash merge (the gate reports the original as
commit_unreachable, with same_tree_as when another commit has its tree).

For each task-verification statement FROM's note holds about FROM, it keeps the evidence
(verdict, trace, red run, decider, time, …) and recomputes what depends on the commit, as
'attest tick' does: the subject's gitCommit, the tree, task.line_hash and title (TO's task
line as ticked, read as open), the cited spec section at TO, and policy_sha256 (TO's first
parent's speccoder.toml). TO must tick each task against its first parent — that is where the
gate looks for the evidence. The test-result and verification-summary statements are rebuilt,
everything is signed with your key, and written into TO's note (its other lines kept). Only
then are the carried lines removed from FROM's note (--keep-from leaves them).

FROM's signatures are checked first against your trust (the same flags as verify), so a carry
never re-signs statements nobody trusted; --unverified-from-insecure skips that check.`,
		Example: `  # after a squash merge of feature branch commit abc123 into main:
  taskproof attest carry abc123 main --allowed-signers ~/.config/taskproof/allowed_signers \
      --signer ssh --key ~/.ssh/id_ed25519

  # after 'git rebase' (with 'taskproof init', the note was copied to the new commit too):
  taskproof attest carry ORIG_HEAD HEAD --dry-run`,
		Args: cobra.ExactArgs(2),
	}
	sf.add(c)
	c.Flags().StringVar(&src.AllowedSigners, "allowed-signers", "", "trust for FROM's signatures: allowed signers file (git's format)")
	c.Flags().StringVar(&src.AllowedSignersRev, "allowed-signers-rev", "", "trust for FROM's signatures: allowed signers file read from git, as REV:PATH")
	c.Flags().StringSliceVar(&src.Keyrings, "keyring", nil, "trust for FROM's signatures: OpenPGP public keyring file (repeatable)")
	c.Flags().StringSliceVar(&src.RawKeys, "trusted-key", nil, "trust for FROM's signatures: PEM public key file (repeatable)")
	c.Flags().BoolVar(&unverifiedInsecure, "unverified-from-insecure", false, "re-sign FROM's statements without checking their signatures")
	c.Flags().BoolVar(&keep, "keep-from", false, "keep the carried statements in FROM's note")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the statements without writing any note")
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
		req := attest.CarryRequest{KeepFrom: keep, DryRun: dryRun}
		if req.From, err = repo.Resolve(args[0]); err != nil {
			return err
		}
		if req.To, err = repo.Resolve(args[1]); err != nil {
			return err
		}
		if err := refuseBundles(notes, req.From, args[0], args[1]); err != nil {
			return err
		}
		if !unverifiedInsecure {
			trust, used, err := verify.LoadTrust(repo, src)
			if err != nil {
				return fmt.Errorf("checking FROM's signatures: %w (or pass --unverified-from-insecure)", err)
			}
			for _, u := range used {
				fmt.Fprintf(c.ErrOrStderr(), "trust: %s\n", u)
			}
			now := time.Now()
			req.CheckFrom = func(subject string, env *attest.Envelope) error {
				res, err := verify.VerifySignatures(env, trust, now)
				if err != nil {
					return err
				}
				if res.Status != verify.StatusOK {
					return withCode(ExitFailure, fmt.Errorf("its signatures are %s: not carried (check with `taskproof verify %s`)", res.Status, args[0]))
				}
				return nil
			}
		}
		if req.Signers, err = sf.signers(c, repo); err != nil {
			return err
		}
		res, err := attest.Carry(context.Background(), repo, notes, req)
		if err != nil {
			return err
		}
		if f == "json" {
			for _, w := range res.Written {
				for _, warn := range w.Warnings {
					fmt.Fprintf(c.ErrOrStderr(), "warning: %s\n", warn)
				}
			}
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(map[string]any{"schema_version": 1, "dry_run": dryRun, "carry": res})
		}
		if err := printWritten(c.OutOrStdout(), c.ErrOrStderr(), "text", res.Written, dryRun); err != nil {
			return err
		}
		if res.RemovedFrom {
			fmt.Fprintf(c.OutOrStdout(), "removed the carried statements from %s's note\n", short(res.From))
		}
		return nil
	}
	return c
}

// refuseBundles refuses (exit 2) to carry from a commit whose note holds a
// Sigstore bundle line: carry re-issues statements after checking FROM's DSSE
// signatures and cannot check or re-issue a bundle (its certificate identity
// is not a key carry could re-sign with), and skipping those lines would
// silently leave their tasks behind.
func refuseBundles(notes *gitref.NotesStore, from gitref.Hash, fromArg, toArg string) error {
	note, err := notes.Note(from)
	if err != nil {
		return err
	}
	for i, line := range attest.SplitNote(note) {
		if attest.IsBundle(line) {
			return usageErr("the note of %s holds a Sigstore bundle (line %d): attest carry cannot re-issue Sigstore bundles; attest %s again instead (taskproof attest tick --commit %s --signer sigstore …)", fromArg, i+1, toArg, toArg)
		}
	}
	return nil
}
