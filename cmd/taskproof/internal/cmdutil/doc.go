// Package cmdutil is what taskproof's commands share beyond their flags: the
// exit codes and the one table mapping the libraries' errors to them, the
// usage and silent errors, opening the repository the root's flags name,
// writing report files as the shell's `>` would, and the messages that name
// the flags a library error is about.
package cmdutil
