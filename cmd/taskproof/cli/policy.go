package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/verify"
)

func newPolicyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "Check, explain and print verification policies (rules on verdicts)",
		Example: `  taskproof policy default > policy.toml       # start from the embedded default
  taskproof policy lint policy.toml
  taskproof verify --branch --policy-rev origin/main:.taskproof/policy.toml --allowed-signers-rev origin/main:.github/allowed_signers`,
		Long: `A policy decides whether a verified attestation is acceptable here: allowed verdicts,
regression reasons, deciders, red runs, monitor, mutation, sandbox, executor, pinned
policy_sha256 values, signers, and custom CEL rules. verify applies it with --policy FILE or
--policy-rev REV:PATH (never read from the head being verified); without one the embedded
default policy applies (taskproof policy default prints it).`,
	}
	c.AddCommand(newPolicyLintCmd(), newPolicyExplainCmd(), newPolicyDefaultCmd())
	return c
}

func newPolicyLintCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "lint FILE",
		Short:   "Load and type-check a policy file (exit 3 when it does not load)",
		Example: `  taskproof policy lint .taskproof/policy.toml`,
		Args:    cobra.ExactArgs(1),
		RunE:    func(c *cobra.Command, args []string) error { return runPolicyLint(c.Context(), c, args[0]) },
	}
}

// runPolicyLint is policy lint with ctx: load the policy file, which
// type-checks its rules, and list them.
func runPolicyLint(ctx context.Context, c *cobra.Command, file string) error {
	p, err := policy.Load(file)
	if err != nil {
		return err
	}
	names := p.RuleNames()
	fmt.Fprintf(c.OutOrStdout(), "%s: ok, %d rule(s)\n", file, len(names))
	for _, n := range names {
		fmt.Fprintf(c.OutOrStdout(), "  %s\n", n)
	}
	return nil
}

func newPolicyDefaultCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "default",
		Short:   "Print the embedded default policy",
		Example: `  taskproof policy default > .taskproof/policy.toml`,
		Args:    cobra.NoArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return runPolicyDefault(c.Context(), c) },
	}
}

// runPolicyDefault is policy default with ctx: print the embedded policy.
func runPolicyDefault(ctx context.Context, c *cobra.Command) error {
	_, err := c.OutOrStdout().Write(policy.DefaultText())
	return err
}

func newPolicyExplainCmd() *cobra.Command {
	var (
		trustOpts  options.TrustOptions
		policyOpts options.PolicyOptions
		at         options.AtOptions
	)
	c := &cobra.Command{
		Use:     "explain [REV]",
		Short:   "Verify one object and show every policy rule's result on it",
		Args:    cobra.MaximumNArgs(1),
		Example: `  taskproof policy explain HEAD --policy policy.toml --allowed-signers ~/.config/taskproof/allowed_signers`,
	}
	trustOpts.AddFlags(c)
	at.AddFlags(c)
	policyOpts.AddFlags(c)
	format := options.NewFormat("text", "text", "json")
	format.AddFlags(c)
	c.RunE = cmdutil.InRepo(format.Get, func(ctx context.Context, c *cobra.Command, args []string, f string, repo *gitref.Repo, notes *gitref.NotesStore) error {
		when, err := at.Time(time.Now())
		if err != nil {
			return err
		}
		v, err := loadVerifier(c, repo, notes, trustOpts.Sources, policyOpts.Source, verify.WithTime(when))
		if err != nil {
			return err
		}
		if policyOpts.Source == (policy.Source{}) {
			fmt.Fprintf(c.ErrOrStderr(), "policy: %s\n", v.Policy.Name())
		}
		id, err := repo.Resolve(cmdutil.ArgOr(args, "HEAD"))
		if err != nil {
			return err
		}
		if _, err := notes.Head(); err != nil {
			return err
		}
		ex, err := v.Explain(id)
		if err != nil {
			return err
		}
		if f == "json" {
			return cmdutil.WriteJSON(c, struct {
				SchemaVersion int                  `json:"schema_version"`
				Policy        string               `json:"policy"`
				Objects       []verify.Explanation `json:"objects"`
			}{1, v.Policy.Name(), ex})
		}
		return writeExplanation(c.OutOrStdout(), ex)
	})
	return c
}

// writeExplanation writes each object's outcome and every rule's result.
func writeExplanation(w io.Writer, ex []verify.Explanation) error {
	var b strings.Builder
	for _, e := range ex {
		o := e.Object
		task := o.Task
		if task == "" {
			task = "-"
		}
		fmt.Fprintf(&b, "%s %s outcome=%s", o.Object, task, o.Outcome)
		if o.Verdict != "" {
			fmt.Fprintf(&b, " verdict=%s", o.Verdict)
		}
		b.WriteByte('\n')
		if len(e.Rules) == 0 {
			b.WriteString("  (no rule applies: the predicate could not be read)\n")
		}
		for _, r := range e.Rules {
			fmt.Fprintf(&b, "  %-14s %-5s %s", r.Status, r.Level, r.Rule)
			if r.Message != "" {
				fmt.Fprintf(&b, ": %s", r.Message)
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
