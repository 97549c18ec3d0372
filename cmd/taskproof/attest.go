package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

func init() {
	subcommands = append(subcommands, newAttestCmd)
	codeClassifiers = append(codeClassifiers, func(err error) (int, bool) {
		switch {
		case errors.Is(err, attest.ErrNoTick), errors.Is(err, attest.ErrTaskNotTicked),
			errors.Is(err, attest.ErrRequest), errors.Is(err, predicate.ErrBuild),
			errors.Is(err, predicate.ErrSchema), errors.Is(err, predicate.ErrMalformed),
			errors.Is(err, attest.ErrNoteLimit), errors.Is(err, specfmt.ErrDuplicateTask),
			errors.Is(err, attest.ErrAlreadyAttested):
			return ExitUsage, true
		case errors.Is(err, attest.ErrPassphraseRequired), errors.Is(err, attest.ErrBadPassphrase),
			errors.Is(err, attest.ErrUnsupportedKey), errors.Is(err, attest.ErrNoSigningKey),
			errors.Is(err, attest.ErrAgent), errors.Is(err, predicate.ErrPolicy),
			errors.Is(err, attest.ErrSigstore):
			return ExitTrust, true
		}
		return 0, false
	})
}

func newAttestCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "attest",
		Short: "Write signed task-verification attestations as git notes",
		Long: `attest writes task-verification attestations (in-toto Statements in DSSE envelopes) into
the note of the commit they are about, under --notes-ref (default refs/notes/speccoder), keeping
every note line it does not own. 'tick' attests the tasks a commit ticks; 'decide' records an
attested or skipped decision; 'sign' signs unsigned statements later; 'show' prints a note;
'carry' re-issues statements on the commit that carries the work after a rebase or squash.`,
		Example: `  taskproof attest tick --verdict verified --evidence evidence.json --signer ssh --key ~/.ssh/id_ed25519
  taskproof attest show HEAD
  taskproof attest carry ORIG_HEAD HEAD --allowed-signers ~/.config/taskproof/allowed_signers`,
	}
	c.AddCommand(newAttestTickCmd(), newAttestDecideCmd(), newAttestSignCmd(), newAttestShowCmd(), newAttestCarryCmd())
	return c
}

// signerFlags are the flags every signing command shares.
type signerFlags struct {
	kind, key, passEnv string
	// Sigstore (--signer sigstore).
	fulcioURL, rekorURL, tokenEnv, tokenFile string
	timeout                                  time.Duration
}

func (f *signerFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.kind, "signer", "", "signer kind: ssh|openpgp|raw|sigstore (default: git's gpg.format)")
	c.Flags().StringVar(&f.key, "key", "", "signing key: a private key file, an SSH public key or fingerprint held by ssh-agent, an armored OpenPGP secret key, or a PEM key (default: git's user.signingKey)")
	c.Flags().StringVar(&f.passEnv, "key-passphrase-env", "", "name of an environment variable holding the key's passphrase (default: prompt on a terminal)")
	c.Flags().StringVar(&f.fulcioURL, "fulcio-url", "", "--signer sigstore: Fulcio URL issuing the signing certificate (e.g. https://fulcio.sigstore.dev)")
	c.Flags().StringVar(&f.rekorURL, "rekor-url", "", "--signer sigstore: Rekor URL logging each signature (e.g. https://rekor.sigstore.dev)")
	c.Flags().StringVar(&f.tokenEnv, "oidc-token-env", "", "--signer sigstore: name of an environment variable holding the OIDC identity token")
	c.Flags().StringVar(&f.tokenFile, "identity-token-file", "", "--signer sigstore: file holding the OIDC identity token")
	c.Flags().DurationVar(&f.timeout, "sigstore-timeout", 30*time.Second, "--signer sigstore: bound on each statement's signing (Fulcio and Rekor requests)")
}

// sigstoreSigner builds the keyless signer of --signer sigstore; nothing is
// contacted until the first statement is signed.
func (f *signerFlags) sigstoreSigner() ([]attest.Signer, error) {
	if f.key != "" || f.passEnv != "" {
		return nil, usageErr("--signer sigstore signs keylessly: --key and --key-passphrase-env do not apply")
	}
	if f.fulcioURL == "" || f.rekorURL == "" {
		return nil, usageErr("--signer sigstore needs --fulcio-url and --rekor-url (e.g. https://fulcio.sigstore.dev and https://rekor.sigstore.dev); taskproof has no built-in default and never signs without a transparency log")
	}
	var token string
	switch {
	case f.tokenEnv != "" && f.tokenFile != "":
		return nil, usageErr("give --oidc-token-env or --identity-token-file, not both")
	case f.tokenEnv != "":
		v, ok := os.LookupEnv(f.tokenEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return nil, withCode(ExitTrust, fmt.Errorf("--oidc-token-env: environment variable %s is not set or empty", f.tokenEnv))
		}
		token = strings.TrimSpace(v)
	case f.tokenFile != "":
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return nil, withCode(ExitTrust, fmt.Errorf("--identity-token-file: %w", err))
		}
		token = strings.TrimSpace(string(b))
	default:
		return nil, usageErr("--signer sigstore needs an OIDC identity token: --oidc-token-env VAR or --identity-token-file FILE")
	}
	s, err := attest.NewSigstoreSigner(attest.SigstoreOptions{FulcioURL: f.fulcioURL, RekorURL: f.rekorURL, IDToken: token, Timeout: f.timeout})
	if err != nil {
		return nil, withCode(ExitTrust, err)
	}
	return []attest.Signer{s}, nil
}

// signers returns the signer to use, or none with the reason printed as a warning.
func (f *signerFlags) signers(c *cobra.Command, repo *gitref.Repo) ([]attest.Signer, error) {
	switch attest.Kind(f.kind) {
	case "", attest.KindSSH, attest.KindOpenPGP, attest.KindRaw:
		if f.fulcioURL != "" || f.rekorURL != "" || f.tokenEnv != "" || f.tokenFile != "" {
			return nil, usageErr("--fulcio-url, --rekor-url, --oidc-token-env and --identity-token-file go with --signer sigstore")
		}
	case attest.KindSigstore:
		return f.sigstoreSigner()
	default:
		return nil, usageErr("--signer %q: want ssh, openpgp, raw or sigstore", f.kind)
	}
	choice := attest.SignerChoice{Kind: attest.Kind(f.kind), Key: f.key}
	if f.passEnv != "" {
		v, ok := os.LookupEnv(f.passEnv)
		if !ok {
			return nil, withCode(ExitTrust, fmt.Errorf("--key-passphrase-env: environment variable %s is not set", f.passEnv))
		}
		choice.Passphrase = []byte(v)
	}
	s, reason, err := attest.ChooseSigner(choice, repo.ConfigValue)
	if errors.Is(err, attest.ErrPassphraseRequired) && f.passEnv == "" && term.IsTerminal(int(os.Stdin.Fd())) {
		fmt.Fprintf(c.ErrOrStderr(), "Enter passphrase for %s: ", f.key)
		pass, perr := term.ReadPassword(int(os.Stdin.Fd()))
		fmt.Fprintln(c.ErrOrStderr())
		if perr != nil {
			return nil, withCode(ExitTrust, fmt.Errorf("reading passphrase: %w", perr))
		}
		choice.Passphrase = pass
		s, reason, err = attest.ChooseSigner(choice, repo.ConfigValue)
	}
	if err != nil {
		if errors.Is(err, attest.ErrPassphraseRequired) {
			return nil, withCode(ExitTrust, fmt.Errorf("%w (pass --key-passphrase-env VAR, or run on a terminal to be prompted)", err))
		}
		// Every other failure is a key or configuration problem: an unreadable
		// key file, a key of the wrong kind, git config that cannot be read.
		return nil, withCode(ExitTrust, err)
	}
	if s == nil {
		fmt.Fprintf(c.ErrOrStderr(), "warning: writing unsigned statements: %s; sign them later with `taskproof attest sign`\n", reason)
		return nil, nil
	}
	return []attest.Signer{s}, nil
}

// openRepo opens the repository named by --repo and the notes store of --notes-ref.
func openRepo(c *cobra.Command) (*gitref.Repo, *gitref.NotesStore, error) {
	dir, _ := c.Flags().GetString("repo")
	ref, _ := c.Flags().GetString("notes-ref")
	repo, err := gitref.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	notes, err := repo.Notes(ref)
	if err != nil {
		repo.Close()
		return nil, nil, err
	}
	notes.Message = "Notes added by 'taskproof attest'\n"
	return repo, notes, nil
}

func newAttestTickCmd() *cobra.Command {
	var (
		sf                               signerFlags
		commitRev, verdict, evidencePath string
		redOutput, redKind, regression   string
		tasks                            []string
		dryRun, force                    bool
	)
	c := &cobra.Command{
		Use:   "tick",
		Short: "Attest the tasks a commit ticks, sign the statements and store them as a git note",
		Long: `attest tick records why a tick can be trusted. For each task the commit ticks (all of
them, or those named with --task) it computes the tree, line_hash (the task line as ticked, read
as open), the cited spec section's hash at the commit, and policy_sha256 from the parent's
speccoder.toml; merges the evidence file; builds the task-verification statement (with one
test-result statement per test phase of the evidence's trace and a verification summary); signs
them; and writes them into the commit's note under --notes-ref, keeping every line it does not
own.`,
		Example: `  # after T012's tests pass and its box is ticked in HEAD:
  taskproof attest tick --verdict verified --evidence evidence.json \
      --red-output red.log --red-kind assertion --signer ssh --key ~/.ssh/id_ed25519

  # a planning task with no acceptance test:
  taskproof attest tick --task T001 --verdict regression_only --regression-reason planning_work

  # one commit per run: every tick commit of a branch, oldest first
  for c in $(taskproof ticks origin/main..HEAD | awk '$1 == "tick" {print $2}' | uniq); do
    taskproof attest tick --commit "$c" --verdict regression_only --regression-reason planning_work
  done`,
		Args: cobra.NoArgs,
	}
	sf.add(c)
	c.Flags().StringVar(&commitRev, "commit", "HEAD", "the tick commit (one per run; see the example for a range)")
	c.Flags().StringSliceVar(&tasks, "task", nil, "task ID to attest (repeatable; default: every task the commit ticks)")
	c.Flags().StringVar(&verdict, "verdict", "", "verified|regression_only (required: a bare attest tick claims nothing)")
	c.Flags().BoolVar(&force, "force", false, "replace the statements the commit's note already holds for the task (as `git notes add -f`)")
	c.Flags().StringVar(&evidencePath, "evidence", "", "evidence JSON file (trace, integrity, monitor, mutation, sandbox, executor, model, run, …; see README)")
	c.Flags().StringVar(&redOutput, "red-output", "", "file with the red run's captured output (the tests failing before the change)")
	c.Flags().StringVar(&redKind, "red-kind", "assertion", "how the red run failed: assertion|missing_symbol")
	c.Flags().StringVar(&regression, "regression-reason", "", "why a regression_only tick is one: REASON[:key=value], e.g. no_scenarios:story=US2, not_red:red_class=build_error")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the statements without writing the note")
	format := formatFlag(c, "text", "text", "json")
	c.RunE = func(c *cobra.Command, args []string) error {
		f, err := format()
		if err != nil {
			return err
		}
		if err := checkVerdictGiven(verdict, false); err != nil {
			return err
		}
		req := attest.TickRequest{Tasks: tasks, Verdict: predicate.Verdict(verdict), DryRun: dryRun, Force: force}
		if req.Verdict == predicate.RegressionOnly && regression == "" && evidencePath == "" {
			return usageErr("--verdict regression_only needs --regression-reason (or a regression member in --evidence)")
		}
		if regression != "" {
			if req.Verdict != predicate.RegressionOnly {
				return usageErr("--regression-reason goes with --verdict regression_only")
			}
			if req.Regression, err = attest.ParseRegressionReason(regression); err != nil {
				return withCode(ExitUsage, err)
			}
		}
		if evidencePath != "" {
			if req.Evidence, err = os.ReadFile(evidencePath); err != nil {
				return usageErr("--evidence: %v", err)
			}
		}
		if redOutput != "" {
			out, err := os.ReadFile(redOutput)
			if err != nil {
				return usageErr("--red-output: %v", err)
			}
			switch predicate.RedKind(redKind) {
			case predicate.RedAssertion, predicate.RedMissingSymbol:
			default:
				return usageErr("--red-kind %q: want assertion or missing_symbol", redKind)
			}
			req.Red = &predicate.RedRun{Kind: predicate.RedKind(redKind), Output: out}
		}
		if req.Verdict == predicate.Verified && redOutput == "" && evidencePath == "" {
			fmt.Fprintln(c.ErrOrStderr(), "warning: --verdict verified with neither --red-output nor --evidence: the statements claim a failing-then-passing acceptance test and carry no trace of it (red: null)")
		}
		repo, notes, err := openRepo(c)
		if err != nil {
			return err
		}
		defer repo.Close()
		if req.Commit, err = repo.Resolve(commitRev); err != nil {
			return err
		}
		if req.Signers, err = sf.signers(c, repo); err != nil {
			return err
		}
		written, err := attest.Tick(context.Background(), repo, notes, req)
		if errors.Is(err, attest.ErrNoTick) || errors.Is(err, attest.ErrTaskNotTicked) {
			if pending, werr := repo.UncommittedTicks(req.Commit); werr == nil && len(pending) > 0 {
				return fmt.Errorf("%w\nthe work tree ticks these boxes, not committed yet (commit them, then attest the commit):\n  %s", err, strings.Join(pending, "\n  "))
			}
		}
		if err != nil {
			return err
		}
		return printWritten(c.OutOrStdout(), c.ErrOrStderr(), f, written, dryRun)
	}
	return c
}

// printWritten reports what attest wrote: text (one line per task) or JSON.
func printWritten(stdout, stderr io.Writer, format string, written []attest.Written, dryRun bool) error {
	for _, w := range written {
		for _, warn := range w.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", warn)
		}
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"schema_version": 1, "dry_run": dryRun, "written": written})
	}
	for _, w := range written {
		sig := "unsigned"
		if w.Signed {
			var ks []string
			for _, s := range w.Signers {
				ks = append(ks, string(s.Kind)+" "+s.KeyID)
			}
			sig = "signed by " + strings.Join(ks, ", ")
		}
		verb := "attested"
		if dryRun {
			verb = "would attest"
		}
		fmt.Fprintf(stdout, "%s %s %s on %s (%s): %d statements, %s\n", verb, w.Subject, w.Verdict, short(w.Commit), w.Unit.Dir, len(w.Statements), sig)
		if dryRun {
			for _, s := range w.Statements {
				fmt.Fprintf(stdout, "%s\n", s.Statement)
			}
		}
	}
	return nil
}

func short(h gitref.Hash) string {
	if len(h) > 12 {
		return string(h[:12])
	}
	return string(h)
}

// checkVerdictGiven refuses an `attest tick` that names no verdict: a bare
// command must not claim `verified` (docs/format.md#attesting-safely).
// verdictFromEvidence is true when another input (test reports) decides the
// verdict; then no --verdict is needed.
func checkVerdictGiven(verdict string, verdictFromEvidence bool) error {
	if verdict != "" || verdictFromEvidence {
		return nil
	}
	return usageErr("attest tick needs --verdict, one of:\n"+
		"  verified          a failing-then-passing acceptance test (give --red-output and/or --evidence)\n"+
		"  regression_only   no such test, with --regression-reason REASON (%s)\n"+
		"(attested and skipped decisions: taskproof attest decide)", "planning_work, tests_not_collected, no_story, no_scenarios:story=US1, "+
		"acceptance_off, author_wrote_none, author_failed:detail=TEXT, already_passing, not_red:red_class=CLASS")
}
