package attestcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/predicate"
)

func newAttestDecideCmd() *cobra.Command {
	o := &decideOptions{}
	c := &cobra.Command{
		Use:   "decide --task ID --verdict attested|skipped --by NAME --reason TEXT",
		Short: "Record a person's decision on a task: attested (accepted without test evidence) or skipped",
		Long: `attest decide records a decision statement (the predicate's decider set, no test evidence).

  attested  goes into the note of the commit that ticks the task (--commit, default HEAD).
  skipped   writes a skip record: a commit whose tree is the decision commit's (--commit),
            with that commit as parent and the message "skip <feature>/<task>: <reason>",
            pointed to by refs/speccoder/skipped/<feature>/<task>; its note holds the statement.

A decision replaces no statement unless --force: attested over statements the tick commit's
note already holds for the task, or skipped over an existing skip record of the task, is
refused, naming them (docs/format.md#attesting-safely).`,
		Example: `  taskproof attest decide --task T007 --verdict attested --by "Ada Lovelace" --reason "verified by hand on staging"
  taskproof attest decide --task 2.3 --verdict skipped --by ada --reason "superseded by 2.4" --unit openspec/changes/add-auth`,
		Args: cobra.NoArgs,
	}
	o.sf.add(c)
	c.Flags().StringVar(&o.commitRev, "commit", "HEAD", "`REV` of the tick commit (attested) or of the decision commit (skipped)")
	c.Flags().StringVar(&o.task, "task", "", "task `ID`, or its title or a prefix of the title (required)")
	c.Flags().StringVar(&o.unit, "unit", "", "unit directory `DIR`, when the task ID is in several units")
	c.Flags().StringVar(&o.verdict, "verdict", "", "the decision, `attested|skipped` (required)")
	cmdutil.Choices(c, "verdict", "attested", "skipped")
	c.Flags().StringVar(&o.by, "by", "", "`NAME` of who decided (required): a policy's deciders credit it only when the statement is signed by that principal, keyid, OpenPGP address or Sigstore identity (docs/format.md#deciders)")
	c.Flags().StringVar(&o.reason, "reason", "", "why, in plain `TEXT` (required)")
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the statement without writing anything")
	c.Flags().BoolVar(&o.force, "force", false, "replace the statements the tick commit's note holds for the task (attested) or the task's skip record (skipped)")
	o.format = options.NewFormat("text", "text", "json")
	o.format.AddFlags(c)
	c.RunE = func(c *cobra.Command, args []string) error { return o.run(c.Context(), c, args) }
	return c
}

// decideOptions are attest decide's flags.
type decideOptions struct {
	sf                                 signerFlags
	commitRev, task, unit, verdict, by string
	reason                             string
	dryRun, force                      bool
	format                             *options.FormatOptions
}

// run is attest decide with ctx: check the decision, choose the signers and
// write it.
func (o *decideOptions) run(ctx context.Context, c *cobra.Command, args []string) error {
	f, err := o.format.Get()
	if err != nil {
		return err
	}
	for name, v := range map[string]string{"--task": o.task, "--verdict": o.verdict, "--by": o.by, "--reason": o.reason} {
		if strings.TrimSpace(v) == "" {
			return cmdutil.Usagef("%s is required", name)
		}
	}
	req := attest.DecideRequest{Task: o.task, UnitDir: o.unit, Verdict: predicate.Verdict(o.verdict), By: o.by, Reason: o.reason,
		DryRun: o.dryRun, Force: o.force}
	// Usage before keys: a bad verdict is a typo (exit 2), whatever key is configured.
	if err := req.CheckVerdict(); err != nil {
		return err
	}
	repo, notes, commit, err := cmdutil.OpenCommit(c, o.commitRev)
	if err != nil {
		return err
	}
	defer repo.Close()
	req.Commit = commit
	if req.Signers, err = o.sf.signers(c, repo); err != nil {
		return err
	}
	w, err := attest.Decide(ctx, repo, notes, req)
	if err != nil {
		return cmdutil.WithAttestFlags(err)
	}
	return printWritten(c.OutOrStdout(), c.ErrOrStderr(), f, []attest.Written{*w}, o.dryRun)
}

func newAttestSignCmd() *cobra.Command {
	o := &signOptions{}
	c := &cobra.Command{
		Use:   "sign [REV…]",
		Short: "Add your signature to the statements in commits' notes, in place (co-signing)",
		Long: `attest sign adds the key's signature to every envelope of REV's note (default HEAD)
that is about REV and does not carry it yet, keeping the payload and the signatures it holds:
a statement someone else signed gets your signature beside theirs, so two people can meet a
[signers] min = 2 rule (docs/format.md#co-signing). Every other line is kept byte for byte. A
Sigstore bundle holds exactly one signature and is left as it is. When nothing was signed the
output says why (already signed by this key, bundles, statements about another commit).`,
		Example: `  taskproof attest sign --signer ssh --key ~/.ssh/id_ed25519 HEAD~2 HEAD
  # bob co-signs what alice attested, then shares it:
  taskproof notes fetch && taskproof attest sign --key ~/.ssh/bob HEAD && taskproof notes push`,
	}
	o.sf.add(c)
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "say what would be signed without writing")
	o.format = options.NewFormat("text", "text", "json")
	o.format.AddFlags(c)
	c.RunE = func(c *cobra.Command, args []string) error { return o.run(c.Context(), c, args) }
	return c
}

// signOptions are attest sign's flags.
type signOptions struct {
	sf     signerFlags
	dryRun bool
	format *options.FormatOptions
}

// run is attest sign with ctx: choose the signers and add their signatures to
// each REV's note.
func (o *signOptions) run(ctx context.Context, c *cobra.Command, args []string) error {
	f, err := o.format.Get()
	if err != nil {
		return err
	}
	if len(args) == 0 {
		args = []string{"HEAD"}
	}
	repo, notes, err := cmdutil.OpenRepo(c)
	if err != nil {
		return err
	}
	defer repo.Close()
	if o.sf.unsigned {
		return cmdutil.Usagef("attest sign signs: --unsigned does not apply")
	}
	signers, err := o.sf.signers(c, repo)
	if err != nil {
		return err
	}
	notes.Message = "Notes signed by 'taskproof attest sign'\n"
	var results []*attest.SignResult
	for _, a := range args {
		id, err := repo.Resolve(a)
		if err != nil {
			return err
		}
		r, err := attest.SignNote(ctx, notes, id, signers, o.dryRun)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if f == "json" {
		return cmdutil.WriteJSON(c, map[string]any{"schema_version": 1, "dry_run": o.dryRun, "signed": results})
	}
	for _, r := range results {
		line := fmt.Sprintf("%s: signed %d envelope(s)", cmdutil.Short(r.Commit), r.Signed)
		if len(r.Subjects) > 0 {
			line += " " + strings.Join(r.Subjects, " ")
		}
		if why := r.Why(); why != "" {
			line += " (" + why + ")"
		}
		// Subject names come from the note: written escaped.
		fmt.Fprintln(c.OutOrStdout(), printable.String(line))
	}
	return nil
}

func newAttestShowCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "show [REV]",
		Short: "Print a commit's note: statements decoded, signatures summarised (nothing verified)",
		Long: `attest show prints REV's note (default HEAD) under --notes-ref, one entry per line:
the payloadType, predicateType, subjects, each signature's kind and keyid hint, and the
decoded statement. Nothing is verified: use 'taskproof verify REV' for that.`,
		Example: `  taskproof attest show
  taskproof attest show HEAD~2 --format json`,
		Args: cobra.MaximumNArgs(1),
	}
	o := &showOptions{format: options.NewFormat("text", "text", "json")}
	o.format.AddFlags(c)
	c.RunE = func(c *cobra.Command, args []string) error { return o.run(c.Context(), c, args) }
	return c
}

// showOptions are attest show's flags.
type showOptions struct {
	format *options.FormatOptions
}

// run is attest show with ctx: read REV's note and print it decoded.
func (o *showOptions) run(ctx context.Context, c *cobra.Command, args []string) error {
	f, err := o.format.Get()
	if err != nil {
		return err
	}
	repo, notes, id, err := cmdutil.OpenCommit(c, cmdutil.ArgOr(args, "HEAD"))
	if err != nil {
		return err
	}
	defer repo.Close()
	note, err := notes.Note(id)
	if errors.Is(err, gitref.ErrNoNote) {
		return fmt.Errorf("%w (attested in another clone? taskproof notes fetch; not attested yet? taskproof attest tick --commit %s)", err, id)
	}
	if err != nil {
		return err
	}
	lines := attest.ShowNote(note)
	if f == "json" {
		return cmdutil.WriteJSON(c, map[string]any{"schema_version": 1, "commit": id, "notes_ref": notes.Ref(), "lines": lines})
	}
	writeShownNote(c.OutOrStdout(), id, notes.Ref(), lines)
	return nil
}

// writeShownNote writes attest show's text: every string read from the note
// (identities and issuers, key ids, subjects, the statement) is written as
// printable.String writes it, since whoever wrote the note chose its bytes
// and nothing in it is verified here.
func writeShownNote(out io.Writer, id gitref.Hash, ref string, lines []attest.ShownLine) {
	p := printable.String
	fmt.Fprintf(out, "note on %s (%s), %d line(s)\n", id, p(ref), len(lines))
	for _, l := range lines {
		fmt.Fprintf(out, "\nline %d:", l.Line)
		if l.Error != "" {
			fmt.Fprintf(out, " not readable: %s\n", p(l.Error))
			continue
		}
		var subs []string
		for _, s := range l.Subjects {
			subs = append(subs, p(s.Name)+" @ "+p(s.Digest["gitCommit"]))
		}
		fmt.Fprintf(out, " %s\n  subject: %s\n", p(l.PredicateType), strings.Join(subs, ", "))
		if len(l.Signatures) == 0 {
			fmt.Fprintf(out, "  signatures: none (unsigned)\n")
		}
		for _, s := range l.Signatures {
			fmt.Fprintf(out, "  signature: %s keyid %s (not verified here; use taskproof verify)\n", p(string(s.Kind)), p(s.KeyID))
		}
		if b := l.Bundle; b != nil {
			tlog := "none"
			if b.TlogIndex != nil {
				tlog = fmt.Sprint(*b.TlogIndex)
			}
			if b.Identity == "" && b.KeyHint != "" {
				fmt.Fprintf(out, "  sigstore bundle %s: signed with a key, hint %s, tlog index %s (not verified here)\n", p(b.MediaType), p(b.KeyHint), tlog)
			} else {
				fmt.Fprintf(out, "  sigstore bundle %s: certificate identity %s, issuer %s, tlog index %s (not verified here)\n", p(b.MediaType), p(b.Identity), p(b.Issuer), tlog)
			}
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, l.Statement, "  ", "  "); err == nil {
			// JSON escapes C0 controls itself; C1 controls and bidirectional
			// formatting characters stay raw in it.
			text := strings.Split(pretty.String(), "\n")
			for i := range text {
				text[i] = p(text[i])
			}
			fmt.Fprintf(out, "  statement: %s\n", strings.Join(text, "\n"))
		}
	}
}
