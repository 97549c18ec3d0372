package trust

import (
	"bytes"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/testkeys"
)

// FuzzKeyring: reading any keyring either fails with a trust error or gives
// keys that judge a signature without panicking, at any time.
func FuzzKeyring(f *testing.F) {
	cfg := &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA, Time: func() time.Time { return pgpEpoch }}
	e, err := openpgp.NewEntity("Alice", "", "alice@example.com", cfg)
	if err != nil {
		f.Fatal(err)
	}
	var kr, sig bytes.Buffer
	if err := e.Serialize(&kr); err != nil {
		f.Fatal(err)
	}
	payload := []byte(testStatement)
	if err := openpgp.ArmoredDetachSign(&sig, e, bytes.NewReader(testkeys.PAE(payload)), cfg); err != nil {
		f.Fatal(err)
	}
	f.Add(kr.Bytes(), int64(0))
	f.Add(append(kr.Bytes(), kr.Bytes()...), int64(86400*400))
	f.Add([]byte("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n-----END PGP PUBLIC KEY BLOCK-----\n"), int64(-1))
	f.Fuzz(func(t *testing.T, data []byte, offset int64) {
		k, err := ParseKeyring(data)
		if err != nil {
			return
		}
		for _, c := range k.ring.Certs() {
			if c.Fingerprint() == "" || c.Primary() == nil {
				t.Fatalf("certificate without a primary key: %+v", c)
			}
		}
		tr, err := NewTrust(WithKeyring(k))
		if err != nil {
			t.Fatal(err)
		}
		env := &dsse.Envelope{PayloadType: dsse.PayloadType, Payload: payload, Signatures: []dsse.Signature{{Sig: sig.Bytes()}}}
		if _, err := VerifySignatures(env, tr, pgpEpoch.Add(time.Duration(offset%(1<<40))*time.Second)); err != nil {
			t.Fatal(err)
		}
	})
}
