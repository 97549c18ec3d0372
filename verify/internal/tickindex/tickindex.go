package tickindex

import (
	"encoding/hex"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
)

// Tick is what an Index holds of a tick (W: its warnings' type): what the
// passes after the judging read of it, and what they change (status,
// reason, failing, message, policy results, Via).
type Tick[W any] struct {
	Commit, Evidence gitref.Hash
	Path, TaskID     string
	Task, LineHash   string
	Unit             specfmt.Unit
	Status, Reason   string
	Verdict, Message string
	Failing          bool
	Warnings         []W
	Policy           []policy.Result
	Via              []string
}

// Index is what the passes after the judging (the gate's, the verifier's
// policy, the summaries) read of a report's spooled ticks, and what they
// change, in about 90 bytes a tick: a tick's commit and line_hash as their
// bytes, its unit, path, task ID, status, reason and verdict as indexes into
// tables of the distinct values, and the rare rest (warnings, policy
// results, Via, a changed message, values that do not pack) beside it. The
// spool holds each tick whole as it was judged; the writers read it back
// with what the index changed (Patch).
type Index[W any] struct {
	entries []entry[W]
	strs    []string
	strIDs  map[string]uint32
	units   []specfmt.Unit
	unitIDs map[specfmt.Unit]uint32
}

// entry is one spooled tick in an Index.
type entry[W any] struct {
	commit   [20]byte // the commit's hex digits as bytes (entryCommitRaw: extra.commit)
	lineHash [32]byte // the line_hash's hex digits as bytes (entryLineHashRaw: extra.lineHash)
	unit     uint32
	path     uint32
	taskID   uint32
	status   uint32
	reason   uint32
	verdict  uint32
	flags    uint8
	extra    *extra[W]
}

const (
	entryFailing        uint8 = 1 << iota
	entryCommitRaw            // the commit is extra.commit
	entryLineHashRaw          // the line_hash is extra.lineHash
	entryEvidenceCommit       // the evidence is the tick commit
	entryEvidenceRaw          // the evidence is extra.evidence (else none)
	entryTaskRaw              // the task is extra.task (else statement.SubjectName of the unit's feature and the task ID)
	entryMessage              // the passes set the message: extra.message
)

// extra is a spooled tick's rare part in its Index.
type extra[W any] struct {
	commit, evidence gitref.Hash
	lineHash, task   string
	warnings         []W
	policy           []policy.Result
	via              []string
	message          string
}

// New is an empty index with room for capacity ticks.
func New[W any](capacity int) *Index[W] {
	return &Index[W]{entries: make([]entry[W], 0, capacity), strIDs: map[string]uint32{}, unitIDs: map[specfmt.Unit]uint32{}}
}

func (ix *Index[W]) str(s string) uint32 { return intern(ix.strIDs, &ix.strs, s) }

func (ix *Index[W]) unit(u specfmt.Unit) uint32 { return intern(ix.unitIDs, &ix.units, u) }

// intern returns v's index in *vals, appending it (and its index to ids)
// when it is new.
func intern[V comparable](ids map[V]uint32, vals *[]V, v V) uint32 {
	id, ok := ids[v]
	if !ok {
		id = uint32(len(*vals))
		*vals = append(*vals, v)
		ids[v] = id
	}
	return id
}

func (e *entry[W]) ext() *extra[W] {
	if e.extra == nil {
		e.extra = &extra[W]{}
	}
	return e.extra
}

// packHex writes s's hex digits into dst as bytes when s is exactly that
// many lowercase hex digits (what hex.EncodeToString gives back).
func packHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	_, err := hex.Decode(dst, []byte(s))
	return err == nil
}

// Add appends t's entry.
func (ix *Index[W]) Add(t *Tick[W]) {
	e := entry[W]{unit: ix.unit(t.Unit), path: ix.str(t.Path), taskID: ix.str(t.TaskID),
		status: ix.str(t.Status), reason: ix.str(t.Reason), verdict: ix.str(t.Verdict)}
	if t.Failing {
		e.flags |= entryFailing
	}
	if !packHex(e.commit[:], string(t.Commit)) {
		e.flags |= entryCommitRaw
		e.ext().commit = t.Commit
	}
	if !packHex(e.lineHash[:], t.LineHash) {
		e.flags |= entryLineHashRaw
		e.ext().lineHash = t.LineHash
	}
	switch t.Evidence {
	case "":
	case t.Commit:
		e.flags |= entryEvidenceCommit
	default:
		e.flags |= entryEvidenceRaw
		e.ext().evidence = t.Evidence
	}
	if t.Task != statement.SubjectName(t.Unit.Feature, t.TaskID) {
		e.flags |= entryTaskRaw
		e.ext().task = t.Task
	}
	if len(t.Warnings) > 0 {
		e.ext().warnings = t.Warnings
	}
	if len(t.Policy) > 0 {
		e.ext().policy = t.Policy
	}
	if len(t.Via) > 0 {
		e.ext().via = t.Via
	}
	ix.entries = append(ix.entries, e)
}

// Get sets *t to entry i's tick as the passes after the judging read it:
// commit, path, unit, task, task ID, line_hash, status, reason, failing,
// evidence, verdict, warnings, policy results and Via; its message only when
// a pass set it ("" otherwise: the spool has it).
func (ix *Index[W]) Get(i int, t *Tick[W]) {
	e := &ix.entries[i]
	x := e.extra
	if x == nil {
		x = &extra[W]{}
	}
	*t = Tick[W]{Path: ix.strs[e.path], Unit: ix.units[e.unit], TaskID: ix.strs[e.taskID],
		Status: ix.strs[e.status], Reason: ix.strs[e.reason], Verdict: ix.strs[e.verdict],
		Failing: e.flags&entryFailing != 0, Warnings: x.warnings, Policy: x.policy, Via: x.via}
	t.Commit = x.commit
	if e.flags&entryCommitRaw == 0 {
		t.Commit = gitref.Hash(hex.EncodeToString(e.commit[:]))
	}
	t.LineHash = x.lineHash
	if e.flags&entryLineHashRaw == 0 {
		t.LineHash = hex.EncodeToString(e.lineHash[:])
	}
	switch {
	case e.flags&entryEvidenceCommit != 0:
		t.Evidence = t.Commit
	case e.flags&entryEvidenceRaw != 0:
		t.Evidence = x.evidence
	}
	if e.flags&entryTaskRaw != 0 {
		t.Task = x.task
	} else {
		t.Task = statement.SubjectName(t.Unit.Feature, t.TaskID)
	}
	if e.flags&entryMessage != 0 {
		t.Message = x.message
	}
}

// Update keeps what a pass changed of entry i's tick t (as tick gave it):
// its status, reason, failing, message, policy results and Via.
func (ix *Index[W]) Update(i int, t *Tick[W]) {
	e := &ix.entries[i]
	if ix.strs[e.status] != t.Status {
		e.status = ix.str(t.Status)
	}
	if ix.strs[e.reason] != t.Reason {
		e.reason = ix.str(t.Reason)
	}
	e.flags &^= entryFailing
	if t.Failing {
		e.flags |= entryFailing
	}
	var x extra[W]
	if e.extra != nil {
		x = *e.extra
	}
	if !sameSlice(x.policy, t.Policy) {
		e.ext().policy = t.Policy
	}
	if !sameSlice(x.via, t.Via) {
		e.ext().via = t.Via
	}
	if (e.flags&entryMessage != 0 && x.message != t.Message) || (e.flags&entryMessage == 0 && t.Message != "") {
		e.flags |= entryMessage
		e.ext().message = t.Message
	}
}

// Patch sets on the spooled tick t (read back whole) what the passes changed
// of entry i.
func (ix *Index[W]) Patch(i int, t *Tick[W]) {
	e := &ix.entries[i]
	t.Status, t.Reason, t.Failing = ix.strs[e.status], ix.strs[e.reason], e.flags&entryFailing != 0
	t.Policy, t.Via = nil, nil
	if x := e.extra; x != nil {
		t.Policy, t.Via = x.policy, x.via
		if e.flags&entryMessage != 0 {
			t.Message = x.message
		}
	}
}

// sameSlice reports whether a and b are the same slice (length and first
// element), not merely equal.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Len is the number of ticks indexed.
func (ix *Index[W]) Len() int { return len(ix.entries) }

// Reserve makes room for n ticks at once in an empty index, not a doubling
// array and its copy.
func (ix *Index[W]) Reserve(n int) {
	if len(ix.entries) == 0 {
		ix.entries = make([]entry[W], 0, n)
	}
}
