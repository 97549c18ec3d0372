package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/trust"
)

// auditFlags are audit's flags beyond the format.
type auditFlags struct {
	trust       options.TrustOptions
	all         bool
	unit, since string
	failOn      string
	at          options.AtOptions
	maxShare    float64
}

func (f *auditFlags) add(c *cobra.Command) {
	c.Flags().BoolVar(&f.all, "all", false, "every note of the notes ref and the ticks of all of HEAD's history")
	c.Flags().StringVar(&f.unit, "unit", "", "only units whose dir or feature matches this `GLOB` (specs/00*, 007-config)")
	c.Flags().StringVar(&f.since, "since", "", "only statements recorded since `DATE` (2026-01-02 or RFC 3339)")
	c.Flags().StringVar(&f.failOn, "fail-on", "", "exit 1 when a regression_only statement has one of these `REASONS` (comma-separated)")
	c.Flags().Float64Var(&f.maxShare, "max-share", 0, "exit 1 when the gated regression_only statements exceed this `SHARE` (0–1) of all statements")
	f.trust.AddFlags(c)
	f.at.AddFlags(c)
}

// options reads the flags into the audit's options (without the range and
// the trust, which need the repository) and its gate.
func (f *auditFlags) options(c *cobra.Command, args []string) (audit.Options, audit.GateOptions, error) {
	opts := audit.Options{All: f.all, Unit: f.unit}
	var gate audit.GateOptions
	var err error
	if f.since != "" {
		if opts.Since, err = audit.ParseSince(f.since); err != nil {
			return opts, gate, err
		}
	}
	if f.failOn != "" {
		if gate.FailOn, err = audit.ParseReasons(f.failOn); err != nil {
			return opts, gate, err
		}
	}
	if c.Flags().Changed("max-share") {
		gate.MaxShare = &f.maxShare
	}
	if err := gate.Validate(); err != nil {
		return opts, gate, err
	}
	if opts.At, err = f.at.Time(time.Time{}); err != nil {
		return opts, gate, err
	}
	if f.all && len(args) > 0 {
		return opts, gate, cmdutil.Usagef("give a RANGE or --all, not both")
	}
	return opts, gate, nil
}

func newAuditCmd() *cobra.Command {
	var flags auditFlags
	c := &cobra.Command{
		Use:   "audit [RANGE | --all]",
		Short: "Report why ticks are regression_only, across a range or the whole repository",
		Long: `audit reads every task-verification statement (revision-aware: a regression_only
tick without a recorded reason reads as "unrecorded", docs/format.md#hash-recipes) and reports
counts per verdict, regression reasons per unit, one row per regression_only tick with
its reason details, a trend per ISO week, and the ticks that carry no evidence.

  taskproof audit [RANGE]   the ticks of RANGE ("A..B" or a revision: all of its
                            history; default HEAD) and the notes of their commits
  taskproof audit --all     every note of the notes ref, and the ticks of all of
                            HEAD's history (for the ticks without evidence)

Signatures are shown, not required: without trust flags their status is "not_checked"
(or "unsigned"); with --allowed-signers, --allowed-signers-rev, --keyring or --key each
statement carries its docs/format.md#verification-rules outcome from verify.

Soft gate: --fail-on REASON[,…] exits 1 when any regression_only statement has one of
the reasons; --max-share S exits 1 when the gated regression_only statements (those of
--fail-on, else all) make up more than S (0–1) of the statements.` + "\n\n" + cmdutil.ExitHelp(),
		Example: `  taskproof audit --all --format html > audit.html
  taskproof audit origin/main..HEAD --format markdown >> "$GITHUB_STEP_SUMMARY"
  taskproof audit --all --fail-on unrecorded,author_failed --max-share 0.2`,
		Args: cobra.MaximumNArgs(1),
	}
	flags.add(c)
	format := options.NewFormat("text", "text", "json", "csv", "markdown", "html")
	format.AddFlags(c)
	access := func() gitref.Access { return audit.Access(flags.all, flags.trust.Given()) }
	c.RunE = cmdutil.InRepoWith(format.Get, access, func(ctx context.Context, c *cobra.Command, args []string, f string, repo *gitref.Repo, notes *gitref.NotesStore) error {
		opts, gate, err := flags.options(c, args)
		if err != nil {
			return err
		}
		if err := opts.SetRange(repo, cmdutil.ArgOr(args, "HEAD")); err != nil {
			return err
		}
		if opts.Trust, err = loadAuditTrust(c, repo, &flags.trust); err != nil {
			return err
		}
		rep, err := audit.Run(repo, notes, opts)
		if err != nil {
			return err
		}
		var g audit.GateResult
		if gate.Active() {
			g = rep.SetGate(gate)
		}
		if err := writeAudit(c, f, rep); err != nil {
			return err
		}
		if g.Failed {
			fmt.Fprintf(c.ErrOrStderr(), "taskproof: audit gate exceeded: %s\n", g.Message)
			return cmdutil.Failed()
		}
		return nil
	})
	return c
}

// loadAuditTrust loads the trust the flags give, naming the inputs used on
// stderr; nil when no flag gives one (signatures are then not checked, and
// git's gpg.ssh.allowedSignersFile is not read).
func loadAuditTrust(c *cobra.Command, repo *gitref.Repo, opts *options.TrustOptions) (*trust.Trust, error) {
	if !opts.Given() {
		return nil, nil
	}
	// audit explains a history and passes no gate: a trust file the work
	// tree holds is the caller's choice to read it with.
	tr, used, err := trust.LoadTrustUnsafe(repo, opts.Sources)
	if err != nil {
		return nil, err
	}
	for _, u := range used {
		fmt.Fprintf(c.ErrOrStderr(), "trust: %s\n", u)
	}
	return tr, nil
}

// writeAudit writes the audit report to stdout in the chosen format.
func writeAudit(c *cobra.Command, format string, rep *audit.Report) error {
	out := c.OutOrStdout()
	switch format {
	case "json":
		return audit.WriteJSON(out, rep)
	case "csv":
		return audit.WriteCSV(out, rep)
	case "markdown":
		return audit.WriteMarkdown(out, rep)
	case "html":
		return audit.WriteHTML(out, rep)
	}
	return audit.WriteText(out, rep)
}
