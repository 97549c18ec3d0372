package attestcmd

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
	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"
	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
	"github.com/taskproof/taskproof/evidence"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/inputfile"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/testreport"
	"github.com/taskproof/taskproof/tick"
)

func NewCmd() *cobra.Command {
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
	kind, passEnv string
	rsaScheme     string
	keys          []string
	unsigned      bool
	// Sigstore (--signer sigstore).
	fulcioURL, rekorURL, tokenEnv, tokenFile string
	timeout                                  time.Duration
}

func (f *signerFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.kind, "signer", "", "signer `KIND`: ssh|openpgp|raw|sigstore (default: git's gpg.format for user.signingKey, the file's kind for --key)")
	c.Flags().StringArrayVar(&f.keys, "key", nil, "signing `KEY` (repeatable: one signature per key): a private key file, an SSH public key or certificate (ssh-agent, else the private key beside it) or fingerprint, an OpenPGP secret key file or a key ID in gpg's keyring, or a PEM key; without --signer its kind is read from the file (default: git's user.signingKey)")
	c.Flags().StringVar(&f.rsaScheme, "rsa-scheme", "", "signature `SCHEME` of raw RSA keys: pss (RSASSA-PSS, SHA-256: taskproof's and securesystemslib's) or pkcs1v15 (PKCS#1 v1.5, SHA-256: what cosign verifies) (default pss)")
	cmdutil.Choices(c, "rsa-scheme", "pss", "pkcs1v15")
	c.Flags().BoolVar(&f.unsigned, "unsigned", false, "write unsigned statements (sign them later with 'taskproof attest sign'); without it a missing key is an error")
	c.Flags().StringVar(&f.passEnv, "key-passphrase-env", "", "the environment variable `VAR` holding the key's passphrase (default: prompt on a terminal)")
	c.Flags().StringVar(&f.fulcioURL, "fulcio-url", "", "--signer sigstore: Fulcio `URL` issuing the signing certificate (e.g. https://fulcio.sigstore.dev)")
	c.Flags().StringVar(&f.rekorURL, "rekor-url", "", "--signer sigstore: Rekor `URL` logging each signature (e.g. https://rekor.sigstore.dev)")
	c.Flags().StringVar(&f.tokenEnv, "oidc-token-env", "", "--signer sigstore: the environment variable `VAR` holding the OIDC identity token (default in GitHub Actions: the workflow's token, audience sigstore, from ACTIONS_ID_TOKEN_REQUEST_URL/_TOKEN)")
	c.Flags().StringVar(&f.tokenFile, "identity-token-file", "", "--signer sigstore: `FILE` holding the OIDC identity token")
	f.timeout = 30 * time.Second
	c.Flags().Var((*positiveDuration)(&f.timeout), "sigstore-timeout", "--signer sigstore: the `DURATION` each statement's signing (Fulcio and Rekor requests) may take")
}

// positiveDuration is a flag's duration that must be more than zero: a
// negative or zero one is refused as the flag is parsed (exit 2), not
// replaced by a default.
type positiveDuration time.Duration

func (d *positiveDuration) String() string { return time.Duration(*d).String() }
func (d *positiveDuration) Type() string   { return "duration" }
func (d *positiveDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if v <= 0 {
		return errors.New("want a duration more than zero, e.g. 30s or 2m")
	}
	*d = positiveDuration(v)
	return nil
}

// sigstoreSigner builds the keyless signer of --signer sigstore; nothing is
// contacted until the first statement is signed.
func (f *signerFlags) sigstoreSigner(ctx context.Context) ([]signer.Signer, error) {
	if len(f.keys) > 0 || f.passEnv != "" || f.unsigned {
		return nil, cmdutil.Usagef("--signer sigstore signs keylessly: --key, --key-passphrase-env and --unsigned do not apply")
	}
	if f.fulcioURL == "" || f.rekorURL == "" {
		return nil, cmdutil.Usagef("--signer sigstore needs --fulcio-url and --rekor-url (e.g. https://fulcio.sigstore.dev and https://rekor.sigstore.dev); taskproof has no built-in default and never signs without a transparency log")
	}
	var token string
	switch {
	case f.tokenEnv != "" && f.tokenFile != "":
		return nil, cmdutil.Usagef("give --oidc-token-env or --identity-token-file, not both")
	case f.tokenEnv != "":
		v, ok := os.LookupEnv(f.tokenEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return nil, cmdutil.WithCode(cmdutil.ExitTrust, fmt.Errorf("--oidc-token-env: environment variable %s is not set or empty", f.tokenEnv))
		}
		token = strings.TrimSpace(v)
	case f.tokenFile != "":
		b, err := inputfile.Read(f.tokenFile, 1<<20) // a token is a few KiB
		if err != nil {
			return nil, cmdutil.WithCode(cmdutil.ExitTrust, fmt.Errorf("--identity-token-file: %w", err))
		}
		token = strings.TrimSpace(string(b))
	default:
		// In GitHub Actions the runner hands out the workflow's identity
		// token, as cosign picks it up.
		reqURL, reqToken := os.Getenv(signer.ActionsTokenURLEnv), os.Getenv(signer.ActionsTokenEnv)
		switch {
		case reqURL == "" && reqToken == "":
			return nil, cmdutil.Usagef("--signer sigstore needs an OIDC identity token: --oidc-token-env VAR or --identity-token-file FILE (in GitHub Actions it is fetched by itself when the job has `permissions: id-token: write`)")
		case reqURL == "" || reqToken == "":
			return nil, cmdutil.WithCode(cmdutil.ExitTrust, fmt.Errorf("%w: GitHub Actions OIDC token: %s and %s must both be set (the job needs `permissions: id-token: write`)", signer.ErrSigstore, signer.ActionsTokenURLEnv, signer.ActionsTokenEnv))
		}
		t, err := signer.FetchActionsIDToken(ctx, reqURL, reqToken, signer.SigstoreAudience, f.timeout)
		if err != nil {
			return nil, cmdutil.WithCode(cmdutil.ExitTrust, err)
		}
		token = t
	}
	s, err := signer.NewSigstore(signer.SigstoreOptions{FulcioURL: f.fulcioURL, RekorURL: f.rekorURL, IDToken: token, Timeout: f.timeout})
	if err != nil {
		return nil, cmdutil.WithCode(cmdutil.ExitTrust, err)
	}
	return []signer.Signer{s}, nil
}

// signers returns the signers to use: none only for --unsigned. In GitHub
// Actions, an event whose commits the repository does not own is refused
// before any key is read or token requested (signer.CheckActionsEvent).
func (f *signerFlags) signers(c *cobra.Command, repo *gitref.Repo) ([]signer.Signer, error) {
	if !f.unsigned {
		if err := signer.CheckActionsEvent(os.Getenv); err != nil {
			return nil, cmdutil.WithCode(cmdutil.ExitTrust, err)
		}
	}
	switch signer.Kind(f.kind) {
	case "", signer.KindSSH, signer.KindOpenPGP, signer.KindRaw:
		if f.fulcioURL != "" || f.rekorURL != "" || f.tokenEnv != "" || f.tokenFile != "" {
			return nil, cmdutil.Usagef("--fulcio-url, --rekor-url, --oidc-token-env and --identity-token-file go with --signer sigstore")
		}
	case signer.KindSigstore:
		if f.rsaScheme != "" {
			return nil, cmdutil.Usagef("--rsa-scheme goes with raw RSA keys, not --signer sigstore")
		}
		return f.sigstoreSigner(c.Context())
	default:
		return nil, cmdutil.Usagef("--signer %q: want ssh, openpgp, raw or sigstore", f.kind)
	}
	switch signer.RSAScheme(f.rsaScheme) {
	case "", signer.RSAPSS, signer.RSAPKCS1v15:
	default:
		return nil, cmdutil.Usagef("--rsa-scheme %q: want pss or pkcs1v15", f.rsaScheme)
	}
	if f.unsigned {
		if f.kind != "" || len(f.keys) > 0 || f.passEnv != "" || f.rsaScheme != "" {
			return nil, cmdutil.Usagef("--unsigned writes unsigned statements: --signer, --key, --key-passphrase-env and --rsa-scheme do not apply")
		}
		fmt.Fprintln(c.ErrOrStderr(), "warning: writing unsigned statements (--unsigned); sign them later with `taskproof attest sign`")
		return nil, nil
	}
	choice := signer.Choice{Kind: signer.Kind(f.kind), Keys: f.keys, RSAScheme: signer.RSAScheme(f.rsaScheme)}
	if f.passEnv != "" {
		v, ok := os.LookupEnv(f.passEnv)
		if !ok {
			return nil, cmdutil.WithCode(cmdutil.ExitTrust, fmt.Errorf("--key-passphrase-env: environment variable %s is not set", f.passEnv))
		}
		choice.Passphrase = []byte(v)
	}
	config, err := repo.Config()
	if err != nil {
		return nil, cmdutil.WithCode(cmdutil.ExitTrust, err)
	}
	s, err := signer.Choose(choice, config)
	if errors.Is(err, signer.ErrPassphraseRequired) && f.passEnv == "" && term.IsTerminal(int(os.Stdin.Fd())) {
		label := strings.Join(f.keys, ", ")
		if label == "" {
			label = "git's user.signingKey"
		}
		fmt.Fprintf(c.ErrOrStderr(), "Enter passphrase for %s: ", label)
		pass, perr := term.ReadPassword(int(os.Stdin.Fd()))
		fmt.Fprintln(c.ErrOrStderr())
		if perr != nil {
			return nil, cmdutil.WithCode(cmdutil.ExitTrust, fmt.Errorf("reading passphrase: %w", perr))
		}
		choice.Passphrase = pass
		s, err = signer.Choose(choice, config)
	}
	if err != nil {
		switch {
		case errors.Is(err, signer.ErrPassphraseRequired):
			return nil, cmdutil.WithCode(cmdutil.ExitTrust, fmt.Errorf("%w (pass --key-passphrase-env VAR, or run on a terminal to be prompted)", err))
		case errors.Is(err, signer.ErrChoice):
			return nil, cmdutil.WithCode(cmdutil.ExitUsage, err)
		case errors.Is(err, signer.ErrNoSigner):
			return nil, cmdutil.WithCode(cmdutil.ExitTrust, fmt.Errorf("%w (a key file: --key FILE; unsigned: --unsigned)", err))
		}
		// Every other failure is a key or configuration problem: an unreadable
		// key file, a key of the wrong kind, git config that cannot be read.
		return nil, cmdutil.WithCode(cmdutil.ExitTrust, err)
	}
	return s, nil
}

func newAttestTickCmd() *cobra.Command {
	var fl tickFlags
	c := &cobra.Command{
		Use:   "tick",
		Short: "Attest the tasks a commit ticks, sign the statements and store them as a git note",
		Long: `attest tick records why a tick can be trusted. For each task the commit ticks (all of
them, or those named with --task) it computes the tree, line_hash (the task line as ticked, read
as open), the cited spec section's hash at the commit, and policy_sha256 from the parent's
speccoder.toml; merges the evidence file; builds the task-verification statement (with one
test-result statement per test phase of the evidence's trace and a verification summary); signs
them; and writes them into the commit's note under --notes-ref, keeping every line it does not
own.

--test-report red=FILE and green=FILE (JUnit XML, go test -json, or cargo test's own output)
give the trace rows, the test-result statements, collection.files, red and, without --verdict,
the verdict itself: verified only when each test file the tick judges (--test-files, by default
the test files its own range changed) has tests that passed green and failed red
(docs/format.md#test-reports, docs/format.md#verdict-from-evidence). A --red-output in which the
runner says the run passed is refused unless --force.`,
		Example: `  # after T012's tests pass and its box is ticked in HEAD, from the runner's reports:
  taskproof attest tick --test-report red=red.json --test-report green=green.json \
      --signer ssh --key ~/.ssh/id_ed25519

  # or with a hand-written evidence file and the red run's output:
  taskproof attest tick --verdict verified --evidence evidence.json \
      --red-output red.log --red-kind assertion --signer ssh --key ~/.ssh/id_ed25519

  # a planning task with no acceptance test:
  taskproof attest tick --task T001 --verdict regression_only --regression-reason planning_work

  # one commit per run: every commit of a branch that ticks a task (born ticked too), oldest first
  for c in $(taskproof ticks origin/main..HEAD | awk '$1 == "tick" || $1 == "born_ticked" {print $2}' | uniq); do
    taskproof attest tick --commit "$c" --verdict regression_only --regression-reason planning_work
  done`,
		Args: cobra.NoArgs,
	}
	fl.sf.add(c)
	c.Flags().StringVar(&fl.commitRev, "commit", "HEAD", "`REV` of the tick commit (one per run; see the example for a range)")
	c.Flags().StringArrayVar(&fl.tasks, "task", nil, "`TASK` to attest: its ID, or its title or a prefix of the title (repeatable; default: every task the commit ticks)")
	c.Flags().StringVar(&fl.policyFile, "policy", "", "the verifier's policy `FILE`, for the unit layouts it adds ([[units]]; docs/format.md#unit-layouts-in-the-policy)")
	c.Flags().StringVar(&fl.unitDir, "unit", "", "attest only the ticks of this unit directory `DIR` (e.g. specs/001-x), when the commit ticks tasks of several units")
	c.Flags().StringVar(&fl.verdict, "verdict", "", "the tick's verdict, `verified|regression_only` (required unless --test-report gives it: a bare attest tick claims nothing)")
	cmdutil.Choices(c, "verdict", "verified", "regression_only")
	c.Flags().StringVar(&fl.evidencePath, "evidence", "", "evidence JSON `FILE` (trace, integrity, monitor, mutation, sandbox, executor, model, run, …; see docs/guide.md)")
	c.Flags().StringVar(&fl.redOutput, "red-output", "", "`FILE` with the red run's captured output (the tests failing before the change; output that shows a passing run is refused unless --force)")
	c.Flags().StringVar(&fl.redKind, "red-kind", "assertion", "how the red run failed: `assertion|missing_symbol`")
	cmdutil.Choices(c, "red-kind", "assertion", "missing_symbol")
	c.Flags().StringVar(&fl.regression, "regression-reason", "", "why a regression_only tick is one: `REASON[:key=value]`, e.g. no_scenarios:story=US2, not_red:red_class=build_error")
	c.Flags().BoolVar(&fl.dryRun, "dry-run", false, "print the statements without writing the note")
	c.Flags().StringArrayVar(&fl.reportFlags, "test-report", nil, "`PHASE=FILE`: the red or green run's JUnit XML, go test -json or cargo test 2>&1 output (repeatable; docs/format.md#test-reports)")
	c.Flags().StringSliceVar(&fl.testFiles, "test-files", nil, "test `FILES` (comma-separated, repeatable) the task added or changed, judged against the green report (default: the test files the tick commit and its branch changed; 'none': no collection)")
	c.Flags().BoolVar(&fl.skipAttested, "skip-attested", false, "attest only the ticks the note holds no statements for, leaving the others as they are (without --verdict or --test-report: check that every tick is attested, exit 2 naming those that are not)")
	c.Flags().BoolVar(&fl.force, "force", false, "replace the statements the commit's note already holds for the task (as git notes add -f does), or write a --verdict, --regression-reason, --red-kind or --red-output that contradicts the test reports or the red output (with a warning)")
	fl.format = options.NewFormat("text", "text", "json")
	fl.format.AddFlags(c)
	c.RunE = func(c *cobra.Command, _ []string) error { return fl.run(c.Context(), c) }
	return c
}

// tickFlags are attest tick's flags.
type tickFlags struct {
	sf                                                    signerFlags
	format                                                *options.FormatOptions
	commitRev, verdict, evidencePath, unitDir, policyFile string
	redOutput, redKind, regression                        string
	tasks                                                 []string
	dryRun                                                bool
	reportFlags                                           []string
	testFiles                                             []string
	force, skipAttested                                   bool
}

// run is attest tick with ctx: read the request, open the repository,
// choose the signers, attest and print what was written.
func (fl *tickFlags) run(ctx context.Context, c *cobra.Command) error {
	f, err := fl.format.Get()
	if err != nil {
		return err
	}
	req, err := fl.request(c)
	if err != nil {
		return err
	}
	repo, notes, commit, err := cmdutil.OpenCommit(c, fl.commitRev)
	if err != nil {
		return err
	}
	defer repo.Close()
	req.Commit = commit
	if req.Signers, err = fl.sf.signers(c, repo); err != nil {
		// A dry run writes nothing, so it may preview the statements without a key.
		if !fl.dryRun || !errors.Is(err, signer.ErrNoSigner) {
			return err
		}
		fmt.Fprintln(c.ErrOrStderr(), "warning: --dry-run shows the statements unsigned: no signing key is configured, which is an error without --dry-run (set user.signingKey, pass --key, or --unsigned)")
	}
	written, err := attest.Tick(ctx, repo, notes, req)
	err = cmdutil.WithAttestFlags(err)
	if errors.Is(err, attest.ErrNoTick) || errors.Is(err, attest.ErrTaskNotTicked) {
		if pending, werr := tick.Uncommitted(repo, req.Commit); werr == nil && len(pending) > 0 {
			return fmt.Errorf("%w; the work tree ticks these boxes, not committed yet (commit them, then attest the commit): %s", err, strings.Join(pending, "; "))
		}
	}
	if err != nil {
		return err
	}
	return printWritten(c.OutOrStdout(), c.ErrOrStderr(), f, written, fl.dryRun)
}

// request reads the files attest tick's flags name into a TickRequest and
// checks it (TickRequest.Check); Commit and Signers are left to the caller.
func (fl *tickFlags) request(c *cobra.Command) (attest.TickRequest, error) {
	var err error
	req := attest.TickRequest{Tasks: fl.tasks, Unit: fl.unitDir, Verdict: predicate.Verdict(fl.verdict), DryRun: fl.dryRun,
		Force: fl.force, SkipAttested: fl.skipAttested, RedKindSet: c.Flags().Changed("red-kind")}
	if fl.policyFile != "" {
		pol, err := policy.Load(fl.policyFile)
		if err != nil {
			return req, err
		}
		req.Layouts = pol.Layouts()
	}
	if req.Reports, err = readTestReports(fl.reportFlags); err != nil {
		return req, err
	}
	if len(req.Reports) > 0 && !c.Flags().Changed("verdict") {
		req.Verdict = "" // the verdict follows from the reports
	}
	if err := checkVerdictGiven(fl.verdict, len(req.Reports) > 0 || fl.skipAttested); err != nil {
		return req, err
	}
	switch {
	case c.Flags().Changed("test-files") && len(fl.testFiles) == 1 && fl.testFiles[0] == "none":
		req.TestFiles = []string{}
	case c.Flags().Changed("test-files"):
		req.TestFiles = fl.testFiles
	}
	if fl.regression != "" {
		if req.Regression, err = attest.ParseRegressionReason(fl.regression); err != nil {
			return req, cmdutil.WithCode(cmdutil.ExitUsage, err)
		}
	}
	if fl.evidencePath != "" {
		if req.Evidence, err = readInputFile("--evidence", fl.evidencePath, evidence.MaxEvidenceFile); err != nil {
			return req, err
		}
	}
	if fl.redOutput != "" {
		switch predicate.RedKind(fl.redKind) {
		case predicate.RedAssertion, predicate.RedMissingSymbol:
		default:
			return req, cmdutil.Usagef("--red-kind %q: want assertion or missing_symbol", fl.redKind)
		}
		ro, err := readRedOutput(fl.redOutput, predicate.RedKind(fl.redKind))
		if err != nil {
			return req, err
		}
		req.Red, req.RedShows = &ro.Run, ro
		req.RedOutputName = evidence.ReportName(fl.redOutput)
	}
	// Usage before keys: a request attest tick refuses is a typo (exit 2).
	if err := req.Check(); err != nil {
		return req, err
	}
	if req.Verdict == predicate.Verified && fl.redOutput == "" && fl.evidencePath == "" && len(req.Reports) == 0 {
		fmt.Fprintln(c.ErrOrStderr(), "warning: --verdict verified with neither --red-output nor --evidence: the statements claim a failing-then-passing acceptance test and carry no trace of it (red: null)")
	}
	return req, nil
}

// readRedOutput reads the --red-output file, bounded
// (docs/format.md#verdict-from-evidence): one over the limit — or one that
// does not end — is exit 1 naming it.
func readRedOutput(file string, kind predicate.RedKind) (*evidence.RedOutput, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, cmdutil.Usagef("--red-output: %v", err)
	}
	defer f.Close()
	ro, err := evidence.ReadRedOutput(f, kind)
	switch {
	case errors.Is(err, evidence.ErrRedOutputLimit):
		return nil, cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("--red-output %s: %w: nothing was written (give the run's captured output, or its last part)", file, err))
	case err != nil:
		return nil, cmdutil.Usagef("--red-output %s: %v", file, err)
	}
	return ro, nil
}

// readInputFile reads an input file named by flag within its size limit: one
// that cannot be read is a usage error, one over the limit (or never ending)
// exit 1 naming it, and nothing is written.
func readInputFile(flag, file string, limit int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, cmdutil.Usagef("%s: %v", flag, err)
	}
	defer f.Close()
	b, err := evidence.ReadLimited(f, limit)
	switch {
	case errors.Is(err, evidence.ErrInputLimit):
		return nil, cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("%s %s: %w: nothing was written", flag, file, err))
	case err != nil:
		return nil, cmdutil.Usagef("%s %s: %v", flag, file, err)
	}
	return b, nil
}

// readTestReports reads each --test-report PHASE=FILE, named as
// evidence.ReportName names it.
func readTestReports(flags []string) ([]evidence.PhaseReport, error) {
	var out []evidence.PhaseReport
	for _, fl := range flags {
		phase, file, ok := strings.Cut(fl, "=")
		if !ok || file == "" {
			return nil, cmdutil.Usagef("--test-report %q: want PHASE=FILE (PHASE red or green)", fl)
		}
		if phase != evidence.PhaseRed && phase != evidence.PhaseGreen {
			return nil, cmdutil.Usagef("--test-report %q: phase %q: want red or green", fl, phase)
		}
		b, err := readInputFile("--test-report "+phase, file, evidence.MaxTestReport)
		if err != nil {
			return nil, err
		}
		r, err := testreport.Parse(file, b)
		if err != nil {
			return nil, cmdutil.WithCode(cmdutil.ExitUsage, err)
		}
		out = append(out, evidence.PhaseReport{Phase: phase, Name: evidence.ReportName(file), Report: r})
	}
	return out, nil
}

// printWritten reports what attest wrote: text (one line per task) or JSON.
func printWritten(stdout, stderr io.Writer, format string, written []attest.Written, dryRun bool) error {
	for _, w := range written {
		for _, warn := range w.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", cmdutil.MessageText(warn))
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
		switch {
		case w.AlreadyHeld:
			// Written again (a writer run again after an interruption): the
			// note holds these statements, kept with their signatures.
			verb, sig = "already held", "kept as the note holds them"
		case w.AlreadyAttested:
			// --skip-attested: the note holds other statements for the tick.
			fmt.Fprintf(stdout, "%s\n", printable.String(fmt.Sprintf("already attested %s on %s (%s): the note holds statements for it, kept as they are", w.Subject, cmdutil.Short(w.Commit), w.Unit.Dir)))
			continue
		case w.CoSigned && dryRun:
			verb, sig = "would co-sign", "adding the signature of "+strings.TrimPrefix(sig, "signed by ")+" to those the note holds"
		case w.CoSigned:
			// The note held these statements: this run's signatures were
			// added to theirs (docs/format.md#co-signing).
			verb, sig = "co-signed", "the signature of "+strings.TrimPrefix(sig, "signed by ")+" added to those the note holds"
		case dryRun:
			verb = "would attest"
		}
		verdict := w.Verdict
		if w.Why != nil {
			// The verdict came from the test reports: say why.
			verdict += ": " + w.Why.Text
		}
		subject := w.Subject
		if strings.HasPrefix(w.Task, "h-") && w.Title != "" {
			subject = fmt.Sprintf("%s %q", subject, w.Title) // an ID derived from the title names nothing
		}
		// The subject, directory, reason and signer (a certificate identity)
		// come from the repository and the certificate: written escaped.
		fmt.Fprintf(stdout, "%s\n", printable.String(fmt.Sprintf("%s %s %s on %s (%s): %d statements, %s", verb, subject, verdict, cmdutil.Short(w.Commit), w.Unit.Dir, len(w.Statements), sig)))
		if dryRun {
			for _, s := range w.Statements {
				fmt.Fprintf(stdout, "%s\n", s.Statement)
			}
		}
	}
	return nil
}

// checkVerdictGiven refuses an `attest tick` that names no verdict: a bare
// command must not claim `verified` (docs/format.md#attesting-safely).
// verdictFromEvidence is true when another input (test reports) decides the
// verdict; then no --verdict is needed.
func checkVerdictGiven(verdict string, verdictFromEvidence bool) error {
	if verdict != "" || verdictFromEvidence {
		return nil
	}
	return cmdutil.Usagef("attest tick needs --verdict, one of:\n"+
		"  verified          a failing-then-passing acceptance test (give --red-output and/or --evidence)\n"+
		"  regression_only   no such test, with --regression-reason REASON (%s)\n"+
		"(attested and skipped decisions: taskproof attest decide)", "planning_work, tests_not_collected, no_story, no_scenarios:story=US1, "+
		"acceptance_off, author_wrote_none, author_failed:detail=TEXT, already_passing, not_red:red_class=CLASS")
}
