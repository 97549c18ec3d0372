package notemerge

import (
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/gitref/gitconfig"
	"github.com/taskproof/taskproof/notesref"
)

// NotesConfig is the repository configuration that makes notesRef travel with
// the work (docs/format.md#sharing-notes-between-clones), as `taskproof init`
// writes it with [gitconfig.Config.Ensure]: fetch refspecs of remote (none
// when remote is "") and git's notes.rewrite settings, so that amend and
// rebase copy a commit's note.
//
// The fetch refspecs mirror the remote's notes into tracking refs, as git does
// for branches: forced, because a tracking ref only ever holds the remote's
// value, and never into the local notes ref or skip records — a refspec that
// updates those makes `git fetch` and `git pull` fail ("non-fast-forward") as
// soon as both sides attested; `taskproof notes fetch` merges the tracking refs
// in. The notes refspec is a pattern (<ref>*): git fetch fails outright on a
// configured exact refspec whose ref the remote does not have yet, and the
// pattern also tracks the conflicts ref (<ref>-conflicts). The refspecs an
// earlier init wrote (into the local refs) are replaced.
func NotesConfig(remote, notesRef string) []gitconfig.Want {
	var w []gitconfig.Want
	if remote != "" {
		fetch := "remote." + remote + ".fetch"
		track := notesref.Tracking(notesRef, remote)
		skipTrack := notesref.SkipTracking(remote)
		w = append(w,
			gitconfig.Want{Key: fetch, Value: "+" + notesRef + "*:" + track + "*", Multi: true,
				Replaces: []string{notesRef + "*:" + notesRef + "*"},
				Satisfied: func(vs []string) bool {
					for _, v := range vs {
						if notesref.RefspecMaps(v, notesRef, track) && notesref.RefspecMaps(v, ConflictsRef(notesRef), notesref.Tracking(ConflictsRef(notesRef), remote)) {
							return true
						}
					}
					return false
				}},
			gitconfig.Want{Key: fetch, Value: "+" + notesref.SkipPrefix + "*:" + skipTrack + "*", Multi: true,
				Replaces: []string{notesref.SkipPrefix + "*:" + notesref.SkipPrefix + "*"},
				Satisfied: func(vs []string) bool {
					for _, v := range vs {
						if notesref.RefspecMaps(v, notesref.SkipPrefix+"x", skipTrack+"x") {
							return true
						}
					}
					return false
				}},
		)
	}
	return append(w,
		gitconfig.Want{Key: "notes.rewriteRef", Value: notesRef, Multi: true},
		gitconfig.Want{Key: "notes.rewrite.rebase", Value: "true"},
		gitconfig.Want{Key: "notes.rewrite.amend", Value: "true"},
	)
}

// SelfMappingRefspecs returns the remote's fetch refspecs (other than the ones
// [NotesConfig] replaces) that make git fetch write the local notes ref or
// skip records directly: they make `git fetch` fail once both sides moved. A
// configuration that cannot be read gives none.
func SelfMappingRefspecs(repo *gitref.Repo, remote, notesRef string) []string {
	c, err := repo.Config()
	if err != nil {
		return nil
	}
	vs, err := c.LocalValues("remote." + remote + ".fetch")
	if err != nil {
		return nil
	}
	var out []string
	for _, v := range vs {
		if v == notesRef+"*:"+notesRef+"*" || v == notesref.SkipPrefix+"*:"+notesref.SkipPrefix+"*" {
			continue
		}
		if notesref.RefspecMaps(v, notesRef, notesRef) || notesref.RefspecMaps(v, notesref.SkipPrefix+"x", notesref.SkipPrefix+"x") {
			out = append(out, v)
		}
	}
	return out
}

// ForcedRefspec is a forced fetch refspec of a remote that writes a local ref
// taskproof owns.
type ForcedRefspec struct {
	Remote, Spec string
}

// ForcedOntoNotes returns the forced fetch refspecs ("+src:dst"), of any
// remote, in any configuration file git reads, whose destination is the
// local notes ref, its conflicts ref or a skip record: every `git fetch` of
// that remote then replaces the local ref with what the remote (or another of
// its refs) holds, losing what was written locally and not pushed. A
// configuration that cannot be read gives none.
func ForcedOntoNotes(repo *gitref.Repo, notesRef string) []ForcedRefspec {
	c, err := repo.Config()
	if err != nil {
		return nil
	}
	var out []ForcedRefspec
	for _, e := range c.Entries() {
		rest, ok := strings.CutPrefix(e.Key, "remote.")
		if !ok || !strings.HasSuffix(rest, ".fetch") || !strings.HasPrefix(e.Value, "+") {
			continue
		}
		_, dst, ok := strings.Cut(e.Value[1:], ":")
		if !ok {
			continue
		}
		for _, ref := range []string{notesRef, ConflictsRef(notesRef), notesref.SkipPrefix + "x"} {
			if destinationCovers(dst, ref) {
				out = append(out, ForcedRefspec{Remote: strings.TrimSuffix(rest, ".fetch"), Spec: e.Value})
				break
			}
		}
	}
	return out
}

// destinationCovers reports whether a refspec destination (exact, or a
// pattern with one '*') can name local ref ref.
func destinationCovers(dst, ref string) bool {
	pre, suf, glob := strings.Cut(dst, "*")
	if !glob {
		return dst == ref
	}
	return len(ref) > len(pre)+len(suf) && strings.HasPrefix(ref, pre) && strings.HasSuffix(ref, suf)
}
