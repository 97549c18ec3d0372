package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"
	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
	"github.com/taskproof/taskproof/policy"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/taskproof/taskproof/gate"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/panics"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/report"
	"github.com/taskproof/taskproof/tick"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// verifyOptions are verify's flags.
type verifyOptions struct {
	trust       options.TrustOptions
	policy      options.PolicyOptions
	fromRemotes options.NotesFromRemotesOptions
	format      *options.FormatOptions
	branch      bool
	base        string
	at          options.AtOptions
	gate        options.GateOptions
	jsonReport  string
}

func (f *verifyOptions) add(c *cobra.Command) {
	f.trust.AddFlags(c)
	f.trust.AddSigstoreFlags(c)
	c.Flags().BoolVar(&f.branch, "branch", false, "verify every tick of the branch: BASE..HEAD")
	c.Flags().StringVar(&f.base, "base", "", "base revision `REV` for --branch (default: origin/$GITHUB_BASE_REF in a pull request run, else a symbolic origin/HEAD, else origin/main or origin/master, main or master: docs/format.md#default-base)")
	f.at.AddFlags(c)
	f.gate.AddFlags(c)
	c.Flags().StringVar(&f.jsonReport, "json-report", "", "also write the JSON report (as --format json writes it, the error result included) to `FILE`")
	f.policy.AddFlags(c)
	f.fromRemotes.AddFlags(c)
	f.format = options.NewFormat("text", "text", "json", "sarif", "github", "junit")
	f.format.AddFlags(c)
}

func newVerifyCmd() *cobra.Command {
	o := &verifyOptions{}
	c := &cobra.Command{
		Use:   "verify [REV…] | verify --branch [--base REV] [HEAD] | verify A..B",
		Short: "Verify task attestations: objects, or every tick of a branch (the merge gate)",
		Long: `verify checks attestations against the verifier's own trust (never the project's).

  taskproof verify REV…              each object's note: outcome ok, unsigned,
                                     missing, bad_signature, untrusted_signer, mismatch, malformed
                                     (docs/format.md#verification-rules)
  taskproof verify --branch [HEAD]   the merge gate: every tick in BASE..HEAD is
                                     evidenced, stale or unverifiable; --base defaults to the pull request's
                                     base, origin/HEAD, origin/main or origin/master, main or master
                                     (docs/format.md#default-base, docs/format.md#gate-rules)
  taskproof verify A..B              the merge gate over a range

Trust (one at least): --allowed-signers FILE, --allowed-signers-rev REV:PATH (e.g. the
base branch's copy), --keyring FILE
(OpenPGP), --key FILE.pem (raw keys, and Sigstore bundles signed with a key such as cosign's
cosign.pub), --trusted-root FILE with --certificate-identity[-regexp] and
--certificate-oidc-issuer (Sigstore bundles; a trusted root alone checks the transparency log
entries of bundles signed with a --key); with none of these, git's gpg.ssh.allowedSignersFile
(outside the work tree; never added to trust a flag names). Key validity windows are judged at --at (default now);
a Sigstore certificate at its verified transparency log or timestamp time.` + "\n\n" + cmdutil.ExitHelp(),
		Example: `  taskproof verify --branch --base origin/main --allowed-signers-rev origin/main:.github/allowed_signers
  taskproof verify HEAD --allowed-signers ~/.config/taskproof/allowed_signers --format json`,
	}
	o.add(c)
	c.RunE = func(c *cobra.Command, args []string) error { return o.run(c.Context(), c, args) }
	return c
}

// run is verify with ctx: read the flags, open the repository, resolve what
// is verified, load the verifier, verify, write the report; an error is
// also written as the format's error result.
func (o *verifyOptions) run(ctx context.Context, c *cobra.Command, args []string) error {
	f, err := o.format.Get()
	if err == nil {
		// On the main goroutine, a panic is recovered here, not in Main,
		// so that the machine-readable formats report it too.
		err = internalError(panics.Call(func() error { return o.verify(ctx, c, f, args) }))
	}
	var tf *tick.TasksFileError
	if errors.As(err, &tf) {
		err = cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("the gate fails: %w", err))
	}
	if err != nil {
		format, _ := c.Flags().GetString("format")
		writeErrorResult(c, format, o.jsonReport, err)
	}
	return err
}

// verify is verify's steps: read the flags, open the repository, resolve
// what is verified, load the verifier, verify, write the report.
func (o *verifyOptions) verify(ctx context.Context, c *cobra.Command, format string, args []string) error {
	when, err := o.at.Time(time.Now())
	if err != nil {
		return err
	}
	targets := gate.TargetArgs{Branch: o.branch, Base: o.base, Args: args, PRBase: os.Getenv("GITHUB_BASE_REF")}
	if err := targets.Check(); err != nil {
		return err
	}
	repo, notes, err := cmdutil.OpenRepo(c, gitref.Access{OnePass: true})
	if err != nil {
		return err
	}
	defer repo.Close()
	// The merged view prefers the statements the verifier's trust credits
	// (a trust that does not load fails below, with the verifier's error;
	// Sigstore trust, which may need the network, is left to the gate; where
	// the trust files lie is checked below, before anything is judged).
	var trusted func([]byte) bool
	keys := o.trust.Sources
	keys.TrustedRoot, keys.SigstorePublicGood = "", false
	if tr, _, terr := trust.LoadTrustUnsafe(repo, keys); terr == nil {
		trusted = trust.MergeTrusted(tr, when)
	}
	if notes, err = o.fromRemotes.Notes(c, notes, trusted); err != nil {
		return err
	}
	tg, err := gate.ResolveTargets(repo, targets)
	if err != nil {
		return err
	}
	if err := verify.CheckInputsOutsideWorkTree(repo, o.trust.Sources, o.policy.Source); err != nil {
		return err
	}
	v, err := loadVerifier(c, repo, notes, o.trust.Sources, o.policy.Source, verify.WithTime(when))
	if err != nil {
		return err
	}
	rep, err := gate.VerifySpooled(v, tg, o.gate.Options())
	if err != nil {
		return err
	}
	defer rep.Close()
	if err := repo.Intact(); err != nil {
		// Some check read a missing object as a finding: not a verdict.
		return err
	}
	if o.jsonReport != "" {
		if err := cmdutil.WriteOutputFile("--json-report", o.jsonReport, func(w io.Writer) error { return verify.WriteJSON(w, rep) }); err != nil {
			return err
		}
	}
	if err := writeReport(c, format, rep, o.gate.Options()); err != nil {
		return err
	}
	warnEmptyRange(c, tg, rep)
	noteNoTicks(c, tg, rep)
	if rep.Conclusion == verify.Failure {
		return cmdutil.Failed()
	}
	return nil
}

// loadVerifier loads the trust and the policy srcs name and builds the
// verifier, naming on stderr the inputs used (the policy only when one is
// given).
func loadVerifier(c *cobra.Command, repo *gitref.Repo, notes *gitref.NotesStore, src trust.Sources, psrc policy.Source, opts ...verify.VerifierOption) (*verify.Verifier, error) {
	tr, used, err := trust.LoadTrust(repo, src)
	if err != nil {
		return nil, cmdutil.WithTrustFlags(err, "--key")
	}
	for _, u := range used {
		fmt.Fprintf(c.ErrOrStderr(), "trust: %s\n", u)
	}
	pol, ref, err := policy.LoadSourceRef(repo, psrc)
	if err != nil {
		return nil, err
	}
	switch {
	case ref != "":
		fmt.Fprintf(c.ErrOrStderr(), "policy: %s (%s at %s)\n", pol.Name(), ref, pol.Commit())
	case psrc != (policy.Source{}):
		fmt.Fprintf(c.ErrOrStderr(), "policy: %s\n", pol.Name())
	}
	return verify.NewVerifier(repo, notes, tr, append(opts, verify.WithPolicy(pol))...)
}

// warnEmptyRange warns when base..head is empty: head is base or one of its
// ancestors (verify --branch run on the base branch itself). The report is
// neutral, exit 0 (docs/cli/exit-codes.md), which must not pass for a check.
func warnEmptyRange(c *cobra.Command, tg verify.Verified, rep *verify.Report) {
	if !tg.Range || tg.Base == "" {
		return
	}
	if rep.RangeCommits() == 0 {
		why := "head " + string(tg.Head) + " is the base itself"
		if tg.Head != tg.Base {
			why = "head " + string(tg.Head) + " is an ancestor of the base " + string(tg.Base)
		}
		fmt.Fprintf(c.ErrOrStderr(), "warning: the range %s is empty: %s, so nothing is verified; give --base the commit the checks start from (the root commit, $(git rev-list --max-parents=0 HEAD), for all of history)\n", printable.String(tg.RangeName()), printable.String(why))
	}
}

// noteNoTicks notes on stderr a neutral gate over a non-empty range: commits
// were checked and none ticked a task of a recognized tasks file
// (docs/format.md#tasks-files), which a reviewer should see (a branch whose
// ticks are in files the gate does not read, or a base chosen past them). The
// reports stay as they are.
func noteNoTicks(c *cobra.Command, tg verify.Verified, rep *verify.Report) {
	n := rep.RangeCommits()
	if !tg.Range || n == 0 || rep.Conclusion != verify.Neutral || rep.TickCount()+len(rep.Unticks)+len(rep.BornTicked) > 0 {
		return
	}
	noun := "commits"
	if n == 1 {
		noun = "commit"
	}
	fmt.Fprintf(c.ErrOrStderr(), "note: %d %s in %s, no ticks of recognized tasks files: nothing was verified\n", n, noun, printable.String(tg.RangeName()))
}

// writeReport writes the report to stdout in the chosen format (logs go to stderr).
func writeReport(c *cobra.Command, format string, rep *verify.Report, gate verify.GateOptions) error {
	out := c.OutOrStdout()
	switch format {
	case "json":
		return verify.WriteJSON(out, rep)
	case "text":
		color := false
		if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("NO_COLOR") == "" {
			color = true
		}
		return report.WriteText(out, rep, color)
	}
	return writeCIReport(c, format, rep, gate)
}
