package attest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// sigKeyIDs are the keyids of the signatures of each envelope of a note.
func sigKeyIDs(t *testing.T, note string) [][]string {
	t.Helper()
	stmts, _ := statements(t, note)
	var out [][]string
	for _, s := range stmts {
		var ids []string
		for _, sig := range s.env.Signatures {
			ids = append(ids, sig.KeyID)
		}
		out = append(out, ids)
	}
	return out
}

// TestTickCoSignsHeldStatements: attest tick run again over statements the
// note holds with the same payloads adds the signatures they lack, keeping
// theirs (co-signing), and is an idempotent retry only when they carry every
// signature it would add: unsigned then alice, then bob, then alice again and
// unsigned again.
func TestTickCoSignsHeldStatements(t *testing.T) {
	r := newTickRepo(t)
	repo, notes := r.open(t)
	alice, allowedA := sshKey(t, "")
	bob, allowedB := sshKey(t, "")
	tickWith := func(keys ...string) attest.Written {
		t.Helper()
		var ss []signer.Signer
		for _, k := range keys {
			ss = append(ss, sshSigner(t, k))
		}
		w, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: r.c1, Tasks: []string{"T001"},
			Verdict: predicate.Verified, Signers: ss, Time: fixedTime})
		if err != nil {
			t.Fatal(err)
		}
		return w[0]
	}
	aliceID, bobID := sshSigner(t, alice).KeyID(), sshSigner(t, bob).KeyID()
	check := func(step string, w attest.Written, held, cosigned bool, want ...string) {
		t.Helper()
		if w.AlreadyHeld != held || w.CoSigned != cosigned {
			t.Errorf("%s: already held %v, co-signed %v; want %v, %v", step, w.AlreadyHeld, w.CoSigned, held, cosigned)
		}
		for i, ids := range sigKeyIDs(t, note(t, r.dir, r.c1)) {
			if strings.Join(ids, " ") != strings.Join(want, " ") {
				t.Errorf("%s: envelope %d signed by %v, want %v", step, i, ids, want)
			}
		}
	}
	check("unsigned", tickWith(), false, false)
	check("alice over the unsigned statements", tickWith(alice), false, true, aliceID)
	check("bob beside alice", tickWith(bob), false, true, aliceID, bobID)
	check("alice again", tickWith(alice), true, false, aliceID, bobID)
	check("unsigned again", tickWith(), true, false, aliceID, bobID)

	// Each key's signature verifies: both are trusted signers of the statement.
	as, err := trust.LoadAllowedSigners(allowedA)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := trust.LoadAllowedSigners(allowedB)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trust.NewTrust(trust.WithAllowedSigners(as), trust.WithAllowedSigners(bs))
	if err != nil {
		t.Fatal(err)
	}
	v := &verify.Verifier{Repo: repo, Notes: notes, Trust: tr}
	if got := objectOutcomes(t, v, r.c1); got["001-calc/T001"] != verify.OK {
		t.Errorf("co-signed statements: %v, want ok", got)
	}

	// A run a second later builds the same statements (the held time of
	// issue taken: docs/format.md#the-same-statement), held already.
	w, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: r.c1, Tasks: []string{"T001"},
		Verdict: predicate.Verified, Signers: []signer.Signer{sshSigner(t, bob)}, Time: fixedTime.Add(1e9)})
	if err != nil {
		t.Fatal(err)
	}
	check("bob a second later", w[0], true, false, aliceID, bobID)
	// Other statements (issued before the held ones, which no run takes the
	// time of) are not co-signed: replacing them must be forced.
	_, err = attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: r.c1, Tasks: []string{"T001"},
		Verdict: predicate.Verified, Signers: []signer.Signer{sshSigner(t, bob)}, Time: fixedTime.Add(-1e9)})
	if !errors.Is(err, attest.ErrAlreadyAttested) {
		t.Errorf("an earlier statement: err %v, want ErrAlreadyAttested", err)
	}
}

// TestSignNoteCoSigns: attest sign adds a key's signature to envelopes
// another key signed, keeping that one, and says why it signs nothing when
// every envelope carries its signature already.
func TestSignNoteCoSigns(t *testing.T) {
	r := newTickRepo(t)
	repo, notes := r.open(t)
	alice, _ := sshKey(t, "")
	bob, _ := sshKey(t, "")
	if _, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: r.c1, Verdict: predicate.Verified,
		Signers: []signer.Signer{sshSigner(t, alice)}, Time: fixedTime}); err != nil {
		t.Fatal(err)
	}
	res, err := attest.SignNote(context.Background(), notes, r.c1, []signer.Signer{sshSigner(t, bob)}, false)
	if err != nil || res.Signed != 4 {
		t.Fatalf("bob signs: %+v, %v", res, err)
	}
	want := sshSigner(t, alice).KeyID() + " " + sshSigner(t, bob).KeyID()
	for i, ids := range sigKeyIDs(t, note(t, r.dir, r.c1)) {
		if strings.Join(ids, " ") != want {
			t.Errorf("envelope %d signed by %v, want %s", i, ids, want)
		}
	}
	res, err = attest.SignNote(context.Background(), notes, r.c1, []signer.Signer{sshSigner(t, bob)}, false)
	if err != nil || res.Signed != 0 || res.AlreadySigned != 4 || !strings.Contains(res.Why(), "4 envelope(s) already carry this key's signature") {
		t.Errorf("bob again: %+v (%s), %v", res, res.Why(), err)
	}
}

// TestMergeNotesJoinsCoSignatures: two clones that signed the same statements
// with different keys merge into the union of the signatures, the same bytes
// whichever side is local; statements that differ still follow the conflict
// rules.
func TestMergeNotesJoinsCoSignatures(t *testing.T) {
	st, err := statement.Encode(statement.Subject{Name: "f/T1", GitCommit: strings.Repeat("c", 40)}, predicate.PredicateType,
		map[string]any{"verdict": "verified", "time": "2026-01-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	line := func(sigs ...string) []byte {
		env := &dsse.Envelope{PayloadType: dsse.PayloadType, Payload: st}
		for _, s := range sigs {
			env.Signatures = append(env.Signatures, dsse.Signature{KeyID: s, Sig: []byte("sig of " + s)})
		}
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	for _, c := range []struct {
		name          string
		local, remote []byte
		want          []byte
	}{
		{"alice and bob", line("alice"), line("bob"), line("alice", "bob")},
		{"alice, then bob beside her", line("alice"), line("alice", "bob"), line("alice", "bob")},
		{"unsigned and bob", line(), line("bob"), line("bob")},
		{"three people", line("carol", "alice"), line("alice", "bob"), line("alice", "bob", "carol")},
	} {
		for _, order := range [][2][]byte{{c.local, c.remote}, {c.remote, c.local}} {
			m, err := notemerge.MergeNotes(order[0], order[1])
			if err != nil {
				t.Fatal(err)
			}
			if string(m.Merged) != string(c.want) || len(m.Conflicts) != 0 || len(m.Displaced) != 0 {
				t.Errorf("%s: merged %s (%d conflicts), want %s", c.name, m.Merged, len(m.Conflicts), c.want)
			}
		}
	}
}
