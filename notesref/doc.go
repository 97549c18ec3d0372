// Package notesref names the refs taskproof keeps beside a repository's
// branches: where a remote's copy of a notes ref is tracked, where the notes
// commit a remote held at the last sync is recorded, where skip records live
// and where a remote's are fetched, and whether a fetch refspec
// maps a remote ref onto a local one (which `taskproof init` and the notes
// merge use to keep `git fetch` from overwriting notes). It imports no
// repository code.
package notesref
