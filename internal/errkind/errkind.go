// Package errkind makes an error that matches a package's sentinel (with
// errors.Is) while its message is its own: a refusal that names the command
// line's flags reads better without the sentinel's words in front of it.
package errkind

// New returns an error whose message is msg and which matches kind.
func New(kind error, msg string) error { return &kindError{kind, msg} }

type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }
