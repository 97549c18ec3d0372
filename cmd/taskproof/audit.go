package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/verify"
)

func init() {
	subcommands = append(subcommands, newAuditCmd)
}

func newAuditCmd() *cobra.Command {
	var (
		src         verify.TrustSources
		all         bool
		unit, since string
		failOn, at  string
		maxShare    float64
	)
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
--fail-on, else all) make up more than S (0–1) of the statements.

Exit codes: 0 report written (gate passed), 1 gate exceeded, 2 usage, 3 trust error,
4 git precondition (not a repository, unknown revision, notes ref absent).`,
		Example: `  taskproof audit --all --format html > audit.html
  taskproof audit origin/main..HEAD --format markdown >> "$GITHUB_STEP_SUMMARY"
  taskproof audit --all --fail-on unrecorded,author_failed --max-share 0.2`,
		Args: cobra.MaximumNArgs(1),
	}
	c.Flags().BoolVar(&all, "all", false, "every note of the notes ref and the ticks of all of HEAD's history")
	c.Flags().StringVar(&unit, "unit", "", "only units whose dir or feature matches this glob (specs/00*, 007-config)")
	c.Flags().StringVar(&since, "since", "", "only statements recorded since DATE (2026-01-02 or RFC 3339)")
	c.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when a regression_only statement has one of these reasons (comma-separated)")
	c.Flags().Float64Var(&maxShare, "max-share", 0, "exit 1 when the gated regression_only statements exceed this share (0–1) of all statements")
	c.Flags().StringVar(&src.AllowedSigners, "allowed-signers", "", "check signatures with this allowed signers file (git's format)")
	c.Flags().StringVar(&src.AllowedSignersRev, "allowed-signers-rev", "", "check signatures with an allowed signers file read from git, as REV:PATH")
	c.Flags().StringSliceVar(&src.Keyrings, "keyring", nil, "check signatures with this OpenPGP public keyring (repeatable)")
	c.Flags().StringSliceVar(&src.RawKeys, "key", nil, "check signatures with this PEM public key (repeatable)")
	c.Flags().StringVar(&at, "at", "", "judge key validity at this time (RFC 3339) instead of now")
	format := formatFlag(c, "text", "text", "json", "csv", "markdown", "html")
	c.RunE = func(c *cobra.Command, args []string) error {
		f, err := format()
		if err != nil {
			return err
		}
		opts := audit.Options{All: all, Unit: unit}
		if since != "" {
			if opts.Since, err = audit.ParseSince(since); err != nil {
				return err
			}
		}
		var gate audit.GateOptions
		if failOn != "" {
			if gate.FailOn, err = audit.ParseReasons(failOn); err != nil {
				return err
			}
		}
		if c.Flags().Changed("max-share") {
			gate.MaxShare = &maxShare
		}
		if err := gate.Validate(); err != nil {
			return err
		}
		if at != "" {
			if opts.At, err = time.Parse(time.RFC3339, at); err != nil {
				return usageErr("--at %q: want RFC 3339 (2026-01-02T15:04:05Z): %v", at, err)
			}
		}
		if all && len(args) > 0 {
			return usageErr("give a RANGE or --all, not both")
		}
		repo, notes, err := openRepo(c)
		if err != nil {
			return err
		}
		defer repo.Close()
		if all {
			if opts.Head, err = repo.Resolve("HEAD"); err != nil {
				return err
			}
		} else {
			spec := "HEAD"
			if len(args) == 1 {
				spec = args[0]
			}
			if opts.Base, opts.Head, err = repo.ResolveRange(spec); err != nil {
				return err
			}
		}
		trustGiven := src.AllowedSigners != "" || src.AllowedSignersRev != "" || len(src.Keyrings) > 0 || len(src.RawKeys) > 0
		if trustGiven {
			trust, used, err := verify.LoadTrust(repo, src)
			if err != nil {
				return err
			}
			for _, u := range used {
				fmt.Fprintf(c.ErrOrStderr(), "trust: %s\n", u)
			}
			opts.Trust = trust
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
			return failed()
		}
		return nil
	}
	return c
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
