// Package specfmt reads the task lists and spec documents of the spec formats
// taskproof knows: GitHub spec-kit, OpenSpec and Kiro, and as taskproof's
// extension BMAD, Agent OS, spec-workflow-mcp and cc-sdd
// (docs/format.md#units-and-task-lines, docs/format.md#hash-recipes).
//
// It has no git in it: callers hand it file contents, or an fs.FS rooted at the
// repository root of one commit.
package specfmt

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/taskproof/taskproof/predicate/gfm"
)

// MaxContainerPrefix is the widest run of indentation, block quote markers and
// list markers a line of a tasks file may start with, in columns
// (docs/format.md#units-and-task-lines).
const MaxContainerPrefix = gfm.MaxContainerPrefix

// LineStarts returns the byte offset in content of the start of each line as
// ParseTasks numbers lines (Task.LineNo is the index plus one): after a leading
// UTF-8 BOM, lines end at "\n", "\r\n" or a lone "\r".
func LineStarts(content []byte) []int { return gfm.LineStarts(content) }

// Format is a spec format, the predicate's unit.format
// (docs/format.md#units-and-task-lines): "speckit", "openspec" or "kiro",
// speccoder's; "bmad", "agent-os", "spec-workflow" or "cc-sdd", taskproof's
// extension of the predicate (speccoder ignores formats it does not know).
type Format string

// The spec formats.
const (
	Speckit      Format = "speckit"
	OpenSpec     Format = "openspec"
	Kiro         Format = "kiro"
	BMAD         Format = "bmad"
	AgentOS      Format = "agent-os"
	SpecWorkflow Format = "spec-workflow"
	CCSDD        Format = "cc-sdd"
)

// Formats are the spec formats taskproof reads, speccoder's first.
var Formats = []Format{Speckit, OpenSpec, Kiro, BMAD, AgentOS, SpecWorkflow, CCSDD}

// Known reports whether f is one of Formats.
func (f Format) Known() bool {
	for _, k := range Formats {
		if f == k {
			return true
		}
	}
	return false
}

// Kin reports whether f and g read one unit alike: equal, or Kiro and cc-sdd,
// which write the same layout (.kiro/specs/<feature>/) with the same task
// lines and requirements (docs/format.md#units-and-task-lines).
func (f Format) Kin(g Format) bool {
	return f == g || (f.kiroLike() && g.kiroLike())
}

// kiroLike: Kiro and cc-sdd, one reading.
func (f Format) kiroLike() bool { return f == Kiro || f == CCSDD }

// citesRequirementLines: the format's tasks cite requirements in
// "_Requirements: 1.2, 3.4_" lines under them (Kiro, cc-sdd,
// spec-workflow-mcp).
func (f Format) citesRequirementLines() bool { return f.kiroLike() || f == SpecWorkflow }

// StoryFile reports whether the format's tasks file is its unit itself (a
// BMAD story, "<dir>.md"), not "<dir>/tasks.md".
func (f Format) StoryFile() bool { return f == BMAD }

// Reading is which readings of a tasks file see a task's box
// (docs/format.md#the-formats-own-readings).
type Reading uint8

const (
	// ReadByGitHub: GitHub's reading alone (the format has no reading of
	// its own, or its tool does not read the line as a task).
	ReadByGitHub Reading = iota
	// ReadByBoth: GitHub's and the format's own tool's.
	ReadByBoth
	// ReadByTool: the format's own tool's alone (GitHub shows no checkbox:
	// the line is in code or a comment, its box is padded, its marker is
	// glued to the box).
	ReadByTool
)

func (r Reading) String() string {
	switch r {
	case ReadByBoth:
		return "github+tool"
	case ReadByTool:
		return "tool"
	}
	return "github"
}

// TasksPath is the repository-relative path of u's tasks file: Dir +
// "/tasks.md", or, for a BMAD story, Dir + ".md".
func (u Unit) TasksPath() string {
	if u.Format.StoryFile() {
		return u.Dir + ".md"
	}
	return u.Dir + "/tasks.md"
}

// Unit is a spec unit (docs/format.md#units-and-task-lines): Feature is Dir's
// last path element; Dir is repository-relative with '/' separators and no
// trailing slash.
type Unit struct {
	Format  Format `json:"format"`
	Feature string `json:"feature"`
	Dir     string `json:"dir"`
}

// Task is one checkbox task line of a tasks file.
type Task struct {
	// ID is the task's ID: "T012" (spec-kit), "1.3" (OpenSpec, Kiro; a trailing
	// "." of the written ID is not part of it: "17." → "17"); for a task line
	// without a written ID, the derived ID "h-" + 12 hex digits (DeriveID of the
	// Title), with "-2", "-3", … for repeats of one title in a file.
	ID string
	// Derived reports that the line has no written task ID and ID was derived
	// from the Title (ParseTasks).
	Derived bool
	// LineNo is the 1-based line number in the file.
	LineNo int
	// Line is the line's bytes without its line ending ("\n", "\r\n" or a lone
	// "\r"); a UTF-8 BOM at the start of line 1 is not part of it.
	Line string
	// BoxCol is the byte offset in Line of the box's inner character.
	BoxCol int
	// Box is the box's inner character: ' ', 'x', 'X', '-', or a tab or form
	// feed (GFM's unchecked box too).
	Box byte
	// Title is the text after the box, the ID and the [..] markers, trimmed
	// (docs/format.md#units-and-task-lines); "" when the line ends after them.
	Title string
	// Labels are the bracketed markers directly after the ID (after the box when
	// there is no written ID), without brackets:
	// "P", "US1"; nil when none.
	Labels []string
	// Story is the first label of the form "US<digits>" ("US1"), "" when none.
	Story string
	// Requirements are the requirements the task cites, as written: Kiro's,
	// cc-sdd's and spec-workflow-mcp's `_Requirements: 1.2, 3.4_` items, split
	// on "," and "、" and trimmed ("1.2", "Requirement 2", or free text), from
	// the `_Requirements:` lines that belong to the task (a line belongs to the
	// nearest task above it, since the last heading, indented less than the
	// line; else to the nearest task above it); a BMAD task's "(AC: 1, 3)"
	// items. A task without any takes its parent's (which may itself be
	// inherited). Always nil for spec-kit, OpenSpec and Agent OS.
	Requirements []string
	// Group is the text of the OpenSpec `## N. …` heading the task sits under
	// ("1. Setup"), "" when none (another heading of level 1 or 2 ends a group).
	// Always "" for spec-kit and Kiro.
	Group string
	// Parent is the ID of the enclosing task, "" when none: the nearest task above
	// it, since the last heading, that is indented less (tabs to multiples of four
	// columns); when there is none, the earlier task whose ID is this ID without its
	// last dotted part ("17" for "17.1": Kiro often writes sub-tasks unindented).
	Parent string
	// Boundary are cc-sdd's `_Boundary: A, B_` components of the task, as
	// written; nil when none (read, not hashed: docs/format.md#hash-recipes).
	Boundary []string
	// Text is the rest of the task's text after its line: the lines of the
	// file that belong to the task (its paragraph's continuation lines and its
	// detail lines and bullets, not its sub-tasks, which are tasks of their
	// own), each as written, joined by "\n"; blank lines are not part of it
	// (docs/format.md#units-and-task-lines, "A task's text"). "" when none.
	// The merge gate reads a change of Text while the task stays checked as
	// an edit of the task, as it reads a change of its line.
	Text string
	// Reading is which readings see the task's box.
	Reading Reading
	// CheckedBy is the number (1-based) of a later line of the file that makes
	// GitHub show the task checked whatever its box holds — a line of the
	// task's item that looks like a checked task and re-reads the item's box
	// (a lazy line in a block quote of the item, a paragraph of the item
	// starting "2024 [x]") — 0 when none
	// (docs/format.md#task-recognition-follows-goldmark).
	CheckedBy int
}

// Open reports whether no reading sees the task done: !Ticked. Its box is
// then "[ ]" (GFM also renders a tab or a form feed between the brackets as
// an unchecked box), "[-]" (Kiro's and spec-workflow-mcp's "in progress",
// read as open in every format, so that a "[-]"→"[x]" change is a tick the
// merge gate checks wherever it occurs), or another box the format's own tool
// reads as unfinished ("[~]", "[  ]").
func (t Task) Open() bool { return !t.Ticked() }

// Ticked reports whether a reading the team trusts sees the task done
// (docs/format.md#the-formats-own-readings): its box holds "x" or "X"; or
// GitHub reads the line and renders it checked — its line holds "[x]" or
// "[X]" anywhere else, or a later line checks it (CheckedBy). GitHub's
// renderer (cmark-gfm's task list extension) checks an item whose first line
// holds either string, whatever its box holds, so "- [ ] T002 Parse `[x]`
// boxes" is shown done (docs/format.md#task-recognition-follows-goldmark).
// A box one reading sees done and another open is done: its tick was judged
// when the first reading saw it done.
func (t Task) Ticked() bool {
	if t.Box == 'x' || t.Box == 'X' {
		return true
	}
	return t.Reading != ReadByTool && (t.CheckedBy > 0 || strings.Contains(t.Line, "[x]") || strings.Contains(t.Line, "[X]"))
}

// OpenLine is Line with the box's inner character replaced by a space: the bytes
// line_hash is computed over (docs/format.md#hash-recipes).
func (t Task) OpenLine() string { return t.Line[:t.BoxCol] + " " + t.Line[t.BoxCol+1:] }

// Same reports whether u is t as written, read as open: the same line read as
// open and the same text (Text). A checked task that is not Same in a later
// commit was edited (docs/format.md#units-and-task-lines).
func (t Task) Same(u Task) bool { return t.OpenLine() == u.OpenLine() && t.Text == u.Text }

// TasksFile is a parsed tasks file.
type TasksFile struct {
	Unit  Unit
	Tasks []Task
	// Duplicates are the file's repeated task IDs, one *DuplicateTaskError per ID
	// naming its first two lines, in the order the second occurrences appear; set
	// only when the file was parsed with AllowDuplicateIDs (ParseTasks otherwise
	// fails with the first of them). Only these IDs are ambiguous: Lookup refuses
	// them and finds every other task of the file.
	Duplicates []*DuplicateTaskError
}

// Lookup returns the task with the given ID. It tells the three cases apart:
// found (nil error); a *NotFoundError (ErrTaskNotFound) when no task line
// carries id; a *DuplicateTaskError (ErrDuplicateTask) naming the first two
// lines when several do — a repeated ID alone cannot name one task line
// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also
// when its task ID repeats": such a task is found by its ID and its line,
// LookupLine), while every other task of the file stays usable. It reads Tasks
// only (so a file parsed with AllowDuplicateIDs, or built by hand, is handled
// alike) in O(len(Tasks)).
func (f *TasksFile) Lookup(id string) (Task, error) {
	first := -1
	for i, t := range f.Tasks {
		if t.ID != id {
			continue
		}
		if first >= 0 {
			return Task{}, &DuplicateTaskError{ID: id, FirstLine: f.Tasks[first].LineNo, SecondLine: t.LineNo}
		}
		first = i
	}
	if first < 0 {
		return Task{}, &NotFoundError{ID: id}
	}
	return f.Tasks[first], nil
}

// LookupLine returns the one task with the given ID whose line, read as open
// (OpenLine), has the lowercase hex SHA-256 lineHash
// (docs/format.md#hash-recipes line_hash): a task line is told apart by its
// text where its ID alone cannot say which line is meant
// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also
// when its task ID repeats"). It tells the three cases apart: found (nil
// error); a *NotFoundError (ErrTaskNotFound) with LineHash set when no task
// line with id has that hash; a *DuplicateTaskError (ErrDuplicateTask) naming
// the first two lines when several do (the file repeats the line itself, so no
// attestation can say which of them it is about).
func (f *TasksFile) LookupLine(id, lineHash string) (Task, error) {
	first := -1
	for i, t := range f.Tasks {
		if t.ID != id {
			continue
		}
		sum := sha256.Sum256([]byte(t.OpenLine()))
		if hex.EncodeToString(sum[:]) != lineHash {
			continue
		}
		if first >= 0 {
			return Task{}, &DuplicateTaskError{ID: id, FirstLine: f.Tasks[first].LineNo, SecondLine: t.LineNo}
		}
		first = i
	}
	if first < 0 {
		return Task{}, &NotFoundError{ID: id, LineHash: lineHash}
	}
	return f.Tasks[first], nil
}

// Find returns the task with the given ID, and false when there is none or when
// the ID is repeated in the file (ambiguous: use Lookup to tell the two apart).
func (f *TasksFile) Find(id string) (Task, bool) {
	t, err := f.Lookup(id)
	return t, err == nil
}

// SectionText is the spec section a task cites (docs/format.md#hash-recipes "spec"): Name is the
// predicate's spec.section ("US1", a requirement name, "1,3"); Text is the bytes
// section_hash is computed over.
type SectionText struct {
	Name string
	Text []byte
}
