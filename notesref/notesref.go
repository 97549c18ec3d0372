package notesref

import "strings"

// Default is the notes ref attestations are kept under, speccoder's
// (docs/format.md#storage).
const Default = "refs/notes/speccoder"

// Tracking is the ref that holds remote's copy of notes ref ref
// (docs/format.md#sharing-notes-between-clones): refs/notes/<name> is tracked
// in refs/notes/remotes/<remote>/<name>, as refs/heads/<b> is in
// refs/remotes/<remote>/<b>. A forced fetch into it loses nothing: it only
// mirrors the remote, and `taskproof notes fetch` merges it into ref.
func Tracking(ref, remote string) string {
	return "refs/notes/remotes/" + remote + "/" + notesName(ref)
}

// SkipPrefix is where skip records live (docs/format.md#storage).
const SkipPrefix = "refs/speccoder/skipped/"

// SkipTracking is where remote's skip records are fetched:
// refs/speccoder/remotes/<remote>/skipped/.
func SkipTracking(remote string) string {
	return "refs/speccoder/remotes/" + remote + "/skipped/"
}

// RefspecMaps reports whether fetch refspec spec (a remote.<name>.fetch
// value, git's refspec form) brings remote ref ref into local ref dst: exact
// ("[+]ref:dst") or by a pattern with one '*' on both sides
// ("refs/notes/*:refs/notes/*"). A refspec without ':' maps nothing.
func RefspecMaps(spec, ref, dst string) bool {
	src, to, ok := strings.Cut(strings.TrimPrefix(spec, "+"), ":")
	if !ok {
		return false
	}
	spre, ssuf, sglob := strings.Cut(src, "*")
	if !sglob {
		return src == ref && to == dst
	}
	dpre, dsuf, dglob := strings.Cut(to, "*")
	if !dglob || !strings.HasPrefix(ref, spre) || !strings.HasSuffix(ref, ssuf) || len(ref) < len(spre)+len(ssuf) {
		return false
	}
	return dpre+ref[len(spre):len(ref)-len(ssuf)]+dsuf == dst
}

// Synced is the ref that records the commit remote's notes ref ref held when
// this clone last fetched or pushed it with taskproof:
// refs/speccoder/remotes/<remote>/synced/<name>. Unlike the tracking ref,
// which a plain `git fetch` moves (forcing it over a rewrite), only taskproof
// moves it, so a rewrite of the remote is judged against it
// (docs/format.md#a-remote-rewritten-by-someone-else).
func Synced(ref, remote string) string {
	return "refs/speccoder/remotes/" + remote + "/synced/" + notesName(ref)
}

// RewrittenFrom is the ref that holds, while lines of yours a rewrite of
// remote's notes ref dropped are still missing there, the commit the remote
// held before the rewrite: refs/speccoder/remotes/<remote>/rewritten/<name>.
func RewrittenFrom(ref, remote string) string {
	return "refs/speccoder/remotes/" + remote + "/rewritten/" + notesName(ref)
}

// notesName is a notes ref's name below refs/notes/ (below refs/ for a ref
// elsewhere).
func notesName(ref string) string {
	name := strings.TrimPrefix(ref, "refs/notes/")
	if name == ref {
		name = strings.TrimPrefix(ref, "refs/")
	}
	return name
}
