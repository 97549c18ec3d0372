package cmdutil

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/carry"
	"github.com/taskproof/taskproof/gate"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/panics"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/testreport"
	"github.com/taskproof/taskproof/tick"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// wrapped is err as a command returns it: with context, wrapped once more.
func wrapped(err error) error { return fmt.Errorf("attest tick: %w", fmt.Errorf("reading: %w", err)) }

// TestExitCode maps every library sentinel and typed error that has an exit
// code, the precedence rows, the marked errors and the fallbacks; every row
// of exitCodes must be the first match of some case.
func TestExitCode(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		// attest, predicate, specfmt, testreport: bad requests.
		{"attest.ErrNoTick", attest.ErrNoTick, ExitUsage},
		{"attest.ErrTaskNotTicked", attest.ErrTaskNotTicked, ExitUsage},
		{"attest.ErrRequest", attest.ErrRequest, ExitUsage},
		{"notemerge.ErrRequest", notemerge.ErrRequest, ExitUsage},
		{"attest.ErrRequest+ErrTooManySignatures", fmt.Errorf("%w: %w", attest.ErrRequest, signer.ErrTooManySignatures), ExitUsage},
		{"signer.ErrChoice+ErrTooManySignatures", fmt.Errorf("%w: %w", signer.ErrChoice, signer.ErrTooManySignatures), ExitUsage},
		{"predicate.ErrBuild", predicate.ErrBuild, ExitUsage},
		{"*predicate.BuildError", &predicate.BuildError{Field: "f", Reason: "r"}, ExitUsage},
		{"predicate.ErrSchema", predicate.ErrSchema, ExitUsage},
		{"*predicate.SchemaError", &predicate.SchemaError{Path: "/x", Reason: "r"}, ExitUsage},
		{"predicate.ErrMalformed", predicate.ErrMalformed, ExitUsage},
		{"*predicate.DecodeError", &predicate.DecodeError{Reason: "r"}, ExitUsage},
		{"notemerge.ErrNoteLimit", notemerge.ErrNoteLimit, ExitUsage},
		{"specfmt.ErrDuplicateTask", specfmt.ErrDuplicateTask, ExitUsage},
		{"*specfmt.DuplicateTaskError", &specfmt.DuplicateTaskError{ID: "T1", FirstLine: 1, SecondLine: 2}, ExitUsage},
		{"testreport.ErrUnreadable", testreport.ErrUnreadable, ExitUsage},
		{"*testreport.ParseError", &testreport.ParseError{File: "r.xml", Reason: "r"}, ExitUsage},
		{"attest.ErrAlreadyAttested", attest.ErrAlreadyAttested, ExitUsage},
		{"*attest.AttestedError", &attest.AttestedError{}, ExitUsage},
		// Signing keys, the hashed policy: trust or config.
		{"signer.ErrPassphraseRequired", signer.ErrPassphraseRequired, ExitTrust},
		{"signer.ErrBadPassphrase", signer.ErrBadPassphrase, ExitTrust},
		{"signer.ErrUnsupportedKey", signer.ErrUnsupportedKey, ExitTrust},
		{"signer.ErrNoSigningKey", signer.ErrNoSigningKey, ExitTrust},
		{"signer.ErrAgent", signer.ErrAgent, ExitTrust},
		{"predicate.ErrPolicy", predicate.ErrPolicy, ExitTrust},
		{"signer.ErrSigstore", signer.ErrSigstore, ExitTrust},
		{"signer.ErrNoSigner", signer.ErrNoSigner, ExitTrust},
		{"audit.ErrOptions", audit.ErrOptions, ExitUsage},
		{"gate.ErrTargets", gate.ErrTargets, ExitUsage},
		{"gate.ErrBaseHoldsHead", &gate.DefaultBaseError{Candidate: "origin/main", Err: fmt.Errorf("the base is HEAD: %w", gate.ErrBaseHoldsHead)}, ExitGit},
		// Git preconditions.
		{"gitref.ErrStorage", gitref.ErrStorage, ExitGit},
		{"gitref.ErrStorage+ENOSPC", fmt.Errorf("%w: x: %w", gitref.ErrStorage, &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}), ExitGit},
		// A config file the file system will not take is a git precondition.
		{"gitref.ErrConfig+gitref.ErrStorage", fmt.Errorf("%w: %w", gitref.ErrStorage, fmt.Errorf("%w: creating config.lock: %w", gitref.ErrConfig, syscall.EROFS)), ExitGit},
		{"gitref.ErrShallow", gitref.ErrShallow, ExitGit},
		{"gitref.ErrMissingObject", gitref.ErrMissingObject, ExitGit},
		{"gitref.ErrMissingObject shallow", fmt.Errorf("%w: commit c: %w", gitref.ErrMissingObject, gitref.ErrShallow), ExitGit},
		{"gitref.ErrNotesRefNotCommit", gitref.ErrNotesRefNotCommit, ExitGit},
		{"gitref.ErrBadRef", gitref.ErrBadRef, ExitGit},
		// A tasks file that cannot be read: bad input (verify makes it exit 1
		// with WithCode, below).
		{"*tick.TasksFileError", &tick.TasksFileError{Path: "tasks.md", Err: &specfmt.LineError{Line: 3, Err: specfmt.ErrInvalidUTF8}}, ExitUsage},
		// notes push / pull / sync, config, carry.
		{"gitref.ErrRemoteNotesAbsent", gitref.ErrRemoteNotesAbsent, ExitGit},
		{"gitref.ErrRemoteUnknown", gitref.ErrRemoteUnknown, ExitGit},
		{"gitref.ErrGitProgram", gitref.ErrGitProgram, ExitGit},
		{"gitref.ErrPushRetries", gitref.ErrPushRetries, ExitGit},
		{"gitref.ErrLocked", gitref.ErrLocked, ExitGit},
		{"gitref.ErrRefChanged", gitref.ErrRefChanged, ExitGit},
		{"gitref.ErrConfig", gitref.ErrConfig, ExitTrust},
		// The precedence row: a locked config file is a git precondition.
		{"gitref.ErrConfig+ErrLocked", fmt.Errorf("%w: config.lock exists: %w", gitref.ErrConfig, gitref.ErrLocked), ExitGit},
		{"carry.ErrNothingToCarry", carry.ErrNothingToCarry, ExitUsage},
		{"carry.ErrArguments", carry.ErrArguments, ExitUsage},
		{"policy.ErrPolicy", policy.ErrPolicy, ExitTrust},
		{"*policy.Error", &policy.Error{File: "p.toml", Msg: "m"}, ExitTrust},
		{"gitref.ErrNotRepository", gitref.ErrNotRepository, ExitGit},
		{"gitref.ErrUnsupportedRepository", gitref.ErrUnsupportedRepository, ExitGit},
		{"gitref.ErrUnknownRevision", gitref.ErrUnknownRevision, ExitGit},
		{"gitref.ErrUnknownRevision+ErrBadRef", fmt.Errorf("%w: %q: %w", gitref.ErrUnknownRevision, "x", gitref.ErrBadRef), ExitGit},
		{"gitref.ErrBadRange", gitref.ErrBadRange, ExitUsage},
		{"gitref.ErrNotesRefAbsent", gitref.ErrNotesRefAbsent, ExitGit},
		{"gitref.ErrNoNote", gitref.ErrNoNote, ExitGit},
		{"gitref.ErrBadRefName", gitref.ErrBadRefName, ExitGit},
		// A malformed note: a verification failure.
		{"gitref.ErrNoteNotText", gitref.ErrNoteNotText, ExitFailure},
		{"*gitref.NoteError not text", &gitref.NoteError{Err: gitref.ErrNoteNotText}, ExitFailure},
		{"gitref.ErrTooLarge", gitref.ErrTooLarge, ExitFailure},
		{"*gitref.NoteError too large", &gitref.NoteError{Err: fmt.Errorf("blob b: %w", gitref.ErrTooLarge)}, ExitFailure},
		{"trust.ErrTrust", trust.ErrTrust, ExitTrust},
		{"verify.ErrSpool", fmt.Errorf("spooling the report: %w", verify.ErrSpool), ExitTrust},
		{"*trust.AllowedSignersError", &trust.AllowedSignersError{File: "allowed_signers", Line: 1, Msg: "m"}, ExitTrust},
		{"*verify.FromVerifiedError", &verify.FromVerifiedError{Source: trust.SourceRev{Kind: trust.SourcePolicy, Rev: "HEAD:p.toml", Commit: "c"}}, ExitTrust},
		{"*gate.DefaultBaseError", &gate.DefaultBaseError{Err: gitref.ErrUnknownRevision}, ExitGit},
		{"*gate.DefaultBaseError broken ref", &gate.DefaultBaseError{Candidate: "main", Err: fmt.Errorf("%w: refs/heads/main", gitref.ErrBadRef)}, ExitGit},
		// A verifier without trust is a trust error; without a repository or
		// notes store, a caller's bug.
		{"*verify.VerifierError trust", &verify.VerifierError{Missing: verify.MissingTrust}, ExitTrust},
		{"*verify.VerifierError repository", &verify.VerifierError{Missing: verify.MissingRepo}, ExitInternal},
		// A row's error wrapped in an error no row names keeps the row's code.
		{"*specfmt.SectionNotFoundError of a missing object", &specfmt.SectionNotFoundError{Path: "spec.md", Err: fmt.Errorf("blob b: %w", gitref.ErrMissingObject)}, ExitGit},

		// Marked errors win over every row.
		{"WithCode over a row", WithCode(ExitFailure, fmt.Errorf("the gate fails: %w", &tick.TasksFileError{Path: "tasks.md", Err: specfmt.ErrNestingTooDeep})), ExitFailure},
		{"Usagef", Usagef("bad %s", "flag"), ExitUsage},
		{"failed", Failed(), ExitFailure},
		{"FlagError", &FlagError{Err: errors.New(`unknown flag: --x`)}, ExitUsage},
		{"notemerge.ErrNoSuchConflict", notemerge.ErrNoSuchConflict, ExitUsage},
		{"FlagError over a row", &FlagError{Err: fmt.Errorf("invalid argument: %w", gitref.ErrBadRefName)}, ExitUsage},
		// cobra's untyped usage errors: only its own text, wrapping nothing.
		{"cobra unknown command", errors.New(`unknown command "bogus" for "taskproof"`), ExitUsage},
		{"cobra required flag", errors.New(`required flag(s) "key" not set`), ExitUsage},
		{"cobra flag group", errors.New(`if any flags in the group [a b] are set none of the others can be; [a b] were all set`), ExitUsage},
		// Anything else is taskproof's own bug.
		{"plain error", errors.New("boom"), ExitInternal},
		{"os error quoting cobra's text", &fs.PathError{Op: "open", Path: "x", Err: errors.New("invalid argument")}, ExitInternal},
		{"cobra's text inside another error", fmt.Errorf("hook: %w", errors.New(`unknown command "x"`)), ExitInternal},
		{"unmapped sentinel", specfmt.ErrSectionNotFound, ExitInternal},
		// A recovered panic is a bug whatever marks or wraps it, and whatever
		// its value.
		{"recovered panic", &panics.Error{Value: "x"}, ExitInternal},
		{"WithCode over a panic", WithCode(ExitGit, fmt.Errorf("reading: %w", &panics.Error{Value: gitref.ErrMissingObject})), ExitInternal},
		{"panic with a usage error", &panics.Error{Value: &FlagError{Err: errors.New("x")}}, ExitInternal},
	}
	hit := make([]bool, len(exitCodes))
	for _, tc := range cases {
		errs := []error{tc.err, wrapped(tc.err)}
		if isCobraUsage(tc.err) {
			errs = errs[:1] // cobra's text counts only unwrapped (see the last cases)
		}
		for _, err := range errs {
			if got := ExitCode(err); got != tc.want {
				t.Errorf("%s: ExitCode(%q) = %d, want %d", tc.name, err, got, tc.want)
			}
		}
		if i := exitRow(tc.err); i >= 0 {
			hit[i] = true
		}
	}
	for i, h := range hit {
		if !h {
			t.Errorf("exitCodes row %d (is %v, code %d) has no case in TestExitCode", i, exitCodes[i].is, exitCodes[i].code)
		}
	}
}
