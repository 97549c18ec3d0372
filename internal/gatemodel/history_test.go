package gatemodel

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// A random history is built in memory as commits of whole trees (tasks files
// as lists of task lines, and one code file), then written with git
// fast-import: merges are trees the generator chose (a three-way merge of
// the task lines with random conflict resolutions, a side discarded as
// `git merge -s ours` does, or the other side's tree), as a person resolving
// a merge may commit any tree.

// gLine is a task line: indentation, box, ID as written, title, and a
// detail bullet below it ("" none), part of the task's text.
type gLine struct {
	indent int
	box    byte
	id     string // as specfmt reads it ("T001", "1", "1.2")
	title  string
	detail string
}

// gFile is a tasks file: Kiro ("1." parents) or spec-kit. uid follows it
// across moves, so that a merge applies one side's changes to the path the
// other side moved it to, as git's rename detection does.
type gFile struct {
	uid   int
	kiro  bool
	lines []gLine
}

func (f *gFile) render() string {
	var b strings.Builder
	if f.kiro {
		b.WriteString("# Implementation Plan\n\n")
	} else {
		b.WriteString("# Tasks\n\n## Phase 1\n\n")
	}
	for _, l := range f.lines {
		id := l.id
		if f.kiro && !strings.Contains(id, ".") {
			id += "."
		}
		fmt.Fprintf(&b, "%s- [%c] %s %s\n", strings.Repeat(" ", l.indent), l.box, id, l.title)
		if l.detail != "" {
			fmt.Fprintf(&b, "%s  - %s\n", strings.Repeat(" ", l.indent), l.detail)
		}
	}
	return b.String()
}

func (f *gFile) clone() *gFile {
	return &gFile{uid: f.uid, kiro: f.kiro, lines: slices.Clone(f.lines)}
}

// gState is a commit's tree.
type gState struct {
	files map[string]*gFile
	code  string
}

func (s *gState) clone() *gState {
	n := &gState{files: make(map[string]*gFile, len(s.files)), code: s.code}
	for p, f := range s.files {
		n.files[p] = f.clone()
	}
	return n
}

func (s *gState) paths() []string {
	var out []string
	for p := range s.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// gCommit is a commit of the history.
type gCommit struct {
	n       int // creation order, 1-based: its fast-import mark
	parents []*gCommit
	state   *gState
	msg     string
	id      string // after fast-import
}

// gen builds one random history.
type gen struct {
	rnd    *rand.Rand
	honest bool
	// kiroParents: an honest history but for Kiro parents, never attested
	// (Kiro attests the sub-task it worked on), and sub-tasks moved under
	// another parent checked or open: the parents' credit through their
	// descendants decides the verdict.
	kiroParents bool
	commits     []*gCommit
	log         []string // what was done, for a failure's message
	nextID      int
	nextUID     int
	main        *gCommit // main's tip, once built
	// used are the paths any commit has had a tasks file at: an honest
	// history moves a unit to a new name only.
	used map[string]bool
}

var (
	templateTitle = "Create project structure per implementation plan"
	words         = []string{"parser", "config", "cache", "report", "login", "export", "search", "retry", "index", "docs"}
	features      = []string{"001-alpha", "002-beta", "003-gamma", "004-delta"}
	kiroNames     = []string{"orders", "billing"}
)

func (g *gen) pick(n int) int { return g.rnd.IntN(n) }

func (g *gen) chance(p float64) bool { return g.rnd.Float64() < p }

// detail is a task's detail bullet, now and then.
func (g *gen) detail() string {
	if g.chance(0.7) {
		return ""
	}
	return "File: src/" + words[g.pick(len(words))] + ".go"
}

func (g *gen) title() string {
	return fmt.Sprintf("%s %s %d", []string{"Add", "Write tests for", "Wire", "Fix"}[g.pick(4)], words[g.pick(len(words))], g.pick(100))
}

func (g *gen) commit(msg string, st *gState, parents ...*gCommit) *gCommit {
	c := &gCommit{n: len(g.commits) + 1, parents: parents, state: st, msg: msg}
	if g.used == nil {
		g.used = map[string]bool{}
	}
	for p := range st.files {
		g.used[p] = true
	}
	g.commits = append(g.commits, c)
	ps := make([]string, len(parents))
	for i, p := range parents {
		ps[i] = fmt.Sprint(p.n)
	}
	g.log = append(g.log, fmt.Sprintf("%d (parents %s): %s", c.n, strings.Join(ps, ","), msg))
	return c
}

func (g *gen) speckitFile() *gFile {
	g.nextUID++
	f := &gFile{uid: g.nextUID}
	n := 3 + g.pick(3)
	for i := 1; i <= n; i++ {
		t := g.title()
		if i == 1 {
			t = templateTitle // spec-kit's template: every feature's T001 reads the same
		}
		f.lines = append(f.lines, gLine{box: ' ', id: fmt.Sprintf("T%03d", i), title: t, detail: g.detail()})
	}
	return f
}

func (g *gen) kiroFile() *gFile {
	g.nextUID++
	f := &gFile{uid: g.nextUID, kiro: true}
	for p := 1; p <= 2; p++ {
		f.lines = append(f.lines, gLine{box: ' ', id: fmt.Sprint(p), title: g.title(), detail: g.detail()})
		for s := 1; s <= 1+g.pick(3); s++ {
			f.lines = append(f.lines, gLine{indent: 2, box: ' ', id: fmt.Sprintf("%d.%d", p, s), title: g.title(), detail: g.detail()})
		}
	}
	return f
}

// lineRef names a task line of a state.
type lineRef struct {
	path string
	i    int
}

func (g *gen) lines(st *gState, want func(gLine) bool) []lineRef {
	var out []lineRef
	for _, p := range st.paths() {
		for i, l := range st.files[p].lines {
			if want(l) {
				out = append(out, lineRef{p, i})
			}
		}
	}
	return out
}

// parentAbove is the index of the Kiro top-level task above line i (-1:
// none).
func parentAbove(f *gFile, i int) int {
	for j := i - 1; j >= 0; j-- {
		if !strings.Contains(f.lines[j].id, ".") {
			return j
		}
	}
	return -1
}

// tickDoneParents ticks, now and then, the open Kiro parents whose
// sub-tasks are all checked, and names them.
func (g *gen) tickDoneParents(st *gState) []string {
	var names []string
	for _, p := range st.paths() {
		f := st.files[p]
		if !f.kiro {
			continue
		}
		for i, l := range f.lines {
			if !strings.Contains(l.id, ".") && open(l) && allChecked(f, i) && g.chance(0.7) {
				f.lines[i].box = 'x'
				names = append(names, p+" "+l.id)
			}
		}
	}
	return names
}

// allChecked tells whether the lines below the top-level task at p, up
// to the next one, are all checked (and there is one).
func allChecked(f *gFile, p int) bool {
	n := 0
	for _, l := range f.lines[p+1:] {
		if !strings.Contains(l.id, ".") {
			break
		}
		if !checked(l) {
			return false
		}
		n++
	}
	return n > 0
}

func open(l gLine) bool    { return l.box == ' ' }
func checked(l gLine) bool { return l.box == 'x' }

// step makes one commit on c: a random change.
func (g *gen) step(c *gCommit) *gCommit {
	st := c.state.clone()
	var msg string
	r := g.pick(100)
	if g.kiroParents && g.chance(0.2) {
		r = 55 // a sub-task moved or dropped
	}
	switch {
	case r < 30:
		want := open
		if g.kiroParents && g.chance(0.7) {
			// Kiro's flow: its sub-tasks ticked one by one.
			want = func(l gLine) bool { return open(l) && strings.Contains(l.id, ".") }
		}
		ls := g.lines(st, want)
		if len(ls) == 0 {
			return g.codeChange(c)
		}
		k := 1 + g.pick(2)
		var names []string
		for j := 0; j < k && len(ls) > 0; j++ {
			i := g.pick(len(ls))
			l := ls[i]
			ls = append(ls[:i], ls[i+1:]...)
			st.files[l.path].lines[l.i].box = 'x'
			names = append(names, l.path+" "+st.files[l.path].lines[l.i].id)
			// Kiro's flow: the parent ticked with its last sub-task.
			if f := st.files[l.path]; f.kiro && g.chance(0.6) {
				if p := parentAbove(f, l.i); p >= 0 && open(f.lines[p]) && allChecked(f, p) {
					f.lines[p].box = 'x'
					names = append(names, l.path+" "+f.lines[p].id)
				}
			}
		}
		if g.kiroParents && g.chance(0.5) {
			names = append(names, g.tickDoneParents(st)...)
		}
		st.code = fmt.Sprintf("code %d", g.pick(1000))
		msg = "tick " + strings.Join(names, ", ")
	case r < 40:
		ls := g.lines(st, checked)
		if len(ls) == 0 {
			return g.codeChange(c)
		}
		l := ls[g.pick(len(ls))]
		st.files[l.path].lines[l.i].box = ' '
		msg = "untick " + l.path + " " + st.files[l.path].lines[l.i].id
	case r < 48:
		want := func(gLine) bool { return true }
		if g.honest {
			want = open // an honest history does not reword what it ticked
		}
		ls := g.lines(st, want)
		if len(ls) == 0 {
			return g.codeChange(c)
		}
		l := ls[g.pick(len(ls))]
		ln := &st.files[l.path].lines[l.i]
		if g.chance(0.5) {
			// The task's detail bullet: part of its text.
			ln.detail = "File: src/" + g.title() + ".go"
			msg = "reword the detail of " + l.path + " " + ln.id
		} else {
			ln.title = g.title()
			msg = "reword " + l.path + " " + ln.id
		}
	case r < 54:
		// Re-indent a Kiro sub-task: under the sub-task above it, or back.
		ls := g.lines(st, func(l gLine) bool { return strings.Contains(l.id, ".") && (!g.honest || open(l)) })
		var kiro []lineRef
		for _, l := range ls {
			if st.files[l.path].kiro && l.i > 0 && strings.Contains(st.files[l.path].lines[l.i-1].id, ".") {
				kiro = append(kiro, l)
			}
		}
		if len(kiro) == 0 {
			return g.codeChange(c)
		}
		l := kiro[g.pick(len(kiro))]
		ln := &st.files[l.path].lines[l.i]
		ln.indent = 6 - ln.indent // 2 ↔ 4
		msg = "re-indent " + l.path + " " + ln.id
	case r < 58:
		// A Kiro sub-task moved under another parent of its file, its ID
		// kept (checked ones too, but in an honest history), or an open one
		// deleted.
		ls := g.lines(st, func(l gLine) bool { return strings.Contains(l.id, ".") && (!g.honest || g.kiroParents || open(l)) })
		var kiro []lineRef
		for _, l := range ls {
			if st.files[l.path].kiro {
				kiro = append(kiro, l)
			}
		}
		if len(kiro) == 0 {
			return g.codeChange(c)
		}
		l := kiro[g.pick(len(kiro))]
		f := st.files[l.path]
		ln := f.lines[l.i]
		if open(ln) && g.chance(0.4) {
			f.lines = slices.Delete(f.lines, l.i, l.i+1)
			msg = "delete the open sub-task " + l.path + " " + ln.id
			break
		}
		var to []int
		for i, x := range f.lines {
			if !strings.Contains(x.id, ".") && i != parentAbove(f, l.i) {
				to = append(to, i)
			}
		}
		if len(to) == 0 {
			return g.codeChange(c)
		}
		at := to[g.pick(len(to))]
		f.lines = slices.Delete(f.lines, l.i, l.i+1)
		if at > l.i {
			at--
		}
		ln.indent = 2
		f.lines = slices.Insert(f.lines, at+1, ln)
		msg = "move the sub-task " + l.path + " " + ln.id + " under " + f.lines[at].id
		if g.chance(0.5) {
			// The parent it lands under, done but for it, ticked with it.
			if names := g.tickDoneParents(st); len(names) > 0 {
				msg += ", tick " + strings.Join(names, ", ")
			}
		}
	case r < 60:
		return g.codeChange(c)
	case r < 68:
		// A task added, born ticked now and then.
		ps := st.paths()
		if len(ps) == 0 {
			return g.codeChange(c)
		}
		p := ps[g.pick(len(ps))]
		f := st.files[p]
		box := byte(' ')
		if g.chance(0.3) {
			box = 'x'
		}
		g.nextID++
		if f.kiro {
			f.lines = append(f.lines, gLine{indent: 2, box: box, id: fmt.Sprintf("2.%d", 10+g.nextID), title: g.title()})
		} else {
			f.lines = append(f.lines, gLine{box: box, id: fmt.Sprintf("T%03d", 10+g.nextID), title: g.title()})
		}
		msg = fmt.Sprintf("add a task to %s (box %q)", p, box)
	case r < 74:
		// A unit added, some of its tasks born ticked now and then.
		var free []string
		for _, fe := range features {
			if st.files["specs/"+fe+"/tasks.md"] == nil {
				free = append(free, "specs/"+fe+"/tasks.md")
			}
		}
		for _, k := range kiroNames {
			if st.files[".kiro/specs/"+k+"/tasks.md"] == nil {
				free = append(free, ".kiro/specs/"+k+"/tasks.md")
			}
		}
		if len(free) == 0 {
			return g.codeChange(c)
		}
		p := free[g.pick(len(free))]
		f := g.speckitFile()
		if strings.HasPrefix(p, ".kiro/") {
			f = g.kiroFile()
		}
		if g.chance(0.3) {
			f.lines[0].box = 'x'
		}
		st.files[p] = f
		msg = "add unit " + p
	case r < 77:
		ps := st.paths()
		if len(ps) < 2 {
			return g.codeChange(c)
		}
		p := ps[g.pick(len(ps))]
		delete(st.files, p)
		msg = "delete " + p
	case r < 87:
		// A unit moved (onto a free name of its layout, which may be one a
		// unit left), its open tasks reworded now and then.
		ps := st.paths()
		if len(ps) == 0 {
			return g.codeChange(c)
		}
		p := ps[g.pick(len(ps))]
		var to []string
		if strings.HasPrefix(p, ".kiro/") {
			for _, k := range kiroNames {
				to = append(to, ".kiro/specs/"+k+"/tasks.md")
			}
		} else {
			for _, fe := range features {
				to = append(to, "specs/"+fe+"/tasks.md")
			}
		}
		var free []string
		for _, q := range to {
			if st.files[q] == nil && !(g.honest && g.used[q]) {
				free = append(free, q)
			}
		}
		if g.honest || len(free) == 0 || g.chance(0.3) {
			// A name no unit had.
			g.nextID++
			if strings.HasPrefix(p, ".kiro/") {
				free = append(free, fmt.Sprintf(".kiro/specs/spec-%d/tasks.md", g.nextID))
			} else {
				free = append(free, fmt.Sprintf("specs/%03d-feature/tasks.md", 10+g.nextID))
			}
		}
		q := free[g.pick(len(free))]
		f := st.files[p]
		delete(st.files, p)
		if g.chance(0.3) {
			for i := range f.lines {
				if f.lines[i].box == ' ' && g.chance(0.5) {
					f.lines[i].title = g.title()
				}
			}
		}
		st.files[q] = f
		msg = "move " + p + " to " + q
	default:
		return g.revert(c)
	}
	return g.commit(msg, st, c)
}

func (g *gen) codeChange(c *gCommit) *gCommit {
	st := c.state.clone()
	st.code = fmt.Sprintf("code %d", g.pick(1000))
	return g.commit("change code", st, c)
}

// revert undoes an earlier commit's task changes where the lines still read
// as that commit left them (what `git revert` applies cleanly).
func (g *gen) revert(c *gCommit) *gCommit {
	var chain []*gCommit
	for x := c; x != nil && len(chain) < 6; {
		if len(x.parents) == 1 {
			chain = append(chain, x)
		}
		if len(x.parents) == 0 {
			break
		}
		x = x.parents[0]
	}
	if len(chain) == 0 {
		return g.codeChange(c)
	}
	x := chain[g.pick(len(chain))]
	st := c.state.clone()
	changed := false
	for p, f := range x.state.files {
		pf := x.parents[0].state.files[p]
		cur := st.files[p]
		if pf == nil || cur == nil {
			continue
		}
		for _, l := range f.lines {
			for _, ol := range pf.lines {
				if ol.id != l.id || ol == l {
					continue
				}
				for i := range cur.lines {
					if cur.lines[i] == l {
						cur.lines[i] = ol
						changed = true
					}
				}
			}
		}
	}
	if !changed {
		return g.codeChange(c)
	}
	return g.commit(fmt.Sprintf("revert %d", x.n), st, c)
}

// ancestors is c's history, c included.
func ancestors(c *gCommit) map[*gCommit]bool {
	seen := map[*gCommit]bool{}
	stack := []*gCommit{c}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		stack = append(stack, x.parents...)
	}
	return seen
}

// mergeBase is a common ancestor of a and b with no other common ancestor
// after it in creation order.
func mergeBase(a, b *gCommit) *gCommit {
	aa, bb := ancestors(a), ancestors(b)
	var best *gCommit
	for x := range aa {
		if bb[x] && (best == nil || x.n > best.n) {
			best = x
		}
	}
	return best
}

// merge merges theirs into ours: a three-way merge of files and task lines
// with random conflict resolutions, or a side's tree.
func (g *gen) merge(ours, theirs *gCommit) *gCommit {
	return g.mergeWith(ours, theirs, true)
}

// mergeWith is merge; discard allows merges that discard a side.
func (g *gen) mergeWith(ours, theirs *gCommit, discard bool) *gCommit {
	switch r := g.pick(10); {
	case r < 2 && discard:
		return g.commit(fmt.Sprintf("merge %d -s ours", theirs.n), ours.state.clone(), ours, theirs)
	case r < 3 && discard && !g.honest:
		return g.commit(fmt.Sprintf("merge %d taking its tree", theirs.n), theirs.state.clone(), ours, theirs)
	}
	base := mergeBase(ours, theirs).state
	st := &gState{files: map[string]*gFile{}, code: ours.state.code}
	if ours.state.code == base.code {
		st.code = theirs.state.code
	}
	// Files by identity, followed across moves: a file's path and lines are
	// merged each as git merges a renamed file's name and content.
	type at struct {
		path string
		f    *gFile
	}
	byUID := func(s *gState) map[int]at {
		m := map[int]at{}
		for p, f := range s.files {
			m[f.uid] = at{p, f}
		}
		return m
	}
	b, o, t := byUID(base), byUID(ours.state), byUID(theirs.state)
	uids := map[int]bool{}
	for _, m := range []map[int]at{b, o, t} {
		for u := range m {
			uids[u] = true
		}
	}
	var order []int
	for u := range uids {
		order = append(order, u)
	}
	sort.Ints(order)
	for _, u := range order {
		bf, of, tf := b[u], o[u], t[u]
		var f *gFile
		path := ""
		switch {
		case of.f == nil && tf.f == nil:
			continue
		case of.f == nil || tf.f == nil:
			// Deleted on one side: gone when the other side did not change
			// it; else a modify/delete conflict (an honest merge keeps the
			// deletion).
			kept := of
			if kept.f == nil {
				kept = tf
			}
			if bf.f != nil && (sameFile(kept.f, bf.f) || g.honest || g.chance(0.5)) {
				continue
			}
			f, path = kept.f, kept.path
		default:
			switch {
			case sameFile(of.f, tf.f):
				f = of.f
			case bf.f != nil && sameFile(of.f, bf.f):
				f = tf.f
			case bf.f != nil && sameFile(tf.f, bf.f):
				f = of.f
			default:
				var bl *gFile
				if bf.f != nil {
					bl = bf.f
				}
				f = g.mergeLines(bl, of.f, tf.f)
			}
			path = of.path
			if bf.f != nil && of.path == bf.path {
				path = tf.path
			}
		}
		if st.files[path] != nil {
			continue // two files merged onto one path: the first stays
		}
		st.files[path] = f.clone()
	}
	return g.commit(fmt.Sprintf("merge %d", theirs.n), st, ours, theirs)
}

func sameFile(a, b *gFile) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.kiro == b.kiro && slices.Equal(a.lines, b.lines)
}

// mergeLines merges a file both sides changed, line by line by task ID.
func (g *gen) mergeLines(b, o, t *gFile) *gFile {
	find := func(f *gFile, id string) *gLine {
		if f == nil {
			return nil
		}
		for i := range f.lines {
			if f.lines[i].id == id {
				return &f.lines[i]
			}
		}
		return nil
	}
	same := func(x, y *gLine) bool {
		if x == nil || y == nil {
			return x == y
		}
		return *x == *y
	}
	out := &gFile{uid: o.uid, kiro: o.kiro}
	var ids []string
	for _, l := range o.lines {
		ids = append(ids, l.id)
	}
	for _, l := range t.lines {
		if find(o, l.id) == nil {
			ids = append(ids, l.id)
		}
	}
	for _, id := range ids {
		bl, ol, tl := find(b, id), find(o, id), find(t, id)
		var l *gLine
		switch {
		case same(ol, tl):
			l = ol
		case same(ol, bl):
			l = tl
		case same(tl, bl):
			l = ol
		default:
			l = []*gLine{ol, tl}[g.pick(2)]
		}
		if l != nil {
			out.lines = append(out.lines, *l)
		}
	}
	return out
}

// build makes a random history: main with its first units, a feature
// branch forked from it, main going on, and the feature branch changed,
// merged with side branches of its own and with main. It returns the base
// and head commits.
func (g *gen) build() (base, head *gCommit) {
	st := &gState{files: map[string]*gFile{}, code: "code 0"}
	st.files["specs/001-alpha/tasks.md"] = g.speckitFile()
	if g.chance(0.5) {
		st.files["specs/002-beta/tasks.md"] = g.speckitFile()
	}
	if g.kiroParents || g.chance(0.6) {
		st.files[".kiro/specs/orders/tasks.md"] = g.kiroFile()
	}
	main := g.commit("plan", st)
	for range g.pick(4) {
		main = g.step(main)
	}
	fork := main
	for range g.pick(4) {
		main = g.step(main)
	}
	feature := fork
	for range 4 + g.pick(10) {
		switch r := g.pick(10); {
		case r < 2:
			// A side branch from the feature branch (its tip or a commit
			// before), merged back.
			from := feature
			for k := g.pick(3); k > 0 && len(from.parents) > 0; k-- {
				from = from.parents[0]
			}
			side := from
			for range 1 + g.pick(3) {
				side = g.step(side)
			}
			feature = g.merge(feature, side)
		case r < 3:
			// The base merged in; an honest branch keeps what the base did.
			feature = g.mergeWith(feature, main, !g.honest)
		default:
			feature = g.step(feature)
		}
	}
	g.main = main
	if g.honest {
		// An honest branch is up to date with its base (GitHub's "Update
		// branch"): the base's moves and unticks since the fork are its
		// own; the gate holds head against the base.
		feature = g.mergeWith(feature, main, false)
	}
	switch g.pick(3) {
	case 0:
		return fork, feature
	case 1:
		return main, feature
	}
	return g.commits[0], feature
}

// write writes the history into a new repository at dir with git
// fast-import: refs/heads/main at mainTip, refs/heads/feature at head.
func (g *gen) write(t testing.TB, dir string, mainTip, head *gCommit) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	data := func(s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }
	for _, c := range g.commits {
		fmt.Fprintf(w, "commit refs/heads/scratch\nmark :%d\ncommitter Dev <dev@example.invalid> %d +0000\n", c.n, 1767225600+int64(c.n)*60)
		data(c.msg)
		for i, p := range c.parents {
			if i == 0 {
				fmt.Fprintf(w, "from :%d\n", p.n)
			} else {
				fmt.Fprintf(w, "merge :%d\n", p.n)
			}
		}
		w.WriteString("deleteall\n")
		for _, p := range c.state.paths() {
			fmt.Fprintf(w, "M 100644 inline %s\n", p)
			data(c.state.files[p].render())
		}
		w.WriteString("M 100644 inline src/code.txt\n")
		data(c.state.code + "\n")
	}
	fmt.Fprintf(w, "reset refs/heads/main\nfrom :%d\n\nreset refs/heads/feature\nfrom :%d\n\n", mainTip.n, head.n)
	w.Flush()
	marks := filepath.Join(dir, ".git", "gen-marks")
	cmd := exec.Command(testenv.LookPath(t, "git"), "fast-import", "--quiet", "--export-marks="+marks)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), &b
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	mb, err := os.ReadFile(marks)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(mb)), "\n") {
		var m int
		var id string
		if _, err := fmt.Sscanf(line, ":%d %s", &m, &id); err == nil {
			g.commits[m-1].id = id
		}
	}
	testenv.Git(t, dir, "update-ref", "-d", "refs/heads/scratch")
}
