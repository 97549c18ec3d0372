package attest_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/signer"
)

// ShowNote shows each kind of line as far as it decodes: a bundle's signer,
// a foreign line's payloadType and signatures, why a line is malformed.
func TestShowNoteLineKinds(t *testing.T) {
	r := newTickRepo(t)
	tickSigstore(t, r, sigstoretest.New(t))
	bundleLine := noteline.Split([]byte(note(t, r.dir, r.c1)))[0]
	foreignBundle := bytes.Replace(bundleLine, []byte(`"payloadType":"`+dsse.PayloadType+`"`), []byte(`"payloadType":"text/plain"`), 1)
	lines := [][]byte{
		bundleLine,
		foreignBundle,
		[]byte(`{"payload":"aGk=","payloadType":"text/plain","signatures":[{"keyid":"k","sig":"AA=="}]}` + "\r"),
		[]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","dsseEnvelope":{}}`),
		[]byte(" "),
	}
	shown := attest.ShowNote(bytes.Join(lines, []byte("\n")))
	if len(shown) != len(lines) {
		t.Fatalf("%d lines shown, want %d", len(shown), len(lines))
	}
	b := shown[0]
	if b.Error != "" || b.Bundle == nil || b.Bundle.Identity != sgIdentity || b.Bundle.TlogIndex == nil || b.PayloadType != dsse.PayloadType ||
		len(b.Signatures) != 1 || b.Signatures[0].Kind != signer.KindSigstore || len(b.Subjects) != 1 || len(b.Statement) == 0 {
		t.Errorf("bundle line shown as %+v", b)
	}
	fb := shown[1]
	if fb.Bundle == nil || fb.PayloadType != "text/plain" || len(fb.Signatures) != 1 || fb.Signatures[0].Kind != signer.KindSigstore || len(fb.Subjects) != 1 {
		t.Errorf("foreign bundle line shown as %+v", fb)
	}
	fe := shown[2]
	if fe.Bundle != nil || fe.PayloadType != "text/plain" || len(fe.Signatures) != 1 || fe.Signatures[0].KeyID != "k" || fe.Signatures[0].Kind != signer.KindRaw || fe.Error == "" {
		t.Errorf("foreign envelope line shown as %+v", fe)
	}
	for _, l := range shown[3:] {
		if l.Error == "" || l.Bundle != nil || l.PayloadType != "" || len(l.Signatures) != 0 {
			t.Errorf("line %d shown as %+v, want its error only", l.Line, l)
		}
	}
}

// A bundle signed with a key (cosign's attest-blob --key) is shown with its
// key's hint and a raw signature, not an empty certificate identity.
func TestShowNoteKeyBundle(t *testing.T) {
	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		t.Fatal(err)
	}
	st := `{"_type":"https://in-toto.io/Statement/v1","predicate":{},"predicateType":"https://example.invalid/p","subject":[{"digest":{"gitCommit":"0123"},"name":"a/T1"}]}`
	pb, err := sign.Bundle(&sign.DSSEData{Data: []byte(st), PayloadType: dsse.PayloadType}, kp, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	line, err := (&bundle.Bundle{Bundle: pb}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, line); err != nil {
		t.Fatal(err)
	}
	ls := attest.ShowNote(append(compact.Bytes(), '\n'))
	if len(ls) != 1 || ls[0].Bundle == nil || ls[0].Error != "" {
		t.Fatalf("shown %+v", ls)
	}
	b := ls[0].Bundle
	if b.KeyHint != string(kp.GetHint()) || b.Identity != "" || len(ls[0].Signatures) != 1 || ls[0].Signatures[0].Kind != signer.KindRaw {
		t.Errorf("bundle %+v, signatures %+v; want hint %s and one raw signature", b, ls[0].Signatures, kp.GetHint())
	}
}
