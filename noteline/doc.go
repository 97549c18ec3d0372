// Package noteline reads the lines of a taskproof git note
// (docs/format.md#storage, docs/format.md#note-lines): [Split] cuts a note into
// its JSON Lines and [Decode] reads one line as every reader should — a DSSE
// envelope, a Sigstore bundle holding one ([DecodeBundle]), another tool's
// (foreign) line, a blank or a malformed one — within the limits of
// docs/format.md#limits ([MaxNoteSize], [MaxNoteLines] and the envelope limits
// of package dsse).
//
// Nothing here is verified and no Statement is decoded: package attest reads
// the statements, package verify checks signatures and bundles against the
// verifier's trust.
package noteline
