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
	name := strings.TrimPrefix(ref, "refs/notes/")
	if name == ref {
		name = strings.TrimPrefix(ref, "refs/")
	}
	return "refs/notes/remotes/" + remote + "/" + name
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
