package verify

import (
	"encoding/hex"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
)

// tickIndex is what the passes after the judging (evidenceKiroParents,
// headFiles, ApplyPolicy, concludeBranch, the summaries) read of a report's
// spooled ticks, and what they change, in about 90 bytes a tick: a tick's
// commit and line_hash as their bytes, its unit, path, task ID, status,
// reason and verdict as indexes into tables of the distinct values, and the
// rare rest (warnings, policy results, Via, a changed message, values that
// do not pack) beside it. The spool holds each tick whole as it was judged;
// the writers read it back with what the index changed (tickReader).
type tickIndex struct {
	entries []tickEntry
	strs    []string
	strIDs  map[string]uint32
	units   []specfmt.Unit
	unitIDs map[specfmt.Unit]uint32
}

// tickEntry is one spooled tick in a tickIndex.
type tickEntry struct {
	commit   [20]byte // the commit's hex digits as bytes (entryCommitRaw: extra.commit)
	lineHash [32]byte // the line_hash's hex digits as bytes (entryLineHashRaw: extra.lineHash)
	unit     uint32
	path     uint32
	taskID   uint32
	status   uint32
	reason   uint32
	verdict  uint32
	flags    uint8
	extra    *tickExtra
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

// tickExtra is a spooled tick's rare part in its tickIndex.
type tickExtra struct {
	commit, evidence gitref.Hash
	lineHash, task   string
	warnings         []Reason
	policy           []policy.Result
	via              []string
	message          string
}

func newTickIndex(capacity int) *tickIndex {
	return &tickIndex{entries: make([]tickEntry, 0, capacity), strIDs: map[string]uint32{}, unitIDs: map[specfmt.Unit]uint32{}}
}

func (ix *tickIndex) str(s string) uint32 { return intern(ix.strIDs, &ix.strs, s) }

func (ix *tickIndex) unit(u specfmt.Unit) uint32 { return intern(ix.unitIDs, &ix.units, u) }

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

func (e *tickEntry) ext() *tickExtra {
	if e.extra == nil {
		e.extra = &tickExtra{}
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

// add appends t's entry.
func (ix *tickIndex) add(t *TickResult) {
	e := tickEntry{unit: ix.unit(t.Unit), path: ix.str(t.Path), taskID: ix.str(t.TaskID),
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

// tick sets *t to entry i's tick as the passes after the judging read it:
// commit, path, unit, task, task ID, line_hash, status, reason, failing,
// evidence, verdict, warnings, policy results and Via; its message only when
// a pass set it. Its other fields are the spool's (tickReader).
func (ix *tickIndex) tick(i int, t *TickResult) {
	e := &ix.entries[i]
	x := e.extra
	if x == nil {
		x = &tickExtra{}
	}
	*t = TickResult{Path: ix.strs[e.path], Unit: ix.units[e.unit], TaskID: ix.strs[e.taskID],
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

// update keeps what a pass changed of entry i's tick t (as tick gave it):
// its status, reason, failing, message, policy results and Via.
func (ix *tickIndex) update(i int, t *TickResult) {
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
	var x tickExtra
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

// patch sets on the spooled tick t (read back whole) what the passes changed
// of entry i.
func (ix *tickIndex) patch(i int, t *TickResult) {
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
