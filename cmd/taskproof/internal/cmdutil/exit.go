package cmdutil

import (
	"errors"
	"fmt"
	"strings"

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

// Exit codes (docs/cli/exit-codes.md, generated from [exitClasses] and
// [exitCodes]).
const (
	ExitOK       = 0 // success or neutral
	ExitFailure  = 1 // verification or policy failure
	ExitUsage    = 2 // usage
	ExitTrust    = 3 // trust or config error
	ExitGit      = 4 // git precondition: not a repo, unknown rev, notes ref absent
	ExitInternal = 5 // internal error
)

// ExitClass is what an exit code means.
type ExitClass struct {
	Code    int
	Meaning string
}

// exitClasses are the exit codes and what each means: the one text help
// and docs/cli/exit-codes.md give.
var exitClasses = []ExitClass{
	{ExitOK, "success or neutral (nothing to check)"},
	{ExitFailure, "verification or policy failure: any outcome but ok (unsigned too, unless --insecure-allow-unsigned), a tick the gate does not accept, input it cannot judge"},
	{ExitUsage, "usage: an unknown command, help topic or flag at any level (the nearest names suggested, nothing read or written), a flag or argument that does not apply, a flag value it refuses (a negative count, an empty path), a malformed range (A...B, or a range where one revision is expected), input a command refuses (a commit that ticks no task, bad evidence)"},
	{ExitTrust, "trust or config error: no trust input, an unreadable trust or policy file, an unusable key, a TMPDIR the gate cannot write its temporary files to"},
	{ExitGit, "git precondition: not a repository, an unknown revision, the notes ref absent, a shallow clone missing what the range needs, a missing object, a notes ref that is not a notes commit, a broken ref, a stale lock file, storage that will not take a write, a failed git command; the message says what to do"},
	{ExitInternal, "internal error: a bug in taskproof (a panic, or an error no row of the table names)"},
}

// ExitClasses returns the exit codes and what each means, in order.
func ExitClasses() []ExitClass { return append([]ExitClass(nil), exitClasses...) }

// ExitHelp is the line help texts end with: the exit codes in short, and
// where they are described.
func ExitHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes: ")
	for i, c := range exitClasses {
		switch {
		case i == 3:
			b.WriteString(",\n") // two lines of help text
		case i > 0:
			b.WriteString(", ")
		}
		short, _, _ := strings.Cut(c.Meaning, ":")
		fmt.Fprintf(&b, "%d %s", c.Code, strings.TrimSuffix(short, " (nothing to check)"))
	}
	b.WriteString(" (docs/cli/exit-codes.md).")
	return b.String()
}

// ExitRow is a row of the exit code table as docs show it: the error it
// matches, by its message or what it is, and its exit code.
type ExitRow struct {
	Code  int
	Error string
}

// ExitRows returns the table's rows in the order they are matched.
func ExitRows() []ExitRow {
	out := make([]ExitRow, 0, len(exitCodes))
	for _, r := range exitCodes {
		what := r.doc
		if r.is != nil {
			what = r.is.Error()
		}
		out = append(out, ExitRow{Code: r.code, Error: what})
	}
	return out
}

// exitError carries an exit code through cobra to run.
type exitError struct {
	code   int
	err    error
	silent bool // already reported (e.g. a failing report was printed)
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// WithCode marks err with an exit code.
func WithCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// OrCode marks err with code unless a row of [exitCodes] names it: a
// command's own reading of its errors applies to those the table does not
// know, never over a row (a storage fault met writing the config stays exit
// 4, not the config error the command would call it).
func OrCode(code int, err error) error {
	if err == nil || exitRow(err) >= 0 {
		return err
	}
	return WithCode(code, err)
}

// Usagef is a usage error (exit 2).
func Usagef(format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

// Failed reports that the command's report already said what failed (exit 1, no
// further message).
func Failed() error { return &exitError{code: ExitFailure, silent: true} }

// exitCodes maps the libraries' sentinel and typed errors to exit codes, in
// one ordered table: [ExitCode] returns the code of the first row whose error
// the chain matches (errors.Is for a sentinel, errors.As for a type; typed
// errors that match a sentinel through Is or Unwrap are listed by it).
//
// The rows keep the order the exit codes have always been looked up in. One
// error in the libraries matches two rows with different codes, and the
// earlier row must win:
//   - gitref.ErrLocked (4) before gitref.ErrConfig (3): writing a config file
//     that another git process holds locked wraps both, and a lock is a git
//     precondition to wait out or clear, not a configuration to fix.
//   - gitref.ErrStorage (4) before gitref.ErrConfig (3), likewise: a config
//     file the file system will not take (full, read-only) wraps both.
//
// Other errors that match several rows match rows of one code: a
// missing object is ErrMissingObject and, in a shallow clone, ErrShallow
// (4); ErrUnknownRevision may wrap ErrBadRef (4);
// a *predicate.SchemaError is ErrSchema and ErrMalformed (2). A new row whose
// error can wrap (or be wrapped by) another row's must be placed by the same
// rule and named here.
//
// Errors marked by [WithCode] (and [FlagError]) win over every row.
var exitCodes = []struct {
	is   error            // a sentinel, matched with errors.Is
	as   func(error) bool // or a type, matched with errors.As
	doc  string           // for a type: what it is, as docs/cli/exit-codes.md names it
	code int
}{
	// attest tick / decide / sign: what the request asks cannot be done.
	{is: attest.ErrNoTick, code: ExitUsage},
	{is: attest.ErrTaskNotTicked, code: ExitUsage},
	{is: attest.ErrRequest, code: ExitUsage},
	{is: notemerge.ErrRequest, code: ExitUsage},
	{is: signer.ErrChoice, code: ExitUsage},
	{is: predicate.ErrBuild, code: ExitUsage},
	{is: predicate.ErrSchema, code: ExitUsage},
	{is: predicate.ErrMalformed, code: ExitUsage},
	{is: notemerge.ErrNoteLimit, code: ExitUsage},
	{is: specfmt.ErrDuplicateTask, code: ExitUsage},
	{is: testreport.ErrUnreadable, code: ExitUsage},
	{is: attest.ErrAlreadyAttested, code: ExitUsage},
	// Signing keys and what is hashed into the statement: trust or config.
	{is: signer.ErrPassphraseRequired, code: ExitTrust},
	{is: signer.ErrBadPassphrase, code: ExitTrust},
	{is: signer.ErrUnsupportedKey, code: ExitTrust},
	{is: signer.ErrNoSigningKey, code: ExitTrust},
	{is: signer.ErrAgent, code: ExitTrust},
	{is: predicate.ErrPolicy, code: ExitTrust},
	{is: signer.ErrSigstore, code: ExitTrust},
	{is: signer.ErrNoSigner, code: ExitTrust},
	{is: audit.ErrOptions, code: ExitUsage},
	{is: gate.ErrTargets, code: ExitUsage},
	// A default base that leaves the range empty: the checkout lacks the
	// base the range starts from.
	{is: gate.ErrBaseHoldsHead, code: ExitGit},
	// A repository that lacks what the command needs is a git precondition,
	// never an internal error: a shallow clone, a missing object, a notes ref
	// that is not a notes commit, a ref file holding no object id
	// (docs/format.md#git-preconditions), and storage that will not take a
	// write: full, read-only, not permitted.
	{is: gitref.ErrStorage, code: ExitGit},
	{is: gitref.ErrShallow, code: ExitGit},
	{is: gitref.ErrMissingObject, code: ExitGit},
	{is: gitref.ErrNotesRefNotCommit, code: ExitGit},
	{is: gitref.ErrBadRef, code: ExitGit},
	// A tasks file that cannot be read is bad input for the commands that
	// read it; verify makes it a failing gate (exit 1, see newVerifyCmd): what
	// the gate cannot judge fails it.
	{as: IsType[*tick.TasksFileError], doc: "a tasks file that cannot be read (verify: exit 1, the gate fails)", code: ExitUsage},
	// notes push / pull / sync and carry.
	{is: gitref.ErrRemoteNotesAbsent, code: ExitGit},
	{is: gitref.ErrRemoteUnknown, code: ExitGit},
	{is: gitref.ErrGitProgram, code: ExitGit},
	{is: gitref.ErrPushRetries, code: ExitGit},
	{is: gitref.ErrLocked, code: ExitGit},
	{is: gitref.ErrRefChanged, code: ExitGit},
	{is: gitref.ErrConfig, code: ExitTrust},
	{is: carry.ErrNothingToCarry, code: ExitUsage},
	{is: carry.ErrArguments, code: ExitUsage},
	{is: notemerge.ErrNoSuchConflict, code: ExitUsage},
	{is: policy.ErrPolicy, code: ExitTrust},
	// Git preconditions: not a repository, unsupported repository format,
	// unknown revision, notes ref absent, bad ref name. A malformed range
	// (A...B, a range where one revision is expected) is the user's typing:
	// a usage error.
	{is: gitref.ErrNotRepository, code: ExitGit},
	{is: gitref.ErrUnsupportedRepository, code: ExitGit},
	{is: gitref.ErrUnknownRevision, code: ExitGit},
	{is: gitref.ErrBadRange, code: ExitUsage},
	{is: gitref.ErrNotesRefAbsent, code: ExitGit},
	{is: gitref.ErrNoNote, code: ExitGit},
	{is: gitref.ErrBadRefName, code: ExitGit},
	// A note that is not text or is over the size limit is a malformed note:
	// a verification failure.
	{is: gitref.ErrNoteNotText, code: ExitFailure},
	{is: gitref.ErrTooLarge, code: ExitFailure},
	{is: trust.ErrTrust, code: ExitTrust},
	// The temporary directory the gate spools its walk and report to
	// (TMPDIR) is configuration of the system it runs on.
	{is: verify.ErrSpool, code: ExitTrust},

	// Rows for hook and init (taskproof hook, taskproof init) go here, above
	// this line; say in the comment above the table if one must win over an
	// earlier row.
}

// IsType reports whether err's chain holds an error of type T.
func IsType[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

// ExitCode returns the process exit code for err (docs/cli/exit-codes.md):
// 5 for a recovered panic (*panics.Error), else the code [WithCode] or
// [FlagError] gave it, else the first matching row of [exitCodes], else 2 for
// the few usage errors cobra returns untyped (see [isCobraUsage]), else 5: an
// error no row names is taskproof's own bug.
func ExitCode(err error) int {
	if IsType[*panics.Error](err) {
		return ExitInternal // a bug, whatever marked it on the way
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if IsType[*FlagError](err) {
		return ExitUsage
	}
	if i := exitRow(err); i >= 0 {
		return exitCodes[i].code
	}
	if isCobraUsage(err) {
		return ExitUsage
	}
	return ExitInternal
}

// exitRow returns the index of the first row of [exitCodes] err matches, or -1.
func exitRow(err error) int {
	for i, row := range exitCodes {
		if row.is != nil && errors.Is(err, row.is) || row.as != nil && row.as(err) {
			return i
		}
	}
	return -1
}

// FlagError is a command-line usage error cobra found before the command ran:
// a flag it cannot parse (root's SetFlagErrorFunc) or a wrong number of
// arguments (the commands' Args, wrapped by the command tree). Exit 2, as gh's
// FlagError.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// isCobraUsage recognises the usage errors cobra returns as plain errors
// that taskproof cannot type: an unknown command of the root (cobra finds it
// before any hook runs), an Args error of a command cobra adds itself after
// the tree wrapped the others (completion, __complete), a required flag or a flag group
// left unsatisfied. It matches
// only an error that wraps nothing and starts with cobra's own text.
func isCobraUsage(err error) bool {
	if errors.Unwrap(err) != nil {
		return false
	}
	msg := err.Error()
	for _, p := range []string{"unknown command ", // root's legacyArgs, NoArgs
		"accepts ", "requires at least ", "requires at most ", "requires exactly ", // *Args
		"invalid argument ", // OnlyValidArgs
		"required flag(s) ", "if any flags in the group ", "at least one of the flags in the group "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// IsSilent reports whether err was already reported to the user (a failing
// report was printed): the exit code stands, no message is added.
func IsSilent(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.silent
}

// ErrorKind names an exit code's class in machine-readable error results.
func ErrorKind(code int) string {
	switch code {
	case ExitFailure:
		return "unjudgeable_input"
	case ExitUsage:
		return "usage"
	case ExitTrust:
		return "trust_or_config"
	case ExitGit:
		return "git_precondition"
	}
	return "internal"
}
