// Package trailer reads the trailers of a commit message ("Key: value" lines
// of its last paragraph) as `git interpret-trailers --parse` does with git's
// default configuration: the Spec-Task and Verdict trailers a tick
// commit carries, read by the writers and by the gate alike. It imports no
// repository code.
package trailer
