package tick

import (
	"cmp"
	"slices"

	"github.com/taskproof/taskproof/gitref"
)

// filePair is a tasks file of a commit and the parent's file it comes from
// (same path, or followed across a move). of and nf, when not nil, are their
// parses, made while pairing moves.
type filePair struct {
	old, new tasksFile
	of, nf   *parsedFile
}

// newFile is a tasks file of a commit that comes from none of the parent's
// files; nf, when not nil, is its parse.
type newFile struct {
	f  tasksFile
	nf *parsedFile
}

// pair matches the parent's changed tasks files with the commit's
// (docs/format.md#units-and-task-lines): same path first, then moves — a
// file of the commit whose path the parent lacks with a file of the parent
// the commit lacks, when their blobs are equal (score 2) or when their
// similarity (the shared tasks' share, [similarity]) is at least one half.
// Candidates are taken best first: by score, then by the share of tasks
// keeping ID and title, then in path order (the commit's file, then the
// parent's), each file in one pair at most. added are the commit's files
// paired with none: new files.
//
// Every file a move may pair is parsed once, and the similarities are
// counted through an index of the parent's files' tasks by key: a file is
// compared only with the files it shares a task key with, so a commit moving
// N files costs N parses and the task keys they share, not N² parses.
func (tc *tickCtx) pair(olds, news []tasksFile) (pairs []filePair, added []newFile, err error) {
	oldBy := map[string]int{}
	for i, o := range olds {
		oldBy[o.path] = i
	}
	usedOld := make([]bool, len(olds))
	var adds []tasksFile
	for _, n := range news {
		if i, ok := oldBy[n.path]; ok {
			pairs = append(pairs, filePair{old: olds[i], new: n})
			usedOld[i] = true
		} else {
			adds = append(adds, n)
		}
	}
	var removed []int // indices into olds
	for i := range olds {
		if !usedOld[i] {
			removed = append(removed, i)
		}
	}
	if len(adds) == 0 || len(removed) == 0 {
		for _, n := range adds {
			added = append(added, newFile{f: n})
		}
		return pairs, added, nil
	}

	// The removed files' tasks by key (the ID, with its occurrence for a
	// repeated one: parsedFile.keys), and the removed files by blob.
	type held struct {
		file    int // index into removed
		title   string
		derived bool
	}
	byKey := map[string][]held{}
	byBlob := map[gitref.Hash][]int{}
	ofs := make([]*parsedFile, len(removed))
	for ri, oi := range removed {
		byBlob[olds[oi].blob] = append(byBlob[olds[oi].blob], ri)
		of, err := tc.parse(olds[oi])
		if err != nil {
			return nil, nil, tasksFileErr("", olds[oi].path, err)
		}
		ofs[ri] = of
		for i, k := range of.keys {
			byKey[k] = append(byKey[k], held{ri, of.tasks[i].Title, of.tasks[i].Derived})
		}
	}

	// A candidate's score is 2 for equal blobs, else shared/tasks, and its
	// title share common/tasks: fractions compared exactly.
	type cand struct {
		n, o                  int32 // indices into adds and removed
		blob                  bool
		shared, common, tasks int32
	}
	var cands []cand
	nfs := make([]*parsedFile, len(adds))
	// Per removed file, for the added file being compared: tasks with the
	// same key and title, and with the same written key; seen marks the
	// files touched.
	common, ids := make([]int, len(removed)), make([]int, len(removed))
	seen := make([]bool, len(removed))
	var touched []int
	for ni, n := range adds {
		for _, ri := range byBlob[n.blob] {
			cands = append(cands, cand{n: int32(ni), o: int32(ri), blob: true})
		}
		nf, err := tc.parse(n)
		if err != nil {
			return nil, nil, tasksFileErr("", n.path, err)
		}
		nfs[ni] = nf
		for i, k := range nf.keys {
			t := &nf.tasks[i]
			for _, h := range byKey[k] {
				if !seen[h.file] {
					seen[h.file] = true
					touched = append(touched, h.file)
				}
				if h.title == t.Title {
					common[h.file]++
				}
				if !h.derived && !t.Derived {
					ids[h.file]++
				}
			}
		}
		for _, ri := range touched {
			if olds[removed[ri]].blob != n.blob {
				if shared, tasks := similarity(common[ri], ids[ri], len(ofs[ri].tasks), len(nf.tasks)); 2*shared >= tasks && tasks > 0 {
					cands = append(cands, cand{n: int32(ni), o: int32(ri), shared: int32(shared), common: int32(common[ri]), tasks: int32(tasks)})
				}
			}
			common[ri], ids[ri], seen[ri] = 0, 0, false
		}
		touched = touched[:0]
	}
	// frac compares x/y with u/v (positive denominators).
	frac := func(x, y, u, v int32) int { return cmp.Compare(int64(x)*int64(v), int64(u)*int64(y)) }
	slices.SortFunc(cands, func(a, b cand) int {
		if a.blob != b.blob {
			if a.blob {
				return -1
			}
			return 1
		}
		if !a.blob {
			if c := frac(b.shared, b.tasks, a.shared, a.tasks); c != 0 {
				return c
			}
			if c := frac(b.common, b.tasks, a.common, a.tasks); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(a.n, b.n); c != 0 {
			return c
		}
		return cmp.Compare(a.o, b.o)
	})
	usedNew := make([]bool, len(adds))
	usedRemoved := make([]bool, len(removed))
	for _, c := range cands {
		if usedRemoved[c.o] || usedNew[c.n] {
			continue
		}
		usedRemoved[c.o], usedNew[c.n] = true, true
		pairs = append(pairs, filePair{old: olds[removed[c.o]], new: adds[c.n], of: ofs[c.o], nf: nfs[c.n]})
	}
	for i, n := range adds {
		if !usedNew[i] {
			added = append(added, newFile{f: n, nf: nfs[i]})
		}
	}
	return pairs, added, nil
}

// similarity is the share of tasks two files have in common, shared/tasks,
// given the number of the added file's tasks whose key the removed file has
// with the same title (common) and with a written ID on both sides (ids), and
// the two files' task counts: the larger of the two counts over the larger
// file's tasks — a move that also rewrites every title keeps the IDs
// (docs/format.md#units-and-task-lines). Files of different formats are
// compared the same way: a unit moved to another layout keeps its tasks.
// tasks is 0 when neither file has any (no similarity).
func similarity(common, ids, oldTasks, newTasks int) (shared, tasks int) {
	return max(common, ids), max(oldTasks, newTasks)
}
