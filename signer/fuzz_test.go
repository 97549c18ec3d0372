package signer

import (
	"errors"
	"testing"
)

// FuzzDetectKeyKind: any bytes given as --key name one kind or an error
// matching ErrNoSigningKey or ErrUnsupportedKey, never a panic.
func FuzzDetectKeyKind(f *testing.F) {
	f.Add([]byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"))
	f.Add([]byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKsUDqGDmBb1QAvG1tbNHxLsJxhJ4J3V3Qv5VRsK2v5q t\n"))
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n"))
	f.Add([]byte{0x95, 0x01, 0x02})
	f.Add([]byte{0xc5, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		kind, err := detectKeyKind(data)
		switch {
		case err == nil && kind != KindSSH && kind != KindOpenPGP && kind != KindRaw:
			t.Fatalf("kind %q without an error", kind)
		case err != nil && (kind != "" || !(errors.Is(err, ErrNoSigningKey) || errors.Is(err, ErrUnsupportedKey))):
			t.Fatalf("= %q, %v", kind, err)
		}
	})
}
