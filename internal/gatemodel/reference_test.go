package gatemodel

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// The reference implementation of docs/format.md#the-gates-model. Each
// function names the step it is; none is clever. Everything about the
// repository comes from the git program; tasks files are read with specfmt.

// refKey is a task's key in its file (model: Lineage): its ID and which of the
// file's lines with that ID it is.
type refKey struct {
	id  string
	nth int
}

// refTask is a task line of a tasks file.
type refTask struct {
	key     refKey
	checked bool
	line    string // read as open, then NUL and the rest of its text
	title   string
	derived bool
	parent  string // the enclosing task's ID (specfmt.Task.Parent)
}

// refFile is a unit's tasks file at a commit.
type refFile struct {
	path, blob string
	unit       specfmt.Unit
}

// refParsed is a tasks file's tasks.
type refParsed struct {
	tasks []refTask
	byKey map[refKey]int
}

// refPoint is what a line comes from: an origin (a commit where it became
// checked) or, when the trace stops at the range, an entry (a parent outside
// the range holding it), with the task's path there.
type refPoint struct {
	origin  bool
	commit  string
	path    string
	kind    string // an origin's: tick, born, edit
	reopens bool
	// over: an origin the line comes from through a move onto a path where
	// the base has a unit's tasks file, made by a commit none of whose
	// parents has a tasks file there (model step 4).
	over bool
}

// reference asks git about one repository.
type reference struct {
	t   testing.TB
	dir string

	cat    *exec.Cmd
	catIn  io.WriteCloser
	catOut *bufio.Reader

	parents map[string][]string
	trees   map[string]string
	files   map[string]map[string]refFile
	parsed  map[string]*refParsed
	pairs   map[[2]string]map[string]string
	anc     map[[2]string]bool
	inR     map[string]bool
	memo    map[string][]refPoint
	base    map[string]refFile // the base's tasks files, once verdict knows it
	trusted map[string]bool
	notes   map[string][]refStatement
}

func newReference(t testing.TB, dir string, trusted []string) *reference {
	t.Helper()
	r := &reference{t: t, dir: dir, parents: map[string][]string{}, trees: map[string]string{},
		files: map[string]map[string]refFile{}, parsed: map[string]*refParsed{}, pairs: map[[2]string]map[string]string{},
		anc: map[[2]string]bool{}, memo: map[string][]refPoint{}, trusted: map[string]bool{}, notes: map[string][]refStatement{}}
	for _, k := range trusted {
		r.trusted[k] = true
	}
	r.cat = exec.Command(testenv.LookPath(t, "git"), "cat-file", "--batch")
	r.cat.Dir, r.cat.Env = dir, testenv.GitEnv()
	var err error
	if r.catIn, err = r.cat.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := r.cat.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.catOut = bufio.NewReader(out)
	if err := r.cat.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.catIn.Close(); r.cat.Wait() })
	return r
}

func (r *reference) git(args ...string) string {
	r.t.Helper()
	return testenv.Git(r.t, r.dir, args...)
}

// object reads an object with git cat-file --batch; nil when it is missing.
func (r *reference) object(name string) []byte {
	r.t.Helper()
	fmt.Fprintln(r.catIn, name)
	head, err := r.catOut.ReadString('\n')
	if err != nil {
		r.t.Fatal(err)
	}
	f := strings.Fields(head)
	if len(f) == 2 && f[1] == "missing" {
		return nil
	}
	if len(f) != 3 {
		r.t.Fatalf("cat-file: %q", head)
	}
	n, _ := strconv.Atoi(f[2])
	b := make([]byte, n+1)
	if _, err := io.ReadFull(r.catOut, b); err != nil {
		r.t.Fatal(err)
	}
	return b[:n]
}

// history reads the commits of revs' history with their parents (git
// rev-list --parents) and their trees.
func (r *reference) history(revs ...string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(r.git(append([]string{"rev-list", "--parents"}, revs...)...)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		out = append(out, f[0])
		if _, ok := r.parents[f[0]]; !ok {
			r.parents[f[0]] = f[1:]
		}
	}
	return out
}

func (r *reference) tree(c string) string {
	if t, ok := r.trees[c]; ok {
		return t
	}
	body := r.object(c)
	line, _, _ := strings.Cut(string(body), "\n")
	t := strings.TrimPrefix(line, "tree ")
	r.trees[c] = t
	return t
}

// tasksFiles lists the units' tasks files at commit c (git ls-tree): the
// model's Lineage knows no other file.
func (r *reference) tasksFiles(c string) map[string]refFile {
	if fs, ok := r.files[c]; ok {
		return fs
	}
	fs := map[string]refFile{}
	for _, e := range strings.Split(r.git("ls-tree", "-r", "-z", c), "\x00") {
		meta, path, ok := strings.Cut(e, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if f[1] != "blob" || (f[0] != "100644" && f[0] != "100755") {
			continue
		}
		if u, kind := (*specfmt.Layouts)(nil).Classify(path); kind == specfmt.UnitTasksFile {
			fs[path] = refFile{path: path, blob: f[2], unit: u}
		}
	}
	r.files[c] = fs
	return fs
}

func (r *reference) parse(f refFile) *refParsed {
	k := f.blob + " " + f.unit.Dir
	if p, ok := r.parsed[k]; ok {
		return p
	}
	tf, err := specfmt.ParseTasks(f.unit, r.object(f.blob), specfmt.AllowDuplicateIDs())
	if err != nil {
		r.t.Fatalf("reference: %s: %v", f.path, err)
	}
	p := &refParsed{byKey: map[refKey]int{}}
	seen := map[string]int{}
	for _, t := range tf.Tasks {
		seen[t.ID]++
		k := refKey{t.ID, seen[t.ID]}
		p.byKey[k] = len(p.tasks)
		// A task's line, as the model compares it, is its line read as
		// open with the rest of its text (docs/format.md#units-and-task-lines).
		p.tasks = append(p.tasks, refTask{key: k, checked: t.Ticked(), line: t.OpenLine() + "\x00" + t.Text, title: t.Title, derived: t.Derived, parent: t.Parent})
	}
	r.parsed[k] = p
	return p
}

func (r *reference) task(c, path string, k refKey) (refTask, bool) {
	f, ok := r.tasksFiles(c)[path]
	if !ok {
		return refTask{}, false
	}
	p := r.parse(f)
	i, ok := p.byKey[k]
	if !ok {
		return refTask{}, false
	}
	return p.tasks[i], true
}

// considered is the model's Range: the parents commit c is compared with.
func (r *reference) considered(c string) []string {
	ps := r.parents[c]
	if len(ps) > 1 {
		for _, p := range ps {
			if r.tree(p) == r.tree(c) {
				return []string{p}
			}
		}
	}
	return ps
}

// comesFrom is the model's Lineage: the path of parent p's tasks file that commit
// c's tasks file at path comes from.
func (r *reference) comesFrom(c, p, path string) (string, bool) {
	if _, ok := r.tasksFiles(p)[path]; ok {
		return path, true
	}
	from, ok := r.moves(c, p)[path]
	return from, ok
}

// moves pairs c's tasks files at paths p lacks with p's at paths c lacks by
// the move rule (docs/format.md#units-and-task-lines): equal blobs, or at
// least half of the larger file's tasks sharing key and title, or key with a
// written ID on both sides; best first (equal blobs, the larger share, the
// larger share of kept titles, then path order), each file in one pair.
func (r *reference) moves(c, p string) map[string]string {
	pk := [2]string{c, p}
	if m, ok := r.pairs[pk]; ok {
		return m
	}
	cf, pf := r.tasksFiles(c), r.tasksFiles(p)
	var added, removed []string
	for path := range cf {
		if _, ok := pf[path]; !ok {
			added = append(added, path)
		}
	}
	for path := range pf {
		if _, ok := cf[path]; !ok {
			removed = append(removed, path)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	type cand struct {
		a, o                  int
		blob                  bool
		shared, common, tasks int
	}
	var cands []cand
	for a, ap := range added {
		for o, op := range removed {
			if cf[ap].blob == pf[op].blob {
				cands = append(cands, cand{a: a, o: o, blob: true})
				continue
			}
			at, ot := r.parse(cf[ap]), r.parse(pf[op])
			common, ids := 0, 0
			for _, t := range at.tasks {
				i, ok := ot.byKey[t.key]
				if !ok {
					continue
				}
				if ot.tasks[i].title == t.title {
					common++
				}
				if !ot.tasks[i].derived && !t.derived {
					ids++
				}
			}
			n := max(len(at.tasks), len(ot.tasks))
			if s := max(common, ids); n > 0 && 2*s >= n {
				cands = append(cands, cand{a: a, o: o, shared: s, common: common, tasks: n})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		x, y := cands[i], cands[j]
		if x.blob != y.blob {
			return x.blob
		}
		if !x.blob {
			if l, rr := x.shared*y.tasks, y.shared*x.tasks; l != rr {
				return l > rr
			}
			if l, rr := x.common*y.tasks, y.common*x.tasks; l != rr {
				return l > rr
			}
		}
		if x.a != y.a {
			return x.a < y.a
		}
		return x.o < y.o
	})
	m := map[string]string{}
	usedA, usedO := map[int]bool{}, map[int]bool{}
	for _, cd := range cands {
		if usedA[cd.a] || usedO[cd.o] {
			continue
		}
		usedA[cd.a], usedO[cd.o] = true, true
		m[added[cd.a]] = removed[cd.o]
	}
	r.pairs[pk] = m
	return m
}

func (r *reference) isAncestor(a, b string) bool {
	k := [2]string{a, b}
	if v, ok := r.anc[k]; ok {
		return v
	}
	cmd := exec.Command(testenv.LookPath(r.t, "git"), "merge-base", "--is-ancestor", a, b)
	cmd.Dir, cmd.Env = r.dir, testenv.GitEnv()
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.anc[k] = true
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		r.anc[k] = false
	default:
		r.t.Fatalf("git merge-base --is-ancestor %s %s: %v", a, b, err)
	}
	return r.anc[k]
}

// origins is the model's Origins: where the task (path, k) that commit c holds
// checked with line comes from. With a cut (a set of commits, named by
// cutName), the trace stops at its edge: a commit outside it is an entry.
func (r *reference) origins(c, path string, k refKey, line string, cut map[string]bool, cutName string) []refPoint {
	mk := fmt.Sprint(c, "\x00", path, "\x00", k, "\x00", line, "\x00", cutName)
	if ps, ok := r.memo[mk]; ok {
		return ps
	}
	if cut != nil && !cut[c] {
		return []refPoint{{commit: c, path: path}}
	}
	type holder struct{ parent, path string }
	var holders []holder
	var takenBack []string
	other, absentOnly := false, true
	for _, p := range r.considered(c) {
		from, ok := r.comesFrom(c, p, path)
		var t refTask
		has := false
		if ok {
			t, has = r.task(p, from, k)
		}
		switch {
		case has && t.checked && t.line == line:
			holders = append(holders, holder{p, from})
		case has && t.checked:
			other, absentOnly = true, false
		case has:
			takenBack = append(takenBack, p) // open
			absentOnly = false
		}
	}
	var out []refPoint
	if len(holders) == 0 {
		kind := "tick"
		if other {
			kind = "edit"
		} else if absentOnly {
			kind = "born"
		}
		out = []refPoint{{origin: true, commit: c, path: path, kind: kind}}
	} else {
		// The origins each holding parent's line comes from, in all of
		// history: a holder whose line does not come from an origin in its
		// history took that tick back and ticked the line again.
		deep := make([]map[string]bool, len(holders))
		for i, h := range holders {
			deep[i] = map[string]bool{}
			for _, o := range r.origins(h.parent, h.path, k, line, nil, "") {
				deep[i][o.commit] = true
			}
		}
		reopened := false
		for i, h := range holders {
			for _, cand := range r.origins(h.parent, h.path, k, line, cut, cutName) {
				// The origins cand stands for: itself, or, for an entry, the
				// origins of the line it holds.
				var os []string
				if cand.origin {
					os = []string{cand.commit}
				} else {
					for _, o := range r.origins(cand.commit, cand.path, k, line, nil, "") {
						os = append(os, o.commit)
					}
				}
				kept := false
				for _, o := range os {
					back := false
					for _, q := range takenBack {
						if r.isAncestor(o, q) {
							back, reopened = true, true
						}
					}
					for j, hj := range holders {
						if j != i && !deep[j][o] && r.isAncestor(o, hj.parent) {
							back = true
						}
					}
					if !back {
						kept = true
					}
				}
				if kept {
					if cand.origin && r.movedOver(c, path, h.path) {
						cand.over = true
					}
					out = append(out, cand)
				}
			}
		}
		if reopened || len(out) == 0 {
			out = append(out, refPoint{origin: true, commit: c, path: path, kind: "tick", reopens: true})
		}
	}
	out = uniqPoints(out)
	r.memo[mk] = out
	return out
}

// movedOver tells whether commit c's tasks file at path, coming from a
// parent's file at from, was moved onto a path where the base has a unit's
// tasks file, no parent of c having a tasks file there: another unit's file
// put where the base has this one (model step 4).
func (r *reference) movedOver(c, path, from string) bool {
	if from == path || r.base == nil {
		return false
	}
	if _, ok := r.base[path]; !ok {
		return false
	}
	for _, p := range r.considered(c) {
		if _, ok := r.tasksFiles(p)[path]; ok {
			return false
		}
	}
	return true
}

func uniqPoints(ps []refPoint) []refPoint {
	sort.Slice(ps, func(i, j int) bool { return fmt.Sprint(ps[i]) < fmt.Sprint(ps[j]) })
	return slices.Compact(ps)
}

// refStatement is a task-verification statement of a note, as the reference
// reads it.
type refStatement struct {
	subject, unitDir, lineHash string
	trusted                    bool
}

// statements reads commit c's note (git notes show) for task-verification
// statements; one is trusted when it has a signature and every signature's
// keyid is trusted. (The random histories are signed by taskproof with one
// of two keys: the keyid tells which.)
func (r *reference) statements(c string) []refStatement {
	if st, ok := r.notes[c]; ok {
		return st
	}
	cmd := exec.Command(testenv.LookPath(r.t, "git"), "notes", "--ref", "refs/notes/speccoder", "show", c)
	cmd.Dir, cmd.Env = r.dir, testenv.GitEnv()
	note, err := cmd.Output()
	if err != nil {
		note = nil // no note
	}
	var out []refStatement
	for _, line := range bytes.Split(note, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var env struct {
			Payload    string `json:"payload"`
			Signatures []struct {
				KeyID string `json:"keyid"`
			} `json:"signatures"`
		}
		if err := json.Unmarshal(line, &env); err != nil {
			continue
		}
		payload, err := base64.StdEncoding.DecodeString(env.Payload)
		if err != nil {
			continue
		}
		var st struct {
			PredicateType string `json:"predicateType"`
			Subject       []struct {
				Name string `json:"name"`
			} `json:"subject"`
			Predicate struct {
				Unit struct {
					Dir string `json:"dir"`
				} `json:"unit"`
				Task struct {
					LineHash string `json:"line_hash"`
				} `json:"task"`
			} `json:"predicate"`
		}
		if json.Unmarshal(payload, &st) != nil || st.PredicateType != "https://speccoder.dev/task-verification/v0" || len(st.Subject) != 1 {
			continue
		}
		trusted := len(env.Signatures) > 0
		for _, s := range env.Signatures {
			trusted = trusted && r.trusted[s.KeyID]
		}
		out = append(out, refStatement{subject: st.Subject[0].Name, unitDir: st.Predicate.Unit.Dir, lineHash: st.Predicate.Task.LineHash, trusted: trusted})
	}
	r.notes[c] = out
	return out
}

// stated is the statement of the model's Evidence: one in origin o's own note naming the
// task's feature and ID, its unit and its line, trusted.
func (r *reference) stated(o refPoint, k refKey, line string) bool {
	f := r.tasksFiles(o.commit)[o.path]
	open, _, _ := strings.Cut(line, "\x00") // line_hash covers the task line alone
	sum := sha256.Sum256([]byte(open))
	lh := hex.EncodeToString(sum[:])
	for _, st := range r.statements(o.commit) {
		if st.subject == f.unit.Feature+"/"+k.id && st.unitDir == f.unit.Dir && st.lineHash == lh && st.trusted {
			return true
		}
	}
	return false
}

// headLine is a task checked at head.
type headLine struct {
	path string
	key  refKey
	line string
}

// evidenced is the model's Evidence for origin o of the task (k, line) whose line at
// head is in the file at headPath: a statement, or, for a Kiro task, its
// descendants.
func (r *reference) evidenced(head string, o refPoint, headPath string, k refKey, line string) bool {
	if r.stated(o, k, line) {
		return true
	}
	f := r.tasksFiles(o.commit)[o.path]
	if f.unit.Format != specfmt.Kiro {
		return false
	}
	descAt := descendants(r.parse(f), k.id)
	if len(descAt) == 0 {
		return false
	}
	hf, ok := r.tasksFiles(head)[headPath]
	if !ok {
		return false
	}
	hp := r.parse(hf)
	for _, d := range descAt {
		if !d.checked {
			return false
		}
	}
	// Each descendant open in an earlier version of the file o's comes
	// from (through the range, and where it comes into it) is still a
	// descendant at o.
	at := map[string]bool{}
	for _, d := range descAt {
		at[d.key.id] = true
	}
	for _, v := range r.earlier(o.commit, o.path) {
		for _, d := range descendants(r.parse(r.tasksFiles(v[0])[v[1]]), k.id) {
			if !d.checked && !at[d.key.id] {
				return false
			}
		}
	}
	for _, d := range append(descAt, descendants(hp, k.id)...) {
		i, ok := hp.byKey[d.key]
		if !ok {
			return false
		}
		h := hp.tasks[i]
		if !h.checked {
			return false
		}
		ps := r.origins(head, headPath, h.key, h.line, r.inR, "R")
		if len(ps) == 0 {
			return false
		}
		for _, p := range ps {
			// Only a tick of a task open before vouches (not one born ticked).
			if !p.origin || p.kind != "tick" || !r.evidenced(head, p, headPath, h.key, h.line) {
				return false
			}
			// It vouches only if it was ticked as the task's descendant.
			under := false
			for _, x := range descendants(r.parse(r.tasksFiles(p.commit)[p.path]), k.id) {
				under = under || x.key.id == h.key.id
			}
			if !under {
				return false
			}
		}
	}
	return true
}

// earlier lists the earlier versions of the tasks file commit c has at
// path, as [commit, path]: the files it comes from (model: Lineage) at the
// parents c is compared with, and theirs in turn through the range, and at
// the commits outside the range where it comes in.
func (r *reference) earlier(c, path string) [][2]string {
	var out [][2]string
	seen := map[[2]string]bool{}
	var walk func(c, path string)
	walk = func(c, path string) {
		for _, p := range r.considered(c) {
			from, ok := r.comesFrom(c, p, path)
			v := [2]string{p, from}
			if !ok || seen[v] {
				continue
			}
			seen[v] = true
			out = append(out, v)
			if r.inR[p] {
				walk(p, from)
			}
		}
	}
	walk(c, path)
	return out
}

// descendants are the tasks of p whose chain of parents reaches the task
// with ID id.
func descendants(p *refParsed, id string) []refTask {
	var out []refTask
	for _, t := range p.tasks {
		for cur, steps := t.parent, 0; cur != "" && steps <= len(p.tasks); steps++ {
			if cur == id {
				out = append(out, t)
				break
			}
			next := ""
			for _, u := range p.tasks {
				if u.key.id == cur {
					next = u.parent
					break
				}
			}
			cur = next
		}
	}
	return out
}

// verdict is the model's Requirements and Verdict for base..head: the failures (nil: the
// model passes head), each a line naming the task and why.
func (r *reference) verdict(base, head string) []string {
	r.inR = map[string]bool{}
	r.base = r.tasksFiles(base)
	r.history(head, base)
	for _, c := range r.history(head, "^"+base) {
		r.inR[c] = true
	}
	var fails []string
	for _, f := range sortedFiles(r.tasksFiles(head)) {
		for _, t := range r.parse(f).tasks {
			if !t.checked {
				continue
			}
			for _, p := range r.origins(head, f.path, t.key, t.line, r.inR, "R") {
				switch {
				case p.origin && !r.evidenced(head, p, f.path, t.key, t.line):
					fails = append(fails, fmt.Sprintf("%s %s#%d: origin %s (%s) not evidenced", f.path, t.key.id, t.key.nth, p.commit[:10], p.kind))
				case p.origin && p.over:
					fails = append(fails, fmt.Sprintf("%s %s#%d: origin %s in %s, moved over a unit's tasks file of the base", f.path, t.key.id, t.key.nth, p.commit[:10], p.path))
				case !p.origin && !r.baseHolds(base, f.path, p, t.key, t.line):
					fails = append(fails, fmt.Sprintf("%s %s#%d: comes from %s:%s outside the range, not held by the base", f.path, t.key.id, t.key.nth, p.commit[:10], p.path))
				}
			}
		}
	}
	return fails
}

// baseHolds is the test of the model's Requirements for an entry e of head's line at
// headPath: the base's tasks file at headPath, when the base has one, has
// the key checked with the line; else a task of the base with the key,
// checked with the line, comes from e's task: traced through the commits of
// the base's history that e's lacks, it comes into them at e, at e's path.
func (r *reference) baseHolds(base, headPath string, e refPoint, k refKey, line string) bool {
	if _, ok := r.tasksFiles(base)[headPath]; ok {
		t, ok := r.task(base, headPath, k)
		return ok && t.checked && t.line == line
	}
	inside := map[string]bool{}
	if e.commit != base {
		for _, c := range r.history(base, "^"+e.commit) {
			inside[c] = true
		}
	}
	for _, f := range sortedFiles(r.tasksFiles(base)) {
		t, ok := r.task(base, f.path, k)
		if !ok || !t.checked || t.line != line {
			continue
		}
		for _, p := range r.origins(base, f.path, k, line, inside, "in "+base+" not "+e.commit) {
			if !p.origin && p.commit == e.commit && p.path == e.path {
				return true
			}
		}
	}
	return false
}

func sortedFiles(m map[string]refFile) []refFile {
	out := make([]refFile, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}
