package main

import (
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/gitref"
)

// Exit codes (docs/format.md#exit-codes).
const (
	ExitOK       = 0 // success or neutral
	ExitFailure  = 1 // verification or policy failure
	ExitUsage    = 2 // usage
	ExitTrust    = 3 // trust or config error
	ExitGit      = 4 // git precondition: not a repo, unknown rev, notes ref absent
	ExitInternal = 5 // internal error
)

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

// withCode marks err with an exit code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// usageErr is a usage error (exit 2).
func usageErr(format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

// failed reports that the command's report already said what failed (exit 1, no
// further message).
func failed() error { return &exitError{code: ExitFailure, silent: true} }

// codeClassifiers map library errors to exit codes; packages' sentinel errors are
// registered here, in one place (STYLE: cmd maps errors to exit codes).
var codeClassifiers []func(error) (int, bool)

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	for _, c := range codeClassifiers {
		if code, ok := c(err); ok {
			return code
		}
	}
	if isCobraUsage(err) {
		return ExitUsage
	}
	return ExitInternal
}

func isSilent(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.silent
}

// A repository that lacks what the command needs is a git precondition (exit
// 4), never an internal error: a shallow clone, a missing object, a notes ref
// that is not a notes commit, a ref file holding no object id
// (docs/format.md#git-preconditions).
func init() {
	codeClassifiers = append(codeClassifiers, func(err error) (int, bool) {
		switch {
		case errors.Is(err, gitref.ErrShallow), errors.Is(err, gitref.ErrMissingObject),
			errors.Is(err, gitref.ErrNotesRefNotCommit), errors.Is(err, gitref.ErrBadRef):
			return ExitGit, true
		}
		return 0, false
	})
}

// A tasks file that cannot be read is bad input (exit 2) for the commands that
// read it; verify makes it a failing gate (exit 1, see newVerifyCmd): what the
// gate cannot judge fails it.
func init() {
	codeClassifiers = append(codeClassifiers, func(err error) (int, bool) {
		var tf *gitref.TasksFileError
		if errors.As(err, &tf) {
			return ExitUsage, true
		}
		return 0, false
	})
}
