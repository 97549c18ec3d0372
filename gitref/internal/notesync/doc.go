// Package notesync is the notes store behind gitref's NotesStore: the notes
// tree of a notes ref read and written in-process (any fan-out, a note's
// blobs checked for size and text, a note replaced by compare-and-swap of the
// ref), and the sharing of notes between clones
// (docs/format.md#sharing-notes-between-clones): fetching a remote's notes
// ref into its tracking ref, merging notes commits line by line, keeping the
// lines a merge displaces in the conflicts ref, pushing with retries, and
// noticing a remote rewritten by someone else.
//
// The transport is the git program, not go-git's: pushing and fetching must
// reach the remote exactly as `git push` and `git fetch` do for the user, and
// go-git ignores git's credential helpers, url.<base>.insteadOf rewrites,
// core.sshCommand, ssh_config (ProxyJump, IdentityFile), http.* proxy and
// certificate settings. Only the two network operations run git; everything
// else (ancestry, merging notes trees, moving the local ref under its lock) is
// done in-process through [Repo], and a local ref only moves by
// compare-and-swap.
package notesync
