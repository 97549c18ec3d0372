package notemerge

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// MergeOptions is what a notes merge knows beyond the two notes
// (docs/format.md#conflicting-statements-of-one-tick).
type MergeOptions struct {
	// Trusted reports whether a note line's signatures verify against the
	// merging clone's trust (the verifier's allowed signers, keyrings, keys);
	// nil when the clone has none configured.
	Trusted func(line []byte) bool
	// Now is the merging clone's time (zero: the time of the call): a
	// statement's `time` later than Now plus [MaxClockSkew] never wins.
	Now time.Time
}

// MaxClockSkew is how far in the merging clone's future a statement's
// `time` may lie and still count in a notes merge: clocks differ a little,
// while a time in the future beyond it would win every merge until then.
const MaxClockSkew = 5 * time.Minute

func (o MergeOptions) now() time.Time {
	if o.Now.IsZero() {
		return time.Now()
	}
	return o.Now
}

// NoteMerge is what [MergeNotes] made of two versions of one commit's note.
type NoteMerge struct {
	// Merged is the note to keep (ends with "\n").
	Merged []byte
	// Displaced are the owned lines of the ticks that lost a conflict, to be kept
	// in the conflicts notes ref (docs/format.md#conflicting-statements-of-one-tick).
	Displaced [][]byte
	// Conflicts lists each tick both sides attested differently, in subject order.
	Conflicts []NoteConflict
}

// NoteConflict is one tick (subject and task line) whose statements differ on
// the two sides of a notes merge.
type NoteConflict struct {
	Subject string `json:"subject"`
	// LineHash is the task.line_hash of the tick ("" when the statements do not
	// name one).
	LineHash string `json:"line_hash,omitempty"`
	// Kept is the winning side's statements; Displaced the losing side's, moved
	// to the conflicts notes ref.
	Kept      StatementsSummary `json:"kept"`
	Displaced StatementsSummary `json:"displaced"`
	// KeptSide is "local" or "remote".
	KeptSide string `json:"kept_side"`
	// Differs names what differs between the two sides: "verdict",
	// "reason", "signer", "time", or "statement" when only other members do.
	Differs []string `json:"differs"`
	// Rule is the rule that kept KeptSide's statements: RuleSigned,
	// RuleTime or RuleDigest.
	Rule string `json:"rule"`
}

// StatementsSummary names one tick's statements for a person: the verdict and
// time of its task-verification statement, the keyids its envelopes name (a
// hint, never trusted) and the SHA-256 of its payload, which names the signed
// statement exactly.
type StatementsSummary struct {
	Verdict string `json:"verdict"`
	// Reason is a regression_only statement's regression reason, or a
	// decision's reason ("" for none).
	Reason        string   `json:"reason,omitempty"`
	Time          string   `json:"time"`
	Signers       []string `json:"signers"`
	PayloadSHA256 string   `json:"payload_sha256"`
	Lines         int      `json:"lines"`
}

// String is "verdict V, reason R, time T, signed by K, statement sha256:D".
func (s StatementsSummary) String() string {
	signers := "unsigned"
	if len(s.Signers) > 0 {
		signers = "signed by " + strings.Join(s.Signers, ", ")
	}
	d := s.PayloadSHA256
	if len(d) > 12 {
		d = d[:12]
	}
	reason := ""
	if s.Reason != "" {
		reason = ", reason " + s.Reason
	}
	return fmt.Sprintf("verdict %s%s, time %s, %s, statement sha256:%s", printable.OrNone(s.Verdict), reason, printable.OrNone(s.Time), signers, printable.OrNone(d))
}

// MergeNotes merges two versions of one commit's note — the local one and the
// remote one, met when `taskproof notes fetch|push` finds both sides changed
// the notes ref — line by line (docs/format.md#merging-notes-between-clones):
//
//   - every local line taskproof does not own is kept, byte for byte and in
//     order; a remote one is added after them unless the same bytes are there;
//   - the owned lines ([statement.Owned]) of a tick only one side has are kept: a
//     tick is a subject and the task line its statements are about
//     ([statement.LineHashes]); owned lines of no known task line go with a subject
//     only the remote side has;
//   - a tick both sides have with the same statements (payloads), signed
//     differently, keeps them with the union of both sides' signatures
//     (co-signing in two clones, docs/format.md#co-signing), when each line is
//     a DSSE envelope and the union fits an envelope;
//   - for a tick both sides have with other different owned lines, one side's lines
//     are kept whole (a tick's statements are written together, never mixed)
//     and the other's are returned in Displaced, the kept side chosen by
//     [groupBefore]. Clones with the same trust compute the same winner from
//     the same two sides, so their merges in any order converge.
//
// The result fails with [ErrNoteLimit] when it would exceed the note limits.
// It is [MergeNotesWith] without trust, at the time of the call.
func MergeNotes(local, remote []byte) (*NoteMerge, error) {
	return MergeNotesWith(local, remote, MergeOptions{})
}

// MergeNotesWith is [MergeNotes] judged with o: the merging clone's trust
// and time.
func MergeNotesWith(local, remote []byte, o MergeOptions) (*NoteMerge, error) {
	o.Now = o.now()
	llines, rlines := noteline.Split(local), noteline.Split(remote)
	lkeys, rkeys := tickKeys(llines), tickKeys(rlines)
	localOwned := map[noteTick][][]byte{}
	localSubject := map[string]bool{}
	localAll := map[string]bool{}
	for i, l := range llines {
		localAll[string(l)] = true
		if k := lkeys[i]; k.owned {
			localOwned[k] = append(localOwned[k], l)
			localSubject[k.subject] = true
		}
	}
	remoteOwned, remoteOrder := groupByTick(rlines, rkeys)
	res := &NoteMerge{}
	// Decide every tick both sides hold differently.
	remoteWins := map[noteTick]bool{}
	cosigned := map[noteTick][][]byte{}
	for _, k := range remoteOrder {
		lo, ro := localOwned[k], remoteOwned[k]
		if lo == nil || sameLines(lo, ro) {
			continue
		}
		if u, ok := cosignedGroups(lo, ro); ok {
			// The same statements, signed by different people in two clones.
			cosigned[k] = u
			continue
		}
		c := NoteConflict{Subject: k.subject, LineHash: k.line}
		if groupBefore(ro, lo, o) {
			remoteWins[k] = true
			c.KeptSide, c.Kept, c.Displaced, c.Rule = "remote", summarize(ro), summarize(lo), decidingRule(ro, lo, o)
			res.Displaced = append(res.Displaced, lo...)
		} else {
			c.KeptSide, c.Kept, c.Displaced, c.Rule = "local", summarize(lo), summarize(ro), decidingRule(lo, ro, o)
			res.Displaced = append(res.Displaced, ro...)
		}
		c.Differs = differingFields(c.Kept, c.Displaced)
		res.Conflicts = append(res.Conflicts, c)
	}
	sort.SliceStable(res.Conflicts, func(i, j int) bool { return res.Conflicts[i].Subject < res.Conflicts[j].Subject })

	var out bytes.Buffer
	n := 0
	add := func(l []byte) {
		out.Write(l)
		out.WriteByte('\n')
		n++
	}
	joined := map[noteTick]bool{}
	for i, l := range llines {
		k := lkeys[i]
		if k.owned && remoteWins[k] {
			continue
		}
		if u, ok := cosigned[k]; k.owned && ok {
			// The joined lines take the place of the tick's local lines.
			if !joined[k] {
				joined[k] = true
				for _, c := range u {
					add(c)
				}
			}
			continue
		}
		add(l)
	}
	for i, l := range rlines {
		k := rkeys[i]
		switch {
		case !k.owned:
			if !localAll[string(l)] {
				add(l)
				localAll[string(l)] = true
			}
		case remoteWins[k]:
			add(l)
		case localOwned[k] == nil && (k.line != "" || !localSubject[k.subject]):
			add(l)
		}
	}
	if n > noteline.MaxNoteLines {
		return nil, fmt.Errorf("%w: merged note has %d lines (at most %d)", ErrNoteLimit, n, noteline.MaxNoteLines)
	}
	if out.Len() > noteline.MaxNoteSize {
		return nil, fmt.Errorf("%w: merged note has %d bytes (at most %d)", ErrNoteLimit, out.Len(), noteline.MaxNoteSize)
	}
	res.Merged = out.Bytes()
	return res, nil
}

// groupBefore reports whether tick statements a win over b
// (docs/format.md#conflicting-statements-of-one-tick): with the merging
// clone's trust, a group whose lines all verify against it first; then a
// group whose lines are all signed, none with a signature shown not to
// verify; then the later task-verification time, a time beyond o.Now plus
// [MaxClockSkew] counting as none; then the smaller SHA-256 of the sorted
// lines. It is a strict total order on distinct groups, so every clone with
// the same trust picks the same.
func groupBefore(a, b [][]byte, o MergeOptions) bool {
	if o.Trusted != nil {
		if ta, tb := groupTrusted(a, o.Trusted), groupTrusted(b, o.Trusted); ta != tb {
			return ta
		}
	}
	if sa, sb := groupSigned(a), groupSigned(b); sa != sb {
		return sa
	}
	ta, tb := groupTime(a, o.now()), groupTime(b, o.now())
	if !ta.Equal(tb) {
		return ta.After(tb)
	}
	return groupDigest(a) < groupDigest(b)
}

// groupTrusted reports whether every line of a group verifies against the
// merging clone's trust.
func groupTrusted(lines [][]byte, trusted func([]byte) bool) bool {
	for _, l := range lines {
		if !trusted(l) {
			return false
		}
	}
	return len(lines) > 0
}

// groupTime is the latest task-verification `time` of a group no later than
// now plus [MaxClockSkew] (zero when none parses or counts).
func groupTime(lines [][]byte, now time.Time) time.Time {
	limit := now.Add(MaxClockSkew)
	var best time.Time
	for _, l := range lines {
		st, _, ok := statement.FromLine(l)
		if !ok || st.PredicateType != predicate.PredicateType {
			continue
		}
		p, _ := st.Predicate.(map[string]any)
		s, _ := p["time"].(string)
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil && t.After(best) && !t.After(limit) {
			best = t
		}
	}
	return best
}

// groupDigest is the SHA-256 of a group's lines sorted and joined by "\n".
func groupDigest(lines [][]byte) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = string(l)
	}
	sort.Strings(s)
	return statement.SHA256Hex([]byte(strings.Join(s, "\n")))
}

// summarize names a tick's statements (see [StatementsSummary]).
func summarize(lines [][]byte) StatementsSummary {
	s := StatementsSummary{Lines: len(lines), Signers: []string{}}
	seen := map[string]bool{}
	signedBy := func(id string) {
		if !seen[id] {
			seen[id] = true
			s.Signers = append(s.Signers, id)
		}
	}
	for _, l := range lines {
		dl := noteline.Decode(l)
		st, payload, ok := statement.FromNoteLine(dl)
		if !ok {
			continue
		}
		if dl.Kind == noteline.KindBundle {
			signedBy("sigstore bundle")
		} else {
			pae := dl.Envelope.PAE()
			for _, sig := range dl.Envelope.Signatures {
				signedBy(signatureName(pae, sig.Sig, sig.KeyID))
			}
		}
		if st.PredicateType != predicate.PredicateType {
			continue
		}
		p, _ := st.Predicate.(map[string]any)
		s.Verdict, _ = p["verdict"].(string)
		s.Time, _ = p["time"].(string)
		if r, ok := p["regression"].(map[string]any); ok {
			s.Reason, _ = r["reason"].(string)
		} else if d, ok := p["decider"].(map[string]any); ok {
			s.Reason, _ = d["reason"].(string)
		}
		s.PayloadSHA256 = statement.SHA256Hex(payload)
	}
	return s
}

// UnionLines merges two versions of a conflicts note (a set of lines): every
// distinct non-empty line of both, sorted by bytes, so that every clone writes
// the same note from the same lines whatever the order of merges. Extra lines
// (displaced by a merge) are added the same way.
func UnionLines(notes ...[]byte) []byte {
	set := map[string]bool{}
	for _, n := range notes {
		for _, l := range noteline.Split(n) {
			if len(bytes.TrimSpace(l)) > 0 {
				set[string(l)] = true
			}
		}
	}
	lines := make([]string, 0, len(set))
	for l := range set {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	var out bytes.Buffer
	for _, l := range lines {
		out.WriteString(l)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// TickSummary names the statements of one tick held in a note.
type TickSummary struct {
	Subject  string `json:"subject"`
	LineHash string `json:"line_hash,omitempty"`
	StatementsSummary
}

// SummarizeNote names the owned statements of each tick of a note (lines
// taskproof does not own are left out), in subject order.
func SummarizeNote(note []byte) []TickSummary {
	lines := noteline.Split(note)
	groups, order := groupByTick(lines, tickKeys(lines))
	out := make([]TickSummary, 0, len(order))
	for _, k := range order {
		out = append(out, TickSummary{Subject: k.subject, LineHash: k.line, StatementsSummary: summarize(groups[k])})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Subject < out[j].Subject })
	return out
}

// signatureName names a signature for a person: an SSH signature by the
// keyid of the key it embeds once it verifies with it, else as not
// verifying; another kind (whose key is not in the signature) by the keyid
// it claims, marked unchecked.
func signatureName(pae, sig []byte, hint string) string {
	id, err := keys.CheckSSHSignature(pae, sig)
	switch {
	case err == nil:
		return id
	case errors.Is(err, keys.ErrNotSSHSignature):
		if hint == "" {
			hint = "(no keyid)"
		}
		return hint + " (unchecked)"
	case id != "":
		return id + " (signature does not verify)"
	}
	return "a malformed signature"
}

// groupSigned reports whether every line of a group is a signed envelope or a
// Sigstore bundle, no signature of which is shown not to verify: an SSH
// signature carries its key, so its maths is checked without any trust (a
// signature over another payload, a forgery's, does not count); other kinds'
// keys are not in the envelope and count as signed. This keeps a statement
// anyone could write without a key from winning by its time.
func groupSigned(lines [][]byte) bool {
	for _, l := range lines {
		dl := noteline.Decode(l)
		if dl.Kind == noteline.KindBundle {
			continue
		}
		if dl.Kind != noteline.KindEnvelope || len(dl.Envelope.Signatures) == 0 {
			return false
		}
		pae := dl.Envelope.PAE()
		for _, sig := range dl.Envelope.Signatures {
			if _, err := keys.CheckSSHSignature(pae, sig.Sig); err != nil && !errors.Is(err, keys.ErrNotSSHSignature) {
				return false
			}
		}
	}
	return len(lines) > 0
}

// noteTick is the tick an owned note line belongs to: its subject name and the task
// line [statement.LineHashes] gives it ("" when none is known). owned is false for a
// line taskproof does not own.
type noteTick struct {
	subject, line string
	owned         bool
}

// tickKeys names the tick each line of a note belongs to.
func tickKeys(lines [][]byte) []noteTick {
	keys := make([]noteTick, len(lines))
	type subject struct {
		at       []int
		stmts    []*statement.Statement
		payloads [][]byte
	}
	subjects := map[string]*subject{}
	var names []string
	for i, l := range lines {
		st, payload, ok := statement.FromLine(l)
		if !ok || !statement.Owned(st.PredicateType) {
			continue
		}
		name := st.Subjects[0].Name
		s := subjects[name]
		if s == nil {
			s = &subject{}
			subjects[name] = s
			names = append(names, name)
		}
		s.at, s.stmts, s.payloads = append(s.at, i), append(s.stmts, st), append(s.payloads, payload)
	}
	for _, name := range names {
		s := subjects[name]
		for j, line := range statement.LineHashes(s.stmts, s.payloads) {
			keys[s.at[j]] = noteTick{subject: name, line: line, owned: true}
		}
	}
	return keys
}

// sameLines reports whether a and b hold the same lines, in any order.
func sameLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, l := range a {
		count[string(l)]++
	}
	for _, l := range b {
		count[string(l)]--
		if count[string(l)] < 0 {
			return false
		}
	}
	return true
}

// groupByTick gathers the owned lines of each tick (keys[i] is lines[i]'s, as
// [tickKeys] names them), in note order, with the ticks in the order of their
// first line.
func groupByTick(lines [][]byte, keys []noteTick) (map[noteTick][][]byte, []noteTick) {
	groups := map[noteTick][][]byte{}
	var order []noteTick
	for i, l := range lines {
		if k := keys[i]; k.owned {
			if groups[k] == nil {
				order = append(order, k)
			}
			groups[k] = append(groups[k], l)
		}
	}
	return groups, order
}
