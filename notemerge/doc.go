// Package notemerge is how taskproof's lines enter a git note and how two
// versions of a note become one (docs/format.md#storage).
//
//   - [MergeNote] and [MergeTaskNote] replace the lines taskproof owns for a
//     tick, keeping every other line byte for byte; [CosignHeld] and
//     [WithSignatures] add a signature to a statement the note already holds.
//   - [MergeNotes] merges two versions of a commit's note, tick by tick, and
//     names the side that won each conflict ([NoteConflict], [RuleText]);
//     [UnionLines] keeps both, for the conflicts ref.
//   - [SyncNotes] fetches or pushes a notes ref, merging what arrived;
//     [ListConflicts] and [ResolveConflicts] read and settle the statements a
//     merge displaced into [ConflictsRef].
//   - [NotesConfig], [SelfMappingRefspecs] and [ForcedOntoNotes] are the
//     remote configuration that keeps `git fetch` and `git push` from
//     overwriting notes.
//
// Which lines belong to a tick is package statement's; the git transport is
// package gitref's. It signs nothing: writers (package attest) bring signed
// lines.
package notemerge
