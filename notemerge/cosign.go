package notemerge

import (
	"bytes"
	"encoding/base64"
	"slices"
	"sort"
	"strings"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/noteline"
)

// Co-signing (docs/format.md#co-signing): a DSSE envelope holds several
// signatures over one payload, so a second person vouches for a statement by
// adding a signature to its envelope, never by writing a second statement.
// `attest sign` and `attest tick` add the signatures an envelope lacks and keep
// the others, and the notes merge joins the signatures two clones added to one
// payload. Whether an envelope already carries a key's signature is told by
// the keyid the signer writes beside it: a signature is only ever credited by
// the key that verifies it (verify), so a wrong keyid can make a writer skip
// its signature (and the gate then fails the envelope), never pass one.

// sigKeyIDs are the keyids of an envelope's signatures, lower-cased.
func sigKeyIDs(env *dsse.Envelope) map[string]bool {
	ids := map[string]bool{}
	for _, s := range env.Signatures {
		if s.KeyID != "" {
			ids[strings.ToLower(s.KeyID)] = true
		}
	}
	return ids
}

// HasSignature reports whether env holds sig: a signature with its keyid, or, for
// a signature without one, the same signature bytes.
func HasSignature(env *dsse.Envelope, sig dsse.Signature) bool {
	if sig.KeyID != "" {
		return sigKeyIDs(env)[strings.ToLower(sig.KeyID)]
	}
	for _, s := range env.Signatures {
		if bytes.Equal(s.Sig, sig.Sig) {
			return true
		}
	}
	return false
}

// WithSignatures returns env with those of sigs it does not carry appended
// (env itself is not changed), and how many were added; ok is false when the
// envelope would hold more than [dsse.MaxSignatures].
func WithSignatures(env *dsse.Envelope, sigs []dsse.Signature) (out *dsse.Envelope, added int, ok bool) {
	out = &dsse.Envelope{PayloadType: env.PayloadType, Payload: env.Payload, Signatures: append([]dsse.Signature{}, env.Signatures...)}
	for _, s := range sigs {
		if !HasSignature(out, s) {
			out.Signatures = append(out.Signatures, s)
			added++
		}
	}
	return out, added, len(out.Signatures) <= dsse.MaxSignatures
}

// HeldState is what a note holds of the statements a writer is about to
// write for one tick, payload for payload.
type HeldState int

const (
	// HeldNone: the note holds other statements for the tick, or none.
	HeldNone HeldState = iota
	// HeldSame: the note holds these statements with every signature this
	// write would add (an idempotent retry): kept as they are.
	HeldSame
	// HeldCosign: the note holds these statements without some of this
	// write's signatures: they are added (CosignHeld's lines).
	HeldCosign
	// HeldIncompatible: the note holds these statements, and this write's
	// signatures cannot join them (a Sigstore bundle holds one signature).
	HeldIncompatible
)

// CosignHeld compares held, a tick's owned lines in a note, with run, the
// lines a write would put there, whose payloads are the same set: each held
// line that lacks a signature of run's line for its payload gets it. A held
// line without signatures takes a run's bundle as it is (nothing is lost);
// otherwise a bundle on either side cannot take another signature.
func CosignHeld(held, run [][]byte) (HeldState, [][]byte) {
	byPayload := map[string]noteline.Line{}
	for _, l := range run {
		dl := noteline.Decode(l)
		if dl.Envelope == nil {
			return HeldNone, nil
		}
		byPayload[string(dl.Envelope.Payload)] = dl
	}
	state := HeldSame
	out := make([][]byte, 0, len(held))
	for _, l := range held {
		h := noteline.Decode(l)
		if h.Envelope == nil {
			return HeldNone, nil
		}
		r, ok := byPayload[string(h.Envelope.Payload)]
		if !ok {
			return HeldNone, nil
		}
		switch {
		case len(r.Envelope.Signatures) == 0 && r.Kind != noteline.KindBundle:
			// This write signs nothing: whatever is held carries at least that.
			out = append(out, l)
		case h.Kind == noteline.KindBundle && r.Kind == noteline.KindBundle:
			// One Sigstore signature each: the held one stands (a retry).
			out = append(out, l)
		case h.Kind == noteline.KindEnvelope && len(h.Envelope.Signatures) == 0 && r.Kind == noteline.KindBundle:
			out = append(out, run[indexOfPayload(run, h.Envelope.Payload)])
			state = HeldCosign
		case h.Kind == noteline.KindBundle || r.Kind == noteline.KindBundle:
			return HeldIncompatible, nil
		default:
			env, added, ok := WithSignatures(h.Envelope, r.Envelope.Signatures)
			if !ok {
				return HeldIncompatible, nil
			}
			if added == 0 {
				out = append(out, l)
				continue
			}
			b, err := env.MarshalJSON()
			if err != nil {
				return HeldIncompatible, nil
			}
			out = append(out, b)
			state = HeldCosign
		}
	}
	return state, out
}

// indexOfPayload is the index of the line of lines whose payload is payload
// (-1 when none is).
func indexOfPayload(lines [][]byte, payload []byte) int {
	for i, l := range lines {
		if dl := noteline.Decode(l); dl.Envelope != nil && bytes.Equal(dl.Envelope.Payload, payload) {
			return i
		}
	}
	return -1
}

// cosignedGroups joins two versions of one tick's owned lines that hold the
// same statements (the same payloads, each once, every line a DSSE envelope)
// signed differently: each payload's envelope gets the union of both sides'
// signatures (each signature once: a keyid and its bytes), in byte order of keyid and signature so that every clone writes
// the same line whatever the order of merges. ok is false when the two hold
// different statements, a bundle, or more signatures together than an
// envelope may (docs/format.md#limits): the merge's conflict rules decide.
func cosignedGroups(local, remote [][]byte) (lines [][]byte, ok bool) {
	if len(local) != len(remote) {
		return nil, false
	}
	rem := map[string]*dsse.Envelope{}
	for _, l := range remote {
		dl := noteline.Decode(l)
		if dl.Kind != noteline.KindEnvelope {
			return nil, false
		}
		if _, dup := rem[string(dl.Envelope.Payload)]; dup {
			return nil, false
		}
		rem[string(dl.Envelope.Payload)] = dl.Envelope
	}
	seen := map[string]bool{}
	for _, l := range local {
		dl := noteline.Decode(l)
		if dl.Kind != noteline.KindEnvelope || seen[string(dl.Envelope.Payload)] {
			return nil, false
		}
		seen[string(dl.Envelope.Payload)] = true
		r, found := rem[string(dl.Envelope.Payload)]
		if !found {
			return nil, false
		}
		env := &dsse.Envelope{PayloadType: dl.Envelope.PayloadType, Payload: dl.Envelope.Payload, Signatures: append([]dsse.Signature{}, dl.Envelope.Signatures...)}
		for _, s := range r.Signatures {
			if !slices.ContainsFunc(env.Signatures, func(o dsse.Signature) bool { return o.KeyID == s.KeyID && bytes.Equal(o.Sig, s.Sig) }) {
				env.Signatures = append(env.Signatures, s)
			}
		}
		if len(env.Signatures) > dsse.MaxSignatures {
			return nil, false
		}
		sort.SliceStable(env.Signatures, func(i, j int) bool {
			a, b := env.Signatures[i], env.Signatures[j]
			if a.KeyID != b.KeyID {
				return a.KeyID < b.KeyID
			}
			return base64.StdEncoding.EncodeToString(a.Sig) < base64.StdEncoding.EncodeToString(b.Sig)
		})
		b, err := env.MarshalJSON()
		if err != nil {
			return nil, false
		}
		lines = append(lines, b)
	}
	return lines, true
}
