package attestcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/carry"
	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/trust"
)

func newAttestCarryCmd() *cobra.Command {
	var (
		sf                 signerFlags
		trustOpts          = options.TrustOptions{KeyFlag: "trusted-key", For: "trust for FROM's signatures: "}
		keep, dryRun       bool
		unverifiedInsecure bool
		unverifiedOld      bool
		force              bool
	)
	c := &cobra.Command{
		Use:   "carry FROM TO | carry FROM-RANGE TO-RANGE | carry RANGE SQUASH",
		Short: "Re-issue FROM's task statements on TO (after a cherry-pick, rebase or squash merge), re-signed",
		Long: `attest carry moves attestations to the commit that now carries the work: the commit a
cherry-pick, rebase or amend made, or a squash merge (the gate reports the original as
commit_unreachable, with same_tree_as when another commit has its tree).

TO must be a rewrite of FROM: it has FROM's tree, or TO — alone or with the commits just
before it on its first-parent line — makes the change FROM's statements judged, that of
FROM's side of their merge base (FROM's own change and the branch's commits before it): the
same lines lost and gained in the same files, whitespace included. Otherwise (another attempt
at the task, a cherry-pick without the commits that implement it, an amend that changed the
work or the task's text) the carry is refused, naming what differs: attest TO's tick instead.
--force carries anyway and says what it overrode (docs/format.md#after-a-rebase-or-squash).

For each task-verification statement FROM's note holds about FROM, it keeps the evidence
(verdict, trace, red run, decider, time, …) and recomputes what depends on the commit, as
'attest tick' does: the subject's gitCommit, the tree, task.line_hash and title (TO's task
line as ticked, read as open), the cited spec section at TO, and policy_sha256 (TO's first
parent's speccoder.toml). TO must tick each task against its first parent — that is where the
gate looks for the evidence. The test-result and verification-summary statements are rebuilt,
everything is signed with your key, and written into TO's note (its other lines kept). Only
then are the carried lines removed from FROM's note (--keep-from leaves them). Statements
TO's note already holds about TO for a carried task are replaced only with --force; without it
the carry is refused, naming them (docs/format.md#attesting-safely).

FROM's signatures are checked first against your trust (the same flags as verify), so a carry
never re-signs statements nobody trusted; --insecure-skip-verify skips that check.

With two ranges (A..B), a rebased branch is re-attested in one command: each tick commit of
FROM-RANGE whose note holds statements about it is paired with the commit of TO-RANGE that
ticks the same tasks (same unit dir and task ID; the latest tick when a task is ticked twice),
every pair is checked first, then each pair is carried as above. A FROM commit whose tasks are
ticked by several TO commits is refused: carry those pairs one at a time.

With a range and one commit (main..feat SQUASH), the range was squash-merged into SQUASH
("Squash and merge"): for every task SQUASH ticks, the statements of its latest tick in the
range are carried onto SQUASH, in one command. SQUASH must be the squash of exactly that range:
its change against its first parent equals the range's combined change (from the merge base
of its two ends), whitespace included; otherwise it is refused. A task whose tick holds no
statement, or statements whose signatures do not verify, is not carried and is named: the
command then exits 1 after carrying the others, as the gate would fail that task.`,
		Example: `  # after a squash merge of feature branch commit abc123 into main:
  taskproof attest carry abc123 main --allowed-signers ~/.config/taskproof/allowed_signers \
      --signer ssh --key ~/.ssh/id_ed25519

  # after 'git rebase' (with 'taskproof init', the note was copied to the new commit too):
  taskproof attest carry ORIG_HEAD HEAD --dry-run

  # after "Squash and merge" of branch feat into main (its last commit squashed as main):
  taskproof attest carry main~1..feat main --allowed-signers ~/.config/taskproof/allowed_signers

  # after rebasing a branch of three commits onto a new main:
  taskproof attest carry ORIG_HEAD~3..ORIG_HEAD HEAD~3..HEAD --allowed-signers ~/.config/taskproof/allowed_signers`,
		Args: cobra.ExactArgs(2),
	}
	sf.add(c)
	trustOpts.AddFlags(c)
	c.Flags().BoolVar(&unverifiedInsecure, "insecure-skip-verify", false, "re-sign FROM's statements without checking their signatures (unsafe)")
	c.Flags().BoolVar(&unverifiedOld, "unverified-from-insecure", false, "re-sign FROM's statements without checking their signatures")
	_ = c.Flags().MarkDeprecated("unverified-from-insecure", "use --insecure-skip-verify instead")
	c.PreRunE = func(c *cobra.Command, _ []string) error {
		if err := options.RefuseBothSpellings(c, "insecure-skip-verify", "unverified-from-insecure", "--unverified-from-insecure"); err != nil {
			return err
		}
		unverifiedInsecure = unverifiedInsecure || unverifiedOld
		if unverifiedInsecure {
			options.WarnInsecure(c, "insecure-skip-verify", "FROM's statements are re-signed with your key without checking their signatures; anyone who can push a note on FROM gets your signature")
		}
		return nil
	}
	c.Flags().BoolVar(&keep, "keep-from", false, "keep the carried statements in FROM's note")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the statements without writing any note")
	c.Flags().BoolVar(&force, "force", false, "replace the statements TO's note already holds for a carried task (as git notes add -f does), and carry to a TO that is no rewrite of FROM")
	format := options.NewFormat("text", "text", "json")
	format.AddFlags(c)
	c.RunE = cmdutil.InRepo(format.Get, func(ctx context.Context, c *cobra.Command, args []string, f string, repo *gitref.Repo, notes *gitref.NotesStore) error {
		var err error
		req := carry.Request{KeepFrom: keep, DryRun: dryRun, UnverifiedFromUnsafe: unverifiedInsecure, Force: force}
		if carry.IsSquash(args[0], args[1]) {
			return carrySquash(ctx, c, repo, notes, req, args[0], args[1], f, func(req *carry.Request) error {
				if !unverifiedInsecure {
					if req.CheckFrom, err = checkFrom(c, repo, trustOpts.Sources, args[0]); err != nil {
						return err
					}
				}
				req.Signers, err = sf.signers(c, repo)
				return err
			})
		}
		plan, err := carry.ResolvePairs(repo, notes, args[0], args[1])
		if plan != nil {
			for _, u := range plan.Unattested {
				fmt.Fprintf(c.ErrOrStderr(), "warning: %s ticks tasks but its note holds no statement about it: nothing to carry\n", cmdutil.Short(u))
			}
		}
		if err != nil {
			return err
		}
		pairs, done := plan.Pairs, plan.Done
		printCarriedBefore(c, done, f)
		if len(pairs) == 0 {
			if f == "json" {
				return cmdutil.WriteJSON(c, map[string]any{"schema_version": 1, "dry_run": dryRun, "pairs": []carry.Pair{}, "carries": []*carry.Result{}, "done": done})
			}
			return nil
		}
		if err := refuseBundles(notes, pairs); err != nil {
			return err
		}
		if !unverifiedInsecure {
			if req.CheckFrom, err = checkFrom(c, repo, trustOpts.Sources, args[0]); err != nil {
				return err
			}
		}
		if req.Signers, err = sf.signers(c, repo); err != nil {
			return err
		}
		if len(pairs) != 1 || pairs[0].Tasks != nil {
			return carryRange(ctx, c, repo, notes, req, pairs, done, f, dryRun)
		}
		req.From, req.To = pairs[0].From, pairs[0].To
		res, err := carry.Carry(ctx, repo, notes, req)
		if err != nil {
			return cmdutil.WithAttestFlags(err)
		}
		return printCarry(c, res, f, dryRun)
	})
	return c
}

// refuseBundles refuses, before any trust is read or note written, the pairs
// whose FROM note holds Sigstore bundles (carry.CheckNoBundles), pointing to
// attest tick instead.
func refuseBundles(notes *gitref.NotesStore, pairs []carry.Pair) error {
	for _, p := range pairs {
		if err := carry.CheckNoBundles(notes, p.From, p.To); err != nil {
			if errors.Is(err, attest.ErrRequest) {
				return fmt.Errorf("%w (taskproof attest tick --commit %s --signer sigstore …)", err, p.To)
			}
			return err
		}
	}
	return nil
}

// checkFrom loads the verifier's trust from src and returns the
// CarryRequest.CheckFrom that accepts a FROM envelope only when its signatures
// are OK against it (trust.VerifySignatures).
func checkFrom(c *cobra.Command, repo *gitref.Repo, src trust.Sources, fromArg string) (func(string, *dsse.Envelope) error, error) {
	// FROM's statements are carried onto commits the user names, in a
	// checkout that is theirs: no head is being verified, so a trust file in
	// the work tree is the user's own.
	tr, used, err := trust.LoadTrustUnsafe(repo, src)
	if err != nil {
		return nil, fmt.Errorf("checking FROM's signatures: %w (or pass --insecure-skip-verify)", cmdutil.WithTrustFlags(err, "--trusted-key"))
	}
	for _, u := range used {
		fmt.Fprintf(c.ErrOrStderr(), "trust: %s\n", u)
	}
	now := time.Now()
	return func(subject string, env *dsse.Envelope) error {
		res, err := trust.VerifySignatures(env, tr, now)
		if err != nil {
			return err
		}
		if res.Status != trust.OK {
			return cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("its signatures are %s: not carried (check with `taskproof verify %s`)", res.Status, fromArg))
		}
		return nil
	}, nil
}

// printCarry is a one-pair carry's report.
func printCarry(c *cobra.Command, res *carry.Result, f string, dryRun bool) error {
	if f == "json" {
		return writeCarryJSON(c, map[string]any{"schema_version": 1, "dry_run": dryRun, "carry": res}, res)
	}
	if err := printWritten(c.OutOrStdout(), c.ErrOrStderr(), "text", res.Written, dryRun); err != nil {
		return err
	}
	printFromKept(c, res)
	return nil
}

// printCarriedBefore says, for a range carry run again, which pairs were
// carried already (on stderr with --format json, whose report lists them).
func printCarriedBefore(c *cobra.Command, done []carry.Pair, f string) {
	w := c.OutOrStdout()
	if f == "json" {
		w = c.ErrOrStderr()
	}
	for _, d := range done {
		fmt.Fprintf(w, "%s -> %s: carried already (%s: %s's note holds their statements)\n", cmdutil.Short(d.From), cmdutil.Short(d.To), strings.Join(d.Tasks, ", "), cmdutil.Short(d.To))
	}
}

// carryRange carries every pair of a range carry. PairCarries paired them;
// each pair is then carried dry and unsigned (FROM's signatures checked, TO's
// ticks and note read) before the first is written, so that a pair that
// cannot be carried leaves the branch as it was. A failure while writing
// names the pairs done.
func carryRange(ctx context.Context, c *cobra.Command, repo *gitref.Repo, notes *gitref.NotesStore, req carry.Request, pairs, done []carry.Pair, f string, dryRun bool) error {
	reach, err := repo.RefReach()
	if err != nil {
		return err
	}
	req.Reach = reach
	for _, p := range pairs {
		r := req
		r.From, r.To, r.DryRun, r.Signers = p.From, p.To, true, nil
		if _, err := carry.Carry(ctx, repo, notes, r); err != nil {
			return fmt.Errorf("checking the carry of %s to %s (%s): %w (nothing was carried)", cmdutil.Short(p.From), cmdutil.Short(p.To), strings.Join(p.Tasks, ", "), cmdutil.WithAttestFlags(err))
		}
	}
	var carried []*carry.Result
	for _, p := range pairs {
		r := req
		r.From, r.To = p.From, p.To
		res, err := carry.Carry(ctx, repo, notes, r)
		if err != nil {
			err = cmdutil.WithAttestFlags(err)
			var names []string
			for _, d := range carried {
				names = append(names, cmdutil.Short(d.From)+"->"+cmdutil.Short(d.To))
			}
			if len(names) == 0 {
				names = []string{"none"}
			}
			return fmt.Errorf("carrying %s to %s (%s): %w (pairs carried already: %s; once that is fixed, run the same carry again: it resumes, the pairs carried count as done)", cmdutil.Short(p.From), cmdutil.Short(p.To), strings.Join(p.Tasks, ", "), err, strings.Join(names, ", "))
		}
		carried = append(carried, res)
	}
	if f == "json" {
		return writeCarryJSON(c, map[string]any{"schema_version": 1, "dry_run": dryRun, "pairs": pairs, "carries": carried, "done": done}, carried...)
	}
	for _, res := range carried {
		fmt.Fprintf(c.OutOrStdout(), "%s -> %s:\n", cmdutil.Short(res.From), cmdutil.Short(res.To))
		if err := printWritten(c.OutOrStdout(), c.ErrOrStderr(), "text", res.Written, dryRun); err != nil {
			return err
		}
		printFromKept(c, res)
	}
	return nil
}

// printFromKept says what became of FROM's statements, and what --force
// overrode.
func printFromKept(c *cobra.Command, res *carry.Result) {
	printOverrode(c, res)
	switch {
	case res.RemovedFrom:
		fmt.Fprintf(c.OutOrStdout(), "removed the carried statements from %s's note\n", cmdutil.Short(res.From))
	case len(res.AlreadyCarried) > 0:
		fmt.Fprintf(c.OutOrStdout(), "%s -> %s: carried already (%s: %s's note holds no statement about it, %s's holds theirs)\n", cmdutil.Short(res.From), cmdutil.Short(res.To), strings.Join(res.AlreadyCarried, ", "), cmdutil.Short(res.From), cmdutil.Short(res.To))
	case res.KeptFromRef != "":
		fmt.Fprintf(c.OutOrStdout(), "kept %s's statements: it is still in the history of %s (a cherry-pick's original keeps its evidence; for a backup of a rewrite, delete that ref and carry again to remove them)\n", cmdutil.Short(res.From), res.KeptFromRef)
	}
}

// printOverrode warns, on stderr, that --force carried to a TO that is no
// rewrite of FROM.
func printOverrode(c *cobra.Command, res *carry.Result) {
	if res.Overrode != "" {
		fmt.Fprintf(c.ErrOrStderr(), "warning: --force: %s\n", cmdutil.MessageText(res.Overrode))
	}
}

// writeCarryJSON writes the JSON report v of carries, their statements'
// warnings going to stderr (the text report prints them with the statements).
func writeCarryJSON(c *cobra.Command, v any, carries ...*carry.Result) error {
	for _, res := range carries {
		printOverrode(c, res)
		for _, w := range res.Written {
			for _, warn := range w.Warnings {
				fmt.Fprintf(c.ErrOrStderr(), "warning: %s\n", cmdutil.MessageText(warn))
			}
		}
	}
	return cmdutil.WriteJSON(c, v)
}
