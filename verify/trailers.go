package verify

import (
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/trailer"
)

// CodeTrailer: the tick commit's Spec-Task/Verdict trailers disagree with its
// statements (docs/format.md#commit-trailers).
const CodeTrailer = "trailer"

// Trailer keys speccoder writes on tick commits (docs/format.md#commit-trailers).
const (
	TrailerSpecTask = "Spec-Task"
	TrailerVerdict  = "Verdict"
)

// checkTrailers checks that the Spec-Task and Verdict trailers of commit c
// agree with the results of its note (docs/format.md#commit-trailers): each
// Spec-Task names a subject that has a task-verification statement in the
// note, and its Verdict — the one Verdict of the commit, or the Verdict in
// the same position when the commit has as many of each — is that
// statement's verdict. A disagreement is a mismatch (reason trailer) on the
// results of the tasks it concerns, or on every result of the commit when the
// named task has none. A commit without Spec-Task trailers is not checked.
func checkTrailers(c *gitref.Commit, rs []ObjectResult) {
	trailers := trailer.Parse(c.Message)
	tasks := trailer.Values(trailers, TrailerSpecTask)
	if len(tasks) == 0 {
		return
	}
	verdicts := trailer.Values(trailers, TrailerVerdict)
	verdictFor := func(i int) (string, error) {
		switch {
		case len(verdicts) == 0:
			return "", nil
		case len(verdicts) == 1:
			return verdicts[0], nil
		case len(verdicts) == len(tasks):
			return verdicts[i], nil
		}
		return "", fmt.Errorf("%d %s trailers for %d %s trailers: which verdict is whose cannot be told", len(verdicts), TrailerVerdict, len(tasks), TrailerSpecTask)
	}
	fail := func(r *ObjectResult, expected, found, msg string) {
		r.fail(Mismatch, CodeTrailer, "commit message: trailers", expected, found, msg)
	}
	for i, task := range tasks {
		verdict, err := verdictFor(i)
		var named []*ObjectResult
		for j := range rs {
			if rs[j].Task == task && rs[j].Predicate != nil {
				named = append(named, &rs[j])
			}
		}
		if len(named) == 0 {
			for j := range rs {
				if rs[j].Outcome == Missing {
					continue // no evidence at all is reported as such
				}
				fail(&rs[j], TrailerSpecTask+": "+task, "", "the commit names "+task+" in a trailer but its note has no task-verification statement for it")
			}
			continue
		}
		for _, r := range named {
			switch {
			case err != nil:
				fail(r, "", strings.Join(verdicts, ", "), err.Error())
			case verdict != "" && verdict != r.Verdict:
				fail(r, TrailerVerdict+": "+r.Verdict, TrailerVerdict+": "+verdict, "the commit's trailer says another verdict than the statement for "+task)
			}
		}
	}
}
