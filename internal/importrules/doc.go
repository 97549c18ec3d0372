// Package importrules holds no code: its test checks the import rules of
// docs/architecture.md against the build graph (`go list -deps`), so that a
// layer running backwards fails the build's tests instead of being found by
// reading.
package importrules
