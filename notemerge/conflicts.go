package notemerge

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/noteline"
)

// A notes merge that meets a tick attested differently on its two sides keeps
// one side's statements and moves the other's to the conflicts ref
// (docs/format.md#conflicting-statements-of-one-tick). What people are told
// about it says which fields differ and which rule of the merge kept the
// winner; `taskproof notes conflicts` lists the displaced statements and
// acknowledges them. An acknowledgement is a line of the conflicts ref (a set
// of lines, merged by union, pushed and fetched with it), so a statement
// acknowledged in one clone is not reported to the clones that fetch it
// later. It stops the report only: the statement stays in the conflicts ref.

// The rules of [groupBefore], as [NoteConflict.Rule] names the one that
// decided.
const (
	RuleTrusted = "trusted"        // every line of the kept side verifies against the merging clone's trust, and not every line of the other
	RuleSigned  = "signed"         // every line of the kept side is signed, and not every line of the other
	RuleTime    = "later_time"     // the kept side's task-verification statement has the later time
	RuleDigest  = "smaller_sha256" // equal times: the kept side's sorted lines have the smaller SHA-256
)

// RuleText says a rule in words, for messages.
func RuleText(rule string) string {
	switch rule {
	case RuleTrusted:
		return "its lines all verify against this clone's trust and the other side's do not"
	case RuleSigned:
		return "its lines are all signed and the other side's are not"
	case RuleTime:
		return "its task-verification statement has the later time"
	case RuleDigest:
		return "the times are equal and its sorted lines have the smaller SHA-256"
	}
	return "the merge's rule (a side trusted here, then a fully signed side, then the later time, then the smaller SHA-256)"
}

// decidingRule is the rule by which group a won over group b in
// [groupBefore].
func decidingRule(a, b [][]byte, o MergeOptions) string {
	if o.Trusted != nil && groupTrusted(a, o.Trusted) != groupTrusted(b, o.Trusted) {
		return RuleTrusted
	}
	if groupSigned(a) != groupSigned(b) {
		return RuleSigned
	}
	if now := o.now(); !groupTime(a, now).Equal(groupTime(b, now)) {
		return RuleTime
	}
	return RuleDigest
}

// differingFields names what differs between two sides' statements of one
// tick: "verdict", "reason", "signer", "time", or "statement" when only
// other members (the evidence) differ.
func differingFields(kept, displaced StatementsSummary) []string {
	var out []string
	if kept.Verdict != displaced.Verdict {
		out = append(out, "verdict")
	}
	if kept.Reason != displaced.Reason {
		out = append(out, "reason")
	}
	if !slices.Equal(sortedCopy(kept.Signers), sortedCopy(displaced.Signers)) {
		out = append(out, "signer")
	}
	if kept.Time != displaced.Time {
		out = append(out, "time")
	}
	if len(out) == 0 {
		out = append(out, "statement")
	}
	return out
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

// resolvedLine is a conflicts-ref line that acknowledges a displaced
// statement, by its payload's SHA-256.
type resolvedLine struct {
	Resolved struct {
		PayloadSHA256 string `json:"payload_sha256"`
		By            string `json:"by,omitempty"`
		Time          string `json:"time,omitempty"`
	} `json:"taskproofConflictResolved"`
}

// ackKeys are the keys of an acknowledgement line, whose case variants strict
// decoding refuses.
var ackKeys = strictjson.Everywhere("taskproofConflictResolved", "payload_sha256", "by", "time")

// Acknowledgement is who acknowledged a displaced statement, and when.
type Acknowledgement struct {
	By   string `json:"by"`
	Time string `json:"time"`
}

// acknowledgements reads the acknowledgement lines of a conflicts note, by
// the payload SHA-256 they acknowledge.
func acknowledgements(note []byte) map[string]Acknowledgement {
	out := map[string]Acknowledgement{}
	for _, l := range noteline.Split(note) {
		if !strings.HasPrefix(string(l), `{"taskproofConflictResolved"`) {
			continue
		}
		// A line strict JSON refuses (a duplicate or case-variant key, bad
		// UTF-8) acknowledges nothing: the conflicts ref is another clone's.
		if _, err := strictjson.Decode(l, ackKeys); err != nil {
			continue
		}
		var r resolvedLine
		if json.Unmarshal(l, &r) == nil && r.Resolved.PayloadSHA256 != "" {
			if _, ok := out[r.Resolved.PayloadSHA256]; !ok {
				out[r.Resolved.PayloadSHA256] = Acknowledgement{By: r.Resolved.By, Time: r.Resolved.Time}
			}
		}
	}
	return out
}

// DisplacedRecord is one displaced statement of the conflicts ref, explained
// against the statements the notes ref keeps for its tick (Kept nil when it
// holds none: removed since).
type DisplacedRecord struct {
	DisplacedStatement
	// Acknowledged is set once someone acknowledged it (taskproof notes
	// conflicts --resolve).
	Acknowledged *Acknowledgement `json:"acknowledged"`
}

// ListConflicts lists the displaced statements the conflicts ref of notes
// holds, by commit and payload SHA-256, each with the statements the notes
// ref keeps for its tick and whether it was acknowledged. No conflicts ref:
// none.
func ListConflicts(repo *gitref.Repo, notes *gitref.NotesStore) ([]DisplacedRecord, error) {
	conflicts, err := repo.Notes(ConflictsRef(notes.Ref()))
	if err != nil {
		return nil, err
	}
	entries, err := conflicts.All()
	if errors.Is(err, gitref.ErrNotesRefAbsent) {
		return []DisplacedRecord{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []DisplacedRecord{}
	for _, e := range entries {
		note, err := conflicts.ReadEntry(e)
		if err != nil {
			return nil, err
		}
		current, err := notes.Note(e.Commit)
		if err != nil && !isNoNote(err) {
			return nil, err
		}
		acks := acknowledgements(note)
		for _, d := range displacedStatements(map[gitref.Hash][]byte{e.Commit: note}) {
			r := DisplacedRecord{DisplacedStatement: explainDisplaced(d, current)}
			if a, ok := acks[d.Displaced.PayloadSHA256]; ok {
				r.Acknowledged = &a
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// explainDisplaced is displaced statement d with the statements current,
// the note the notes ref holds for its commit, keeps for its tick, the fields
// that differ and the rule that kept them.
func explainDisplaced(d DisplacedStatement, current []byte) DisplacedStatement {
	lines := noteline.Split(current)
	groups, order := groupByTick(lines, tickKeys(lines))
	for _, k := range order {
		if k.subject != d.Subject {
			continue
		}
		kept := summarize(groups[k])
		if kept.PayloadSHA256 == "" || kept.PayloadSHA256 == d.Displaced.PayloadSHA256 {
			continue
		}
		d.Kept, d.Differs, d.Rule = &kept, differingFields(kept, d.Displaced), decidingRule(groups[k], d.lines, MergeOptions{})
		break
	}
	return d
}

// ErrNoSuchConflict: a --resolve selector that matches no displaced
// statement.
var ErrNoSuchConflict = errors.New("no such displaced statement")

// ResolveConflicts acknowledges the displaced statements of the conflicts ref
// that selectors name — "all", or a commit id or payload SHA-256 (each at
// least 7 hex digits, a prefix; "sha256:" may come first) — writing one
// acknowledgement line per statement, by by at now, into the conflicts ref.
// Statements acknowledged already are left as they are. A selector that
// names none fails with [ErrNoSuchConflict] before anything is written. It
// returns the records acknowledged.
func ResolveConflicts(repo *gitref.Repo, notes *gitref.NotesStore, selectors []string, by string, now time.Time) ([]DisplacedRecord, error) {
	all, err := ListConflicts(repo, notes)
	if err != nil {
		return nil, err
	}
	var chosen []DisplacedRecord
	picked := map[string]bool{}
	for _, sel := range selectors {
		s := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(sel), "sha256:"))
		if s != "all" && (len(s) < 7 || strings.Trim(s, "0123456789abcdef") != "") {
			return nil, fmt.Errorf("%w: %q: give all, a commit id or a statement's sha256 (at least 7 hex digits)", ErrRequest, sel)
		}
		n := 0
		for _, r := range all {
			if s == "all" || strings.HasPrefix(r.Commit, s) || strings.HasPrefix(r.Displaced.PayloadSHA256, s) {
				n++
				if r.Acknowledged == nil && !picked[r.Commit+r.Displaced.PayloadSHA256] {
					picked[r.Commit+r.Displaced.PayloadSHA256] = true
					chosen = append(chosen, r)
				}
			}
		}
		if n == 0 && s != "all" {
			return nil, fmt.Errorf("%w: %q (taskproof notes conflicts --all lists them)", ErrNoSuchConflict, sel)
		}
	}
	if len(chosen) == 0 {
		return []DisplacedRecord{}, nil
	}
	conflicts, err := repo.Notes(ConflictsRef(notes.Ref()))
	if err != nil {
		return nil, err
	}
	conflicts.Message = "Displaced statements acknowledged with 'taskproof notes conflicts --resolve'\n"
	byCommit := map[string][][]byte{}
	var commits []string
	ack := Acknowledgement{By: by, Time: now.UTC().Format(time.RFC3339)}
	for i := range chosen {
		var l resolvedLine
		l.Resolved.PayloadSHA256, l.Resolved.By, l.Resolved.Time = chosen[i].Displaced.PayloadSHA256, ack.By, ack.Time
		b, err := json.Marshal(l)
		if err != nil {
			return nil, err
		}
		if byCommit[chosen[i].Commit] == nil {
			commits = append(commits, chosen[i].Commit)
		}
		byCommit[chosen[i].Commit] = append(byCommit[chosen[i].Commit], b)
		chosen[i].Acknowledged = &ack
	}
	for _, c := range commits {
		lines := byCommit[c]
		if _, err := conflicts.Update(gitref.Hash(c), func(old []byte) ([]byte, error) {
			var extra []byte
			for _, l := range lines {
				extra = append(append(extra, l...), '\n')
			}
			return UnionLines(old, extra), nil
		}); err != nil {
			return nil, fmt.Errorf("acknowledging the statements displaced on %s: %w", c, err)
		}
	}
	return chosen, nil
}

// ErrRequest is matched by errors for a request the caller must fix, such as
// a selector that names no displaced statement's form (the CLI maps it to exit 2).
var ErrRequest = errors.New("invalid notes request")

// isNoNote reports whether err says the commit has no note or the notes ref is absent.
func isNoNote(err error) bool {
	return errors.Is(err, gitref.ErrNoNote) || errors.Is(err, gitref.ErrNotesRefAbsent)
}
