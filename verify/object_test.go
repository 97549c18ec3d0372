package verify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testkeys"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/trust"
)

const zeros64 = "0000000000000000000000000000000000000000000000000000000000000000"

// forgeTV replaces c's task-verification line by one whose signature the real
// `ssh-keygen -Y sign -n ns` made over signed (hand-built bytes), with the
// envelope's payloadType pt and payload as in the original.
func forgeTV(t *testing.T, f *fixture, c gitref.Hash, pt, ns string, signed func(payload []byte) []byte) {
	t.Helper()
	ls, i := f.tvLine(c)
	payload := ls[i].env.Payload
	sig := testkeys.SSHKeygenSign(t, f.key.path, ns, signed(payload))
	f.replaceTV(c, wireEnvelope(t, pt, b64(payload), [2]string{f.signer.KeyID(), b64(sig)}))
}

// reencodeTV rewrites c's task-verification line with payload and signatures in
// the base64 spelling enc gives.
func reencodeTV(t *testing.T, f *fixture, c gitref.Hash, enc func([]byte) string) {
	t.Helper()
	ls, i := f.tvLine(c)
	env := ls[i].env
	var sigs [][2]string
	for _, s := range env.Signatures {
		sigs = append(sigs, [2]string{s.KeyID, enc(s.Sig)})
	}
	f.replaceTV(c, wireEnvelope(t, env.PayloadType, enc(env.Payload), sigs...))
}

// mixAlphabets turns one standard-alphabet character of s into its URL-safe
// counterpart, leaving at least one standard one.
func mixAlphabets(t *testing.T, s string) string {
	t.Helper()
	if strings.Count(s, "+")+strings.Count(s, "/") < 2 {
		t.Fatalf("base64 text has fewer than two of + and /: cannot mix alphabets")
	}
	i := strings.IndexAny(s, "+/")
	r := map[byte]string{'+': "-", '/': "_"}[s[i]]
	return s[:i] + r + s[i+1:]
}

// addSignature appends sig to c's task-verification envelope.
func addSignature(t *testing.T, f *fixture, c gitref.Hash, sig dsse.Signature) {
	t.Helper()
	ls, i := f.tvLine(c)
	env := *ls[i].env
	env.Signatures = append(append([]dsse.Signature{}, env.Signatures...), sig)
	f.replaceTV(c, marshal(t, &env))
}

// otherSignature is f.signer's valid signature over other bytes: a signature by
// a trusted key that does not cover this payload.
func otherSignature(t *testing.T, f *fixture) dsse.Signature {
	t.Helper()
	env, err := signer.Sign(t.Context(), []byte(`{"not":"this payload"}`), f.signer)
	if err != nil {
		t.Fatal(err)
	}
	return env.Signatures[0]
}

// TestObjectOutcomes builds, for each case, a repository with one tick (T002,
// regression_only, attested and signed by taskproof with a trusted ed25519 key
// from ssh-keygen), changes its note or the verifier's trust, and checks the
// object's outcome and reason codes (docs/format.md#checks-in-order) and the merge gate's status and
// sub-reason for the tick (docs/format.md#gate-rules).
func TestObjectOutcomes(t *testing.T) {
	type check func(t *testing.T, f *fixture, r ObjectResult)
	tests := []struct {
		name       string
		setup      func(t *testing.T, f *fixture, c gitref.Hash)
		task       string // the result's task ("" for a note that could not be read)
		outcome    Outcome
		codes      []string
		status     string // the gate's status for the tick
		reason     string // the gate's sub-reason
		signers    int
		check      check
		gateOption GateOptions
	}{
		{
			name: "valid", task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
			check: func(t *testing.T, f *fixture, r ObjectResult) {
				if r.Signers[0].Principal != "dev@example.invalid" || r.Signers[0].KeyID != f.signer.KeyID() || r.Signers[0].Kind != signer.KindSSH {
					t.Errorf("signer = %+v", r.Signers[0])
				}
				if r.Kind != ObjectTick || r.Verdict != "regression_only" || r.Revision != predicate.Revision {
					t.Errorf("kind, verdict, revision = %s, %s, %d", r.Kind, r.Verdict, r.Revision)
				}
				if len(r.Warnings) != 0 || len(r.NewerFields) != 0 {
					t.Errorf("warnings %v, newer fields %v", r.Warnings, r.NewerFields)
				}
			},
		},
		{
			name: "untrusted key",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.attest(c, predicate.RegressionOnly, f.sshSigner(newSSHKey(t)))
			},
			task: "001-greeting/T002", outcome: UntrustedSigner, codes: []string{CodeUntrusted, CodeUntrusted},
			status: StatusUnverifiable, reason: string(UntrustedSigner),
		},
		{
			name: "key trusted only for the git namespace",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.setAllowed(`dev@example.invalid namespaces="git,file" ` + f.key.line + "\n")
			},
			task: "001-greeting/T002", outcome: UntrustedSigner, codes: []string{CodeUntrusted, CodeUntrusted},
			status: StatusUnverifiable, reason: string(UntrustedSigner),
		},
		{
			name: "key whose valid-before has passed",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.setAllowed(`dev@example.invalid namespaces="in-toto",valid-before="20260101" ` + f.key.line + "\n")
			},
			task: "001-greeting/T002", outcome: UntrustedSigner, codes: []string{CodeUntrusted, CodeUntrusted},
			status: StatusUnverifiable, reason: string(UntrustedSigner),
		},
		{
			name: "ssh-keygen signature in namespace git",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				forgeTV(t, f, c, dsse.PayloadType, "git", testkeys.PAE)
			},
			task: "001-greeting/T002", outcome: BadSignature, codes: []string{CodeSignature},
			status: StatusUnverifiable, reason: string(BadSignature),
		},
		{
			name: "ssh-keygen signature in namespace file",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				forgeTV(t, f, c, dsse.PayloadType, "file", testkeys.PAE)
			},
			task: "001-greeting/T002", outcome: BadSignature, codes: []string{CodeSignature},
			status: StatusUnverifiable, reason: string(BadSignature),
		},
		{
			name: "ssh-keygen signature over the base64 text, not the payload",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				forgeTV(t, f, c, dsse.PayloadType, "in-toto", func(p []byte) []byte { return testkeys.PAE([]byte(b64(p))) })
			},
			task: "001-greeting/T002", outcome: BadSignature, codes: []string{CodeSignature},
			status: StatusUnverifiable, reason: string(BadSignature),
		},
		{
			name: "ssh-keygen signature over the legacy little-endian PAE",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				forgeTV(t, f, c, dsse.PayloadType, "in-toto", func(p []byte) []byte { return testkeys.LegacyPAE(dsse.PayloadType, p) })
			},
			task: "001-greeting/T002", outcome: BadSignature, codes: []string{CodeSignature},
			status: StatusUnverifiable, reason: string(BadSignature),
		},
		{
			name: "ssh-keygen signature over the raw payload (no PAE)",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				forgeTV(t, f, c, dsse.PayloadType, "in-toto", func(p []byte) []byte { return p })
			},
			task: "001-greeting/T002", outcome: BadSignature, codes: []string{CodeSignature},
			status: StatusUnverifiable, reason: string(BadSignature),
		},
		{
			// Correctly signed, but not an in-toto payload: malformed before
			// any signature is looked at; the tick has no readable statement.
			name: "payloadType text/plain",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				forgeTV(t, f, c, "text/plain", "in-toto", func(p []byte) []byte {
					return (&dsse.Envelope{PayloadType: "text/plain", Payload: p}).PAE()
				})
			},
			outcome: Malformed, codes: []string{CodePayloadType},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			name: "_type in-toto Statement v0.1",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { st["_type"] = "https://in-toto.io/Statement/v0.1" }, f.signer)
			},
			outcome: Malformed, codes: []string{CodeStatement},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			name: "_type unknown",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { st["_type"] = "https://example.com/Statement/v9" }, f.signer)
			},
			outcome: Malformed, codes: []string{CodeStatement},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			name: "_type absent",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { delete(st, "_type") }, f.signer)
			},
			outcome: Malformed, codes: []string{CodeStatement},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			// A task-verification predicate of another version is malformed
			// for a v0 reader ("the predicate is not v0"), as speccoder reads
			// it: not a newer revision, not another tool's statement.
			name: "task-verification v1",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { st["predicateType"] = "https://speccoder.dev/task-verification/v1" }, f.signer)
			},
			outcome: Malformed, codes: []string{CodePredicate},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			// A statement of another tool's predicateType is not evidence
			// for the task: the note holds no task-verification statement.
			name: "another predicateType",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { st["predicateType"] = "https://example.com/other/v1" }, f.signer)
			},
			outcome: Missing, codes: []string{CodeNoEvidence},
			status: StatusUnverifiable, reason: ReasonTickedWithoutEvidence,
		},
		{
			name: "subject gitCommit in upper case",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) {
					st["subject"].([]any)[0].(map[string]any)["digest"] = map[string]any{"gitCommit": strings.ToUpper(string(c))}
				}, f.signer)
			},
			task: "001-greeting/T002", outcome: Mismatch, codes: []string{CodeSubjectCommit},
			status: StatusUnverifiable, reason: string(Mismatch), signers: 1,
		},
		{
			name: "two subjects",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) {
					s := st["subject"].([]any)
					st["subject"] = append(s, map[string]any{"name": "001-greeting/T003", "digest": map[string]any{"gitCommit": string(c)}})
				}, f.signer)
			},
			task: "001-greeting/T002", outcome: Mismatch, codes: []string{CodeSubjectCount},
			status: StatusUnverifiable, reason: string(Mismatch), signers: 1,
		},
		{
			name: "tree of another commit",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				tree := f.git("rev-parse", string(f.base)+"^{tree}")
				f.resign(c, func(st map[string]any) { pred(st)["tree"] = tree }, f.signer)
			},
			task: "001-greeting/T002", outcome: Mismatch, codes: []string{CodeTree},
			status: StatusUnverifiable, reason: string(Mismatch), signers: 1,
		},
		{
			name: "line_hash of another line",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) {
					pred(st)["task"].(map[string]any)["line_hash"] = predicate.LineHash("- [ ] T002 [US1] Something else")
				}, f.signer)
			},
			task: "001-greeting/T002", outcome: Mismatch, codes: []string{CodeLineHash},
			status: StatusUnverifiable, reason: string(Mismatch), signers: 1,
		},
		{
			name: "task id not in the tasks file",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) {
					pred(st)["task"].(map[string]any)["id"] = "T099"
					st["subject"].([]any)[0].(map[string]any)["name"] = "001-greeting/T099"
				}, f.signer)
			},
			task: "001-greeting/T099", outcome: Mismatch, codes: []string{CodeTaskMissing},
			status: StatusUnverifiable, reason: ReasonTickedWithoutEvidence, signers: 1,
		},
		{
			name: "subject name of another task",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { st["subject"].([]any)[0].(map[string]any)["name"] = "001-greeting/T003" }, f.signer)
			},
			task: "001-greeting/T003", outcome: Mismatch, codes: []string{CodeSubjectName},
			status: StatusUnverifiable, reason: ReasonTickedWithoutEvidence, signers: 1,
		},
		{
			// The cited section's hash differs at the object: a stale tick.
			name: "section_hash differs",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { pred(st)["spec"].(map[string]any)["section_hash"] = zeros64 }, f.signer)
			},
			task: "001-greeting/T002", outcome: Mismatch, codes: []string{CodeSectionHash},
			status: StatusStale, signers: 1,
		},
		{
			name: "policy_sha256 differs",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { pred(st)["policy_sha256"] = zeros64 }, f.signer)
			},
			task: "001-greeting/T002", outcome: Mismatch, codes: []string{CodePolicySHA256},
			status: StatusUnverifiable, reason: string(Mismatch), signers: 1,
		},
		{
			name: "unpadded standard base64",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				reencodeTV(t, f, c, base64.RawStdEncoding.EncodeToString)
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
		},
		{
			name: "URL-safe padded base64",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				reencodeTV(t, f, c, base64.URLEncoding.EncodeToString)
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
		},
		{
			name: "URL-safe unpadded base64",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				reencodeTV(t, f, c, base64.RawURLEncoding.EncodeToString)
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
		},
		{
			name: "mixed base64 alphabets in the payload",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				// JSON text rarely encodes to + or /: add text that does.
				f.resign(c, func(st map[string]any) { pred(st)["zz_note"] = "~~~???~~~???>>>~~~???" }, f.signer)
				ls, i := f.tvLine(c)
				env := ls[i].env
				s := env.Signatures[0]
				f.replaceTV(c, wireEnvelope(t, env.PayloadType, mixAlphabets(t, b64(env.Payload)), [2]string{s.KeyID, b64(s.Sig)}))
			},
			outcome: Malformed, codes: []string{CodeLineMalformed},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			name: "zero signatures",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.attest(c, predicate.RegressionOnly)
			},
			task: "001-greeting/T002", outcome: Unsigned, codes: []string{CodeUnsigned, CodeUnsigned},
			status: StatusUnverifiable, reason: string(Unsigned),
		},
		{
			name: "zero signatures, unsigned allowed",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.attest(c, predicate.RegressionOnly)
			},
			task: "001-greeting/T002", outcome: Unsigned, codes: []string{CodeUnsigned, CodeUnsigned},
			status: StatusEvidenced, gateOption: GateOptions{AllowUnsigned: true},
		},
		{
			name: "two signatures by one key",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.attest(c, predicate.RegressionOnly, f.signer, f.signer)
				ls, i := f.tvLine(c)
				if n := len(ls[i].env.Signatures); n != 2 {
					t.Fatalf("%d signatures, want 2", n)
				}
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
		},
		{
			name: "two trusted keys",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				k2 := newSSHKey(t)
				f.setAllowed(`dev@example.invalid namespaces="in-toto" ` + f.key.line + "\nlead@example.invalid namespaces=\"in-toto\" " + k2.line + "\n")
				f.attest(c, predicate.RegressionOnly, f.signer, f.sshSigner(k2))
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 2,
		},
		{
			name: "a valid and an untrusted signature",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.attest(c, predicate.RegressionOnly, f.signer, f.sshSigner(newSSHKey(t)))
			},
			task: "001-greeting/T002", outcome: UntrustedSigner, codes: []string{CodeUntrusted, CodeUntrusted},
			status: StatusUnverifiable, reason: string(UntrustedSigner), signers: 1,
		},
		{
			name: "a valid and an invalid signature",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				addSignature(t, f, c, otherSignature(t, f))
			},
			task: "001-greeting/T002", outcome: BadSignature, codes: []string{CodeSignature},
			status: StatusUnverifiable, reason: string(BadSignature), signers: 1,
		},
		{
			// Precedence: bad_signature outranks mismatch.
			name: "an invalid signature and a tree mismatch",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				tree := f.git("rev-parse", string(f.base)+"^{tree}")
				f.resign(c, func(st map[string]any) { pred(st)["tree"] = tree }, f.signer)
				addSignature(t, f, c, otherSignature(t, f))
			},
			task: "001-greeting/T002", outcome: BadSignature, codes: []string{CodeSignature, CodeTree},
			status: StatusUnverifiable, reason: string(BadSignature), signers: 1,
		},
		{
			// encoding/json would read the last predicateType; strict decoding
			// refuses the payload.
			name: "duplicate keys in the payload",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				ls, i := f.tvLine(c)
				p := ls[i].env.Payload
				if !bytes.HasPrefix(p, []byte("{")) {
					t.Fatalf("payload %q", p)
				}
				dup := append([]byte(`{"predicateType":"https://example.com/other/v1",`), p[1:]...)
				f.replaceTV(c, signLine(t, dup, f.signer))
			},
			outcome: Malformed, codes: []string{CodeStatement},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			name: "case-variant key in the payload",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { st["PredicateType"] = "https://example.com/other/v1" }, f.signer)
			},
			outcome: Malformed, codes: []string{CodeStatement},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			name: "note of 5 MiB",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				big := append(f.note(c), bytes.Repeat([]byte("x"), 5<<20)...)
				f.setNote(c, append(big, '\n'))
			},
			outcome: Malformed, codes: []string{CodeNoteMalformed},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			name: "note of 1,025 lines",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				var lines [][]byte
				for _, l := range f.lines(c) {
					lines = append(lines, l.raw)
				}
				other := signLine(t, canon(t, map[string]any{"_type": statement.Type, "predicateType": "https://example.com/other/v1",
					"subject": []any{map[string]any{"name": "x", "digest": map[string]any{"gitCommit": string(c)}}}, "predicate": map[string]any{}}), f.signer)
				for len(lines) < noteline.MaxNoteLines+1 {
					lines = append(lines, other)
				}
				f.setNoteLines(c, lines)
			},
			outcome: Malformed, codes: []string{CodeNoteMalformed},
			status: StatusUnverifiable, reason: string(Malformed),
		},
		{
			// Another tool's line, signed by a key the verifier does not
			// know, is kept and decides nothing.
			name: "another tool's statement beside the task's",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				var lines [][]byte
				for _, l := range f.lines(c) {
					lines = append(lines, l.raw)
				}
				other := signLine(t, canon(t, map[string]any{"_type": statement.Type, "predicateType": "https://example.com/other/v1",
					"subject": []any{map[string]any{"name": "001-greeting/T002", "digest": map[string]any{"gitCommit": string(c)}}}, "predicate": map[string]any{}}),
					f.sshSigner(newSSHKey(t)))
				f.setNoteLines(c, append([][]byte{other}, lines...))
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
		},
		{
			name: "two task-verification statements for one task",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				ls, i := f.tvLine(c)
				st := decodeMap(t, ls[i].env.Payload)
				pred(st)["time"] = "2026-05-02T00:00:00Z"
				var lines [][]byte
				for _, l := range ls {
					lines = append(lines, l.raw)
				}
				f.setNoteLines(c, append(lines, signLine(t, canon(t, st), f.signer)))
			},
			task: "001-greeting/T002", outcome: Malformed, codes: []string{CodeDuplicate, CodeVSA},
			status: StatusUnverifiable, reason: string(Malformed), signers: 1,
		},
		{
			// The task-verification statement changed and was re-signed, but
			// the VSA still names the old one.
			name: "VSA names another statement",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				ls, i := f.tvLine(c)
				st := decodeMap(t, ls[i].env.Payload)
				pred(st)["time"] = "2026-05-02T00:00:00Z"
				f.replaceTV(c, signLine(t, canon(t, st), f.signer))
			},
			task: "001-greeting/T002", outcome: Mismatch, codes: []string{CodeVSA, CodeVSA},
			status: StatusUnverifiable, reason: string(Mismatch), signers: 1,
		},
		{
			name: "no VSA (reported, not failed)",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				ls, i := f.tvLine(c)
				f.setNoteLines(c, [][]byte{ls[i].raw})
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
			check: func(t *testing.T, f *fixture, r ObjectResult) {
				if got := codes(r.Warnings); !reflect.DeepEqual(got, []string{CodeVSAMissing}) {
					t.Errorf("warnings = %v, want [%s]", got, CodeVSAMissing)
				}
			},
		},
		{
			name: "revision 1 (absent), regression_only without regression",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) {
					delete(pred(st), "revision")
					delete(pred(st), "regression")
				}, f.signer)
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
			check: func(t *testing.T, f *fixture, r ObjectResult) { checkUnrecorded(t, r, 1) },
		},
		{
			name: "revision 2, regression_only without regression",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) {
					pred(st)["revision"] = json.Number("2")
					delete(pred(st), "regression")
				}, f.signer)
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
			check: func(t *testing.T, f *fixture, r ObjectResult) { checkUnrecorded(t, r, 2) },
		},
		{
			name: "revision 3, regression_only without regression",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) { delete(pred(st), "regression") }, f.signer)
			},
			task: "001-greeting/T002", outcome: Malformed, codes: []string{CodeRegressionReason},
			status: StatusUnverifiable, reason: string(Malformed), signers: 1,
		},
		{
			name: "newer fields listed, not deciding",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.resign(c, func(st map[string]any) {
					pred(st)["zz_future"] = map[string]any{"level": json.Number("4")}
					pred(st)["task"].(map[string]any)["origin"] = "imported"
				}, f.signer)
			},
			task: "001-greeting/T002", outcome: OK, codes: []string{}, status: StatusEvidenced, signers: 1,
			check: func(t *testing.T, f *fixture, r ObjectResult) {
				if want := []string{"task.origin", "zz_future"}; !reflect.DeepEqual(r.NewerFields, want) {
					t.Errorf("newer_fields = %v, want %v", r.NewerFields, want)
				}
			},
		},
		{
			name: "no note",
			setup: func(t *testing.T, f *fixture, c gitref.Hash) {
				f.git("notes", "--ref", "speccoder", "remove", string(c))
			},
			outcome: Missing, codes: []string{CodeNoEvidence},
			status: StatusUnverifiable, reason: ReasonTickedWithoutEvidence,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			c := f.tick("T002")
			f.attest(c, predicate.RegressionOnly, f.signer)
			if tt.setup != nil {
				tt.setup(t, f, c)
			}
			rs := f.object(c)
			if len(rs) != 1 {
				t.Fatalf("Object: %d results, want 1: %+v", len(rs), rs)
			}
			r := rs[0]
			if r.Object != c || r.Task != tt.task || r.Outcome != tt.outcome {
				t.Errorf("object, task, outcome = %s, %q, %s; want %s, %q, %s", r.Object, r.Task, r.Outcome, c, tt.task, tt.outcome)
			}
			if got := codes(r.Reasons); !reflect.DeepEqual(got, tt.codes) {
				t.Errorf("reason codes = %v, want %v\n%+v", got, tt.codes, r.Reasons)
			}
			if len(r.Signers) != tt.signers {
				t.Errorf("%d signers, want %d: %+v", len(r.Signers), tt.signers, r.Signers)
			}
			if tt.check != nil {
				tt.check(t, f, r)
			}

			rep := f.branch(f.base, c, tt.gateOption)
			if len(rep.Ticks) != 1 {
				t.Fatalf("Branch: %d ticks, want 1: %+v", len(rep.Ticks), rep.Ticks)
			}
			tr := rep.Ticks[0]
			if tr.Commit != c || tr.Task != "001-greeting/T002" || tr.Status != tt.status || tr.Reason != tt.reason {
				t.Errorf("tick %s %s: status %q reason %q; want %q %q", tr.Commit, tr.Task, tr.Status, tr.Reason, tt.status, tt.reason)
			}
			wantConclusion := Failure
			if tt.status == StatusEvidenced {
				wantConclusion = Success
			}
			if rep.Conclusion != wantConclusion || tr.Failing != (wantConclusion == Failure) {
				t.Errorf("conclusion %s (failing %v), want %s", rep.Conclusion, tr.Failing, wantConclusion)
			}

			orep, err := f.verifier().Objects([]gitref.Hash{c}, tt.gateOption)
			if err != nil {
				t.Fatal(err)
			}
			wantObj := Failure
			if tt.outcome == OK || (tt.outcome == Unsigned && tt.gateOption.AllowUnsigned) {
				wantObj = Success
			}
			if orep.Conclusion != wantObj || orep.Summary[string(tt.outcome)] != 1 {
				t.Errorf("Objects: conclusion %s, summary %v; want %s", orep.Conclusion, orep.Summary, wantObj)
			}
		})
	}
}

func checkUnrecorded(t *testing.T, r ObjectResult, rev uint32) {
	t.Helper()
	if r.Revision != rev {
		t.Errorf("revision %d, want %d", r.Revision, rev)
	}
	if want := map[string]any{"reason": "unrecorded"}; !reflect.DeepEqual(r.Regression, want) {
		t.Errorf("regression = %#v, want %v", r.Regression, want)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"regression":{"reason":"unrecorded"}`)) {
		t.Errorf("JSON result does not read regression as unrecorded: %s", b)
	}
}

// TestObjectReplayedNote copies a valid note from the commit ticking T002 onto
// the commit ticking T003: its subject names another commit.
func TestObjectReplayedNote(t *testing.T) {
	f := newFixture(t)
	a := f.tick("T002")
	f.attest(a, predicate.RegressionOnly, f.signer)
	b := f.tick("T003")
	f.setNote(b, f.note(a))

	rs := f.object(b)
	if len(rs) != 1 {
		t.Fatalf("%d results: %+v", len(rs), rs)
	}
	r := rs[0]
	if r.Task != "001-greeting/T002" || r.Outcome != Mismatch {
		t.Errorf("task %q outcome %s, want 001-greeting/T002 mismatch", r.Task, r.Outcome)
	}
	// The subject, the tree and the VSA's resourceUri commit are all A's.
	if got, want := codes(r.Reasons), []string{CodeSubjectCommit, CodeTree}; !reflect.DeepEqual(got, want) {
		t.Errorf("codes %v, want %v: %+v", got, want, r.Reasons)
	}
	for _, x := range r.Reasons {
		if x.Code == CodeSubjectCommit && (x.Expected != string(b) || x.Found != string(a)) {
			t.Errorf("subject_commit expected %s found %s; want %s, %s", x.Expected, x.Found, b, a)
		}
	}

	// The gate: T003's tick has no evidence of its own (the copied note is
	// about T002), and T002's evidence stays on A.
	rep := f.branch(f.base, b, GateOptions{})
	got := map[string]string{}
	for _, tr := range rep.Ticks {
		got[tr.TaskID] = tr.Status + "/" + tr.Reason
	}
	want := map[string]string{"T002": StatusEvidenced + "/", "T003": StatusUnverifiable + "/" + ReasonTickedWithoutEvidence}
	if !reflect.DeepEqual(got, want) || rep.Conclusion != Failure {
		t.Errorf("ticks %v (%s), want %v failure", got, rep.Conclusion, want)
	}
}

// TestObjectReplayedOnRetick: T002 is ticked, unticked and ticked again; the
// first tick's note copied to the second tick is a mismatch for the same task.
func TestObjectReplayedOnRetick(t *testing.T) {
	f := newFixture(t)
	a := f.tick("T002")
	f.attest(a, predicate.RegressionOnly, f.signer)
	f.edit(fxDir+"/tasks.md", "- [x] T002 ", "- [ ] T002 ", "reopen T002")
	b := f.tick("T002")
	f.setNote(b, f.note(a))

	rep := f.branch(a, b, GateOptions{})
	if len(rep.Ticks) != 1 || len(rep.Unticks) != 1 {
		t.Fatalf("ticks %+v unticks %+v", rep.Ticks, rep.Unticks)
	}
	tr := rep.Ticks[0]
	if tr.Commit != b || tr.Status != StatusUnverifiable || tr.Reason != string(Mismatch) || tr.Evidence != b {
		t.Errorf("tick %+v", tr)
	}
	// Untick and retick restore the tree: only the subject tells the notes apart.
	if got := codes(tr.Reasons); !reflect.DeepEqual(got, []string{CodeSubjectCommit}) {
		t.Errorf("codes %v", got)
	}
}

// TestObjectSeveralTasks: one commit ticking two tasks gives one result per task.
func TestObjectSeveralTasks(t *testing.T) {
	f := newFixture(t)
	c := f.tick("T002", "T005")
	w := f.attest(c, predicate.Verified, f.signer)
	if len(w) != 2 {
		t.Fatalf("attested %d tasks", len(w))
	}
	rs := f.object(c)
	var got []string
	for _, r := range rs {
		got = append(got, r.Task+"="+string(r.Outcome)+"/"+r.Verdict)
	}
	if want := []string{"001-greeting/T002=ok/verified", "001-greeting/T005=ok/verified"}; !reflect.DeepEqual(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
}

// TestObjectErrors: git preconditions are errors, not outcomes.
func TestObjectErrors(t *testing.T) {
	f := newFixture(t)
	c := f.tick("T002")
	v := f.verifier()
	if _, err := v.Object(c); !errorsIs(err, gitref.ErrNotesRefAbsent) {
		t.Errorf("Object without the notes ref: %v, want ErrNotesRefAbsent", err)
	}
	if _, err := Gate.Branch(v, f.base, c, GateOptions{}); !errorsIs(err, gitref.ErrNotesRefAbsent) {
		t.Errorf("Branch without the notes ref: %v, want ErrNotesRefAbsent", err)
	}
	if _, err := v.Objects([]gitref.Hash{c}, GateOptions{}); !errorsIs(err, gitref.ErrNotesRefAbsent) {
		t.Errorf("Objects without the notes ref: %v, want ErrNotesRefAbsent", err)
	}
	f.attest(c, predicate.RegressionOnly, f.signer)
	v = f.verifier()
	if _, err := v.Object(gitref.Hash(zeros64[:40])); err == nil {
		t.Error("Object of an unknown commit: no error")
	}
	v.Trust = nil
	if _, err := v.Object(c); !errorsIs(err, trust.ErrNoTrust) {
		t.Errorf("Object without trust: %v, want trust.ErrNoTrust", err)
	}
	if _, err := Gate.Branch(v, f.base, c, GateOptions{}); !errorsIs(err, trust.ErrNoTrust) {
		t.Errorf("Branch without trust: %v, want trust.ErrNoTrust", err)
	}
}
