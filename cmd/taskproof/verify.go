package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/tick"
	"github.com/taskproof/taskproof/verify"
)

func init() {
	subcommands = append(subcommands, newVerifyCmd)
}

func newVerifyCmd() *cobra.Command {
	var (
		src             verify.TrustSources
		branch          bool
		base, at        string
		requireVerified bool
		requireSigned   bool
		psrc            verify.PolicySource
	)
	c := &cobra.Command{
		Use:   "verify [REV…] | verify --branch [--base REV] [HEAD] | verify A..B",
		Short: "Verify task attestations: objects, or every tick of a branch (the merge gate)",
		Long: `verify checks attestations against the verifier's own trust (never the project's).

  taskproof verify REV…              each object's note: outcome ok, unsigned,
                                     missing, bad_signature, untrusted_signer, mismatch, malformed
                                     (docs/format.md#verification-rules)
  taskproof verify --branch [HEAD]   the merge gate: every tick in BASE..HEAD is
                                     evidenced, stale or unverifiable; --base defaults to origin/HEAD,
                                     else origin/main, origin/master, main, master (docs/format.md#gate-rules)
  taskproof verify A..B              the merge gate over a range

Trust (one at least): --allowed-signers FILE, --allowed-signers-rev REV:PATH (e.g. the
base branch's copy), git's gpg.ssh.allowedSignersFile (outside the work tree), --keyring FILE
(OpenPGP), --key FILE.pem (raw keys), --trusted-root FILE with --certificate-identity[-regexp]
and --certificate-oidc-issuer (Sigstore bundles). Key validity windows are judged at --at
(default now); a Sigstore certificate at its verified transparency log or timestamp time.

Exit codes:
  0  success, or neutral (nothing to check)
  1  verification or policy failure (any outcome but ok; unsigned unless --require-signed=false)
  2  usage
  3  trust or config error (no trust input, unreadable trust or policy file)
  4  git precondition (not a repository, unknown revision, notes ref absent — fetch it with
     git fetch origin refs/notes/speccoder:refs/notes/speccoder; a shallow clone missing what
     the range needs — fetch-depth: 0 / git fetch --unshallow; a missing object; a notes ref
     that is not a commit; a broken ref: docs/format.md#git-preconditions)
  5  internal error (a bug in taskproof)`,
		Example: `  taskproof verify --branch --base origin/main --allowed-signers-rev origin/main:.github/allowed_signers
  taskproof verify HEAD --allowed-signers ~/.config/taskproof/allowed_signers --format json`,
	}
	c.Flags().StringVar(&src.AllowedSigners, "allowed-signers", "", "allowed signers file (git's format)")
	c.Flags().StringVar(&src.AllowedSignersRev, "allowed-signers-rev", "", "allowed signers file read from git, as REV:PATH")
	c.Flags().StringSliceVar(&src.Keyrings, "keyring", nil, "OpenPGP public keyring file (repeatable)")
	c.Flags().StringSliceVar(&src.RawKeys, "key", nil, "PEM public key file (repeatable)")
	addSigstoreTrustFlags(c, &src)
	c.Flags().BoolVar(&branch, "branch", false, "verify every tick of the branch: BASE..HEAD")
	c.Flags().StringVar(&base, "base", "", "base revision for --branch (default: origin/HEAD, else origin/main, origin/master, main, master)")
	c.Flags().StringVar(&at, "at", "", "judge key validity at this time (RFC 3339) instead of now")
	c.Flags().BoolVar(&requireVerified, "require-verified", false, "fail regression_only and attested ticks")
	c.Flags().BoolVar(&requireSigned, "require-signed", true, "fail unsigned statements (--require-signed=false accepts them)")
	addPolicyFlags(c, &psrc)
	fromRemotes := notesFromRemotesFlag(c)
	format := formatFlag(c, "text", "text", "json", "sarif", "github", "junit")
	c.RunE = func(c *cobra.Command, args []string) error {
		f, err := format()
		if err != nil {
			return err
		}
		when := time.Now()
		if at != "" {
			if when, err = time.Parse(time.RFC3339, at); err != nil {
				return usageErr("--at %q: want RFC 3339 (2026-01-02T15:04:05Z): %v", at, err)
			}
		}
		if !branch && base != "" {
			return usageErr("--base goes with --branch")
		}
		repo, notes, err := openRepo(c)
		if err != nil {
			return err
		}
		defer repo.Close()
		if notes, err = fromRemotes(c, notes); err != nil {
			return err
		}
		verify.TuneRepo(repo)
		tg, err := resolveTargets(repo, branch, base, args)
		if err != nil {
			return err
		}
		guard, err := notFromHead(repo, src.AllowedSignersRev, psrc.Rev)
		if err != nil {
			return err
		}
		if err := guard(tg); err != nil {
			return err
		}
		trust, used, err := verify.LoadTrust(repo, src)
		if err != nil {
			return withTrustFlags(err, "--key")
		}
		for _, u := range used {
			fmt.Fprintf(c.ErrOrStderr(), "trust: %s\n", u)
		}
		pol, err := verify.LoadPolicy(repo, psrc)
		if err != nil {
			return err
		}
		if psrc != (verify.PolicySource{}) {
			fmt.Fprintf(c.ErrOrStderr(), "policy: %s\n", pol.Name())
		}
		if tg.branch && tg.base != "" {
			// base..head is empty when head is base or one of its ancestors
			// (verify --branch run on the base branch itself): neutral, exit 0
			// (docs/format.md#exit-codes), which must not pass for a check.
			if in, err := repo.InRange(tg.base, tg.head, tg.head); err == nil && len(in) == 0 {
				fmt.Fprintf(c.ErrOrStderr(), "warning: the range %s is empty: %s is %s or one of its ancestors, so nothing is verified; give --base the commit the checks start from (the root commit, $(git rev-list --max-parents=0 HEAD), for all of history)\n", verify.Printable(tg.rangeName()), verify.Printable(string(tg.head)), verify.Printable(string(tg.base)))
			}
		}
		v := &verify.Verifier{Repo: repo, Notes: notes, Trust: trust, At: when, Policy: pol}
		opts := verify.GateOptions{RequireVerified: requireVerified, AllowUnsigned: !requireSigned}
		rep, err := tg.run(v, opts)
		if err != nil {
			return err
		}
		if err := repo.Damaged(); err != nil {
			// Some check read a missing object as a finding: not a verdict.
			return err
		}
		if err := writeReport(c, f, rep); err != nil {
			return err
		}
		if rep.Conclusion == verify.Failure {
			return failed()
		}
		return nil
	}
	runE := c.RunE
	c.RunE = func(c *cobra.Command, args []string) error {
		err := runE(c, args)
		var tf *tick.TasksFileError
		if errors.As(err, &tf) {
			err = withCode(ExitFailure, fmt.Errorf("the gate fails: %w", err))
		}
		if err != nil {
			writeErrorResult(c, err)
		}
		return err
	}
	return c
}

// notFromHead returns verify.CheckNotFromVerified for the REV:PATH trust and
// policy inputs (docs/format.md#choices-where-the-brief-leaves-room, "Trust and policy come
// from outside what is verified"),
// its errors naming the flag. The library applies the rule to the trust again
// in Branch and Objects; checking first keeps the refusal ahead of reading the
// inputs.
func notFromHead(repo *gitref.Repo, allowedSignersRev, policyRev string) (func(tg *targets) error, error) {
	flags := map[string]string{verify.SourceAllowedSigners: "--allowed-signers-rev", verify.SourcePolicy: "--policy-rev"}
	var sources []verify.SourceRev
	for _, in := range []struct{ kind, v string }{{verify.SourceAllowedSigners, allowedSignersRev}, {verify.SourcePolicy, policyRev}} {
		src, ok, err := verify.ResolveSourceRev(repo, in.kind, in.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flags[in.kind], err)
		}
		if ok {
			sources = append(sources, src)
		}
	}
	return func(tg *targets) error {
		err := verify.CheckNotFromVerified(repo, sources, verify.Verified{Range: tg.branch, Base: tg.base, Head: tg.head, Objects: tg.objects})
		var fe *verify.FromVerifiedError
		if errors.As(err, &fe) {
			return withCode(ExitTrust, fmt.Errorf("%s: %w", flags[fe.Source.Kind], err))
		}
		return err
	}, nil
}

// targets are what verify checks: a range (branch mode) or objects.
type targets struct {
	branch     bool
	base, head gitref.Hash
	objects    []gitref.Hash
}

// rangeName is the range of branch mode as git writes it.
func (t *targets) rangeName() string {
	if t.base == "" {
		return "all of " + string(t.head) + "'s history"
	}
	return string(t.base) + ".." + string(t.head)
}

func (t *targets) run(v *verify.Verifier, opts verify.GateOptions) (*verify.Report, error) {
	if t.branch {
		return v.Branch(t.base, t.head, opts)
	}
	return v.Objects(t.objects, opts)
}

// resolveTargets reads verify's arguments: --branch [HEAD] (base from --base,
// else defaultBase), a range A..B, or objects (default HEAD).
func resolveTargets(repo *gitref.Repo, branch bool, base string, args []string) (*targets, error) {
	isRange := len(args) == 1 && containsDots(args[0])
	if !branch && !isRange {
		if len(args) == 0 {
			args = []string{"HEAD"}
		}
		t := &targets{}
		for _, a := range args {
			id, err := repo.Resolve(a)
			if err != nil {
				return nil, err
			}
			t.objects = append(t.objects, id)
		}
		return t, nil
	}
	t := &targets{branch: true}
	var err error
	if isRange {
		if branch {
			return nil, usageErr("give --branch or a range A..B, not both")
		}
		if t.base, t.head, err = repo.ResolveRange(args[0]); err != nil {
			return nil, err
		}
		return t, nil
	}
	if len(args) > 1 {
		return nil, usageErr("--branch takes at most one HEAD revision")
	}
	head := "HEAD"
	if len(args) == 1 {
		head = args[0]
	}
	if t.head, err = repo.Resolve(head); err != nil {
		return nil, err
	}
	if base == "" {
		if t.base, err = defaultBase(repo, t.head); err != nil {
			return nil, err
		}
		return t, nil
	}
	if t.base, err = repo.Resolve(base); err != nil {
		return nil, fmt.Errorf("--base: %w", err)
	}
	return t, nil
}

// defaultBases are the revisions --base defaults to, the first that exists:
// the remote's default branch, then the usual names, remote before local (a
// pull-request checkout is detached and has no local branch but its own).
var defaultBases = []string{"refs/remotes/origin/HEAD", "origin/main", "origin/master", "main", "master"}

// defaultBase resolves the first of defaultBases that names a commit and
// leaves head a range to check: a candidate that head is (or that has head in
// its history: origin/HEAD naming the branch being verified) is passed over
// for the next, and taken only when every candidate is such (the empty range
// then warns). A candidate whose ref file is broken is an error, not skipped
// (docs/format.md#default-base).
func defaultBase(repo *gitref.Repo, head gitref.Hash) (gitref.Hash, error) {
	var first gitref.Hash
	for _, b := range defaultBases {
		id, err := repo.Resolve(b)
		if errors.Is(err, gitref.ErrBadRef) {
			return "", fmt.Errorf("--base (default %s): %w", b, err)
		}
		if err != nil {
			continue
		}
		in, err := repo.InRange(id, head, head)
		if err != nil {
			return "", fmt.Errorf("--base (default %s): %w", b, err)
		}
		if len(in) > 0 {
			return id, nil
		}
		if first == "" {
			first = id
		}
	}
	if first != "" {
		return first, nil
	}
	return "", fmt.Errorf("--base: %w: none of the default bases exists (tried %s); give --base the branch the changes go into (e.g. --base origin/<target branch>), fetched first if the checkout lacks it (git fetch origin <target branch>)",
		gitref.ErrUnknownRevision, strings.Join(defaultBases, ", "))
}

func containsDots(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == '.' {
			return true
		}
	}
	return false
}

// writeReport writes the report to stdout in the chosen format (logs go to stderr).
func writeReport(c *cobra.Command, format string, rep *verify.Report) error {
	out := c.OutOrStdout()
	switch format {
	case "json":
		return verify.WriteJSON(out, rep)
	case "text":
		color := false
		if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("NO_COLOR") == "" {
			color = true
		}
		return verify.WriteText(out, rep, color)
	}
	return writeCIReport(c, format, rep)
}

// addSigstoreTrustFlags adds the Sigstore trust flags to a command
// that verifies; the thresholds are recorded only when given.
func addSigstoreTrustFlags(c *cobra.Command, src *verify.TrustSources) {
	c.Flags().StringVar(&src.TrustedRoot, "trusted-root", "", "Sigstore trusted root JSON file (Fulcio CAs, Rekor logs, timestamp authorities)")
	c.Flags().BoolVar(&src.SigstorePublicGood, "sigstore-public-good", false, "trust Sigstore's public-good instance (its trusted root is fetched with TUF: network on first use, then ~/.sigstore/root)")
	c.Flags().StringVar(&src.CertIdentity, "certificate-identity", "", "Sigstore certificate identity, exact (e.g. https://github.com/OWNER/REPO/.github/workflows/release.yml@refs/heads/main)")
	c.Flags().StringVar(&src.CertIdentityRegexp, "certificate-identity-regexp", "", "Sigstore certificate identity as a regular expression, always anchored: matched as ^(?:RE)$")
	c.Flags().StringVar(&src.CertOIDCIssuer, "certificate-oidc-issuer", "", "Sigstore certificate OIDC issuer, exact (e.g. https://token.actions.githubusercontent.com); required with an identity")
	tlog := c.Flags().Int("sigstore-tlog-threshold", 1, "transparency log entries a Sigstore bundle needs (0 accepts bundles without one: unsafe)")
	ts := c.Flags().Int("sigstore-timestamp-threshold", 0, "RFC 3161 signed timestamps a Sigstore bundle needs")
	prev := c.PreRunE
	c.PreRunE = func(c *cobra.Command, args []string) error {
		if c.Flags().Changed("sigstore-tlog-threshold") {
			src.SigstoreTlogThreshold = tlog
		}
		if c.Flags().Changed("sigstore-timestamp-threshold") {
			src.SigstoreTimestampThreshold = ts
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}
