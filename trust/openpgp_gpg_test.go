package trust

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/internal/testkeys"
)

// pgpShape is one row of the differential table: a key made (with gpg where
// gpg can make it) and a statement it signed.
type pgpShape struct {
	name  string
	build func(l *pgpLab, data []byte) (keyring, sig []byte)
	// stricter says why taskproof refuses what gpg accepts at some times
	// (docs/format.md#openpgp-keys); "" holds the two verdicts equal.
	stricter string
	// refused is a substring of the trust error taskproof refuses the keyring
	// with (exit 3); "" when taskproof reads it.
	refused string
}

// pgpTimes are the verifier's clocks every row is judged at: before the key,
// before and after the signature (day 10), around expiries at days 30 and
// 60 and a revocation at day 90.
var pgpTimes = []int{-1, 5, 20, 45, 75, 120}

const (
	alice = "Alice <alice@example.com>"
	mallo = "Mallory <mallory@example.com>"
)

// Reasons as gpg's --edit-key revkey menu numbers them.
const (
	menuNoReason    = 0
	menuCompromised = 1
	menuSuperseded  = 2
	menuRetired     = 3
)

func reason(r packet.ReasonForRevocation) *packet.ReasonForRevocation { return &r }

// signingPrimary is the common start: an ed25519 primary that signs, never
// expiring, and its signature at day 10.
func signingPrimary(l *pgpLab, data []byte) (string, []byte) {
	f := l.gen(alice, "ed25519", "sign", "never")
	return f, l.sign(10, f+"!", data)
}

// signingSubkey is the other start: a certify-only ed25519 primary (never
// expiring) with an ed25519 signing subkey made at day 1 (expire), and the
// subkey's signature at day 10.
func signingSubkey(l *pgpLab, data []byte, primaryExpire, subExpire string) (string, string, []byte) {
	f := l.gen(alice, "ed25519", "cert", primaryExpire)
	sub := l.addKey(1, f, "ed25519", "sign", subExpire)
	return f, sub, l.sign(10, sub+"!", data)
}

func flags(sign, certify bool) func(*packet.Signature) {
	return func(s *packet.Signature) {
		s.FlagsValid, s.FlagSign, s.FlagCertify = true, sign, certify
	}
}

func pgpShapes() []pgpShape {
	primaryRevoked := func(menu int) func(l *pgpLab, data []byte) ([]byte, []byte) {
		return func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			l.revoke(90, f, 0, menu)
			return l.export(f), sig
		}
	}
	subkeyRevoked := func(menu int) func(l *pgpLab, data []byte) ([]byte, []byte) {
		return func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, _, sig := signingSubkey(l, data, "never", "never")
			l.revoke(90, f, 1, menu)
			return l.export(f), sig
		}
	}
	withDirectKey := func(fill func(*packet.Signature)) func(l *pgpLab, data []byte) ([]byte, []byte) {
		return func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			dk := directKeySig(l.t, l.secrets(f)[f], 1, fill)
			return editKeyring(l.t, l.export(f)).afterPrimary(dk).bytes(), sig
		}
	}
	return []pgpShape{
		// Primary keys that sign.
		{name: "ed25519 primary, never expires", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			return l.export(f), sig
		}},
		{name: "rsa3072 primary", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "rsa3072", "sign", "never")
			return l.export(f), l.sign(10, f+"!", data)
		}},
		{name: "nistp256 primary", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "nistp256", "sign", "never")
			return l.export(f), l.sign(10, f+"!", data)
		}},
		{name: "dsa2048 primary", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "dsa2048", "sign", "never")
			return l.export(f), l.sign(10, f+"!", data)
		}},
		{name: "SHA-1 self-signatures", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			l.gpg(pgpEpoch, "", "--cert-digest-algo", "SHA1", "--quick-gen-key", alice, "ed25519", "sign", "never")
			f := l.fprs(alice)[0]
			return l.export(f), l.sign(10, f+"!", data)
		}},
		// Expiry on the user id's self-signature.
		{name: "expires by its user id's self-signature at day 60", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "sign", "60d")
			return l.export(f), l.sign(10, f+"!", data)
		}},
		{name: "expiry set at day 20 to day 30", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			l.gpg(pgpDay(20), "", "--quick-set-expire", f, "10d")
			return l.export(f), sig
		}},
		{name: "expiry at day 30 extended at day 25 to day 125", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "sign", "30d")
			sig := l.sign(10, f+"!", data)
			l.gpg(pgpDay(25), "", "--quick-set-expire", f, "100d")
			return l.export(f), sig
		}},
		{name: "expired at day 30, made never-expiring at day 50", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "sign", "30d")
			sig := l.sign(10, f+"!", data)
			l.gpg(pgpDay(50), "", "--quick-set-expire", f, "never")
			return l.export(f), sig
		}},
		// Revocations of the primary key, each reason.
		{name: "revoked at day 90, no reason specified", build: primaryRevoked(menuNoReason)},
		{name: "revoked at day 90, key compromised", build: primaryRevoked(menuCompromised)},
		{name: "revoked at day 90, key superseded", build: primaryRevoked(menuSuperseded)},
		{name: "revoked at day 90, key retired", build: primaryRevoked(menuRetired)},
		{name: "revoked at day 90 without a reason subpacket", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			rev := keyRevocation(l.t, l.secrets(f)[f], 90, nil)
			return editKeyring(l.t, l.export(f)).afterPrimary(rev).bytes(), sig
		}},
		{name: "revoked at day 90, reason user id no longer valid", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			rev := keyRevocation(l.t, l.secrets(f)[f], 90, reason(packet.UserIDNotValid))
			return editKeyring(l.t, l.export(f)).afterPrimary(rev).bytes(), sig
		}},
		{name: "revoked by the certificate gpg wrote at creation", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			rev, err := os.ReadFile(filepath.Join(l.home, "openpgp-revocs.d", f+".rev"))
			if err != nil {
				l.t.Fatal(err)
			}
			file := filepath.Join(l.t.TempDir(), "rev.asc")
			os.WriteFile(file, bytes.Replace(rev, []byte(":-----BEGIN"), []byte("-----BEGIN"), 1), 0o600)
			l.gpg(pgpDay(90), "", "--import", file)
			return l.export(f), sig
		}},
		{name: "keyring holding the key twice, the later copy revoked", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			before := l.export(f)
			l.revoke(90, f, 0, menuSuperseded)
			return append(before, l.export(f)...), sig
		}},
		{name: "key revocation by another key", refused: "designated revoker", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			m := l.gen(mallo, "ed25519", "sign", "never")
			other := l.secrets(m)[m]
			s := pgpSig(packet.SigTypeKeyRevocation, other, pgpDay(90), nil)
			pub := l.secrets(f)[f].PublicKey
			if err := s.RevokeKey(&pub, other, pgpCfg(pgpDay(90))); err != nil {
				l.t.Fatal(err)
			}
			return editKeyring(l.t, l.export(f)).afterPrimary(serialize(l.t, s)).bytes(), sig
		}},
		// Key flags and direct-key self-signatures on a v4 key.
		{name: "certify-only primary signs", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "cert", "never")
			return l.export(f), dataSig(l.t, l.secrets(f)[f], 10, data, nil)
		}},
		{name: "direct-key self-signature expires the key at day 30", build: withDirectKey(func(s *packet.Signature) { s.KeyLifetimeSecs = lifetime(30) })},
		{name: "direct-key self-signature limits the primary to certify", build: withDirectKey(flags(false, true))},
		{name: "direct-key self-signature lets a certify-only primary sign", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "cert", "never")
			pk := l.secrets(f)[f]
			dk := directKeySig(l.t, pk, 1, flags(true, true))
			return editKeyring(l.t, l.export(f)).afterPrimary(dk).bytes(), dataSig(l.t, pk, 10, data, nil)
		}},
		{name: "newer direct-key self-signature without expiry", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			pk := l.secrets(f)[f]
			e := editKeyring(l.t, l.export(f))
			e.afterPrimary(directKeySig(l.t, pk, 2, nil))
			e.afterPrimary(directKeySig(l.t, pk, 1, func(s *packet.Signature) { s.KeyLifetimeSecs = lifetime(30) }))
			return e.bytes(), sig
		}},
		{name: "newer direct-key self-signature with expiry at day 30", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			pk := l.secrets(f)[f]
			e := editKeyring(l.t, l.export(f))
			e.afterPrimary(directKeySig(l.t, pk, 2, func(s *packet.Signature) { s.KeyLifetimeSecs = lifetime(30) }))
			e.afterPrimary(directKeySig(l.t, pk, 1, nil))
			return e.bytes(), sig
		}},
		{name: "direct-key self-signature lasting to day 40 expires the key at day 30", build: withDirectKey(func(s *packet.Signature) {
			s.KeyLifetimeSecs, s.SigLifetimeSecs = lifetime(30), lifetime(39)
		})},
		{name: "direct-key self-signature dated before the key", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			dk := directKeySig(l.t, l.secrets(f)[f], -5, flags(false, true))
			return editKeyring(l.t, l.export(f)).afterPrimary(dk).bytes(), sig
		}},
		{name: "direct-key signature by another key", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			m := l.gen(mallo, "ed25519", "sign", "never")
			other := l.secrets(m)[m]
			s := pgpSig(packet.SigTypeDirectSignature, other, pgpDay(1), func(s *packet.Signature) { s.KeyLifetimeSecs = lifetime(30) })
			pub := l.secrets(f)[f].PublicKey
			if err := s.SignDirectKeyBinding(&pub, other, pgpCfg(pgpDay(1))); err != nil {
				l.t.Fatal(err)
			}
			return editKeyring(l.t, l.export(f)).afterPrimary(serialize(l.t, s)).bytes(), sig
		}},
		// User ids.
		{name: "newer user id's self-signature expires the key at day 30", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			pk := l.secrets(f)[f]
			const work = "Alice <alice@work.example>"
			return editKeyring(l.t, l.export(f)).addUserID(work, uidSig(l.t, pk, packet.SigTypePositiveCert, work, 5, func(s *packet.Signature) { s.KeyLifetimeSecs = lifetime(30) })).bytes(), sig
		}},
		{name: "primary user id never expires, a newer one expires at day 30", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			pk := l.secrets(f)[f]
			const work = "Alice <alice@work.example>"
			yes := true
			e := editKeyring(l.t, l.export(f))
			e.toUserID(0, uidSig(l.t, pk, packet.SigTypePositiveCert, alice, 3, func(s *packet.Signature) { s.IsPrimaryId = &yes }))
			e.addUserID(work, uidSig(l.t, pk, packet.SigTypePositiveCert, work, 5, func(s *packet.Signature) { s.KeyLifetimeSecs = lifetime(30) }))
			return e.bytes(), sig
		}},
		{name: "newer user id limits the key to certify", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			pk := l.secrets(f)[f]
			const work = "Alice <alice@work.example>"
			return editKeyring(l.t, l.export(f)).addUserID(work, uidSig(l.t, pk, packet.SigTypePositiveCert, work, 5, flags(false, true))).bytes(), sig
		}},
		{name: "one of two user ids revoked", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			l.gpg(pgpDay(2), "", "--quick-add-uid", f, "Alice <alice@work.example>")
			l.gpg(pgpDay(90), "", "--quick-revoke-uid", f, "Alice <alice@work.example>")
			return l.export(f), sig
		}},
		{name: "user id revoked, then certified again", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sig := signingPrimary(l, data)
			pk := l.secrets(f)[f]
			e := editKeyring(l.t, l.export(f))
			e.toUserID(0, uidSig(l.t, pk, packet.SigTypeCertificationRevocation, alice, 5, func(s *packet.Signature) { s.RevocationReason = reason(packet.UserIDNotValid) }))
			e.toUserID(0, uidSig(l.t, pk, packet.SigTypePositiveCert, alice, 6, nil))
			return e.bytes(), sig
		}},
		{name: "the only user id revoked at day 90",
			stricter: "no user id is valid",
			build: func(l *pgpLab, data []byte) ([]byte, []byte) {
				f, sig := signingPrimary(l, data)
				rev := uidSig(l.t, l.secrets(f)[f], packet.SigTypeCertificationRevocation, alice, 90, func(s *packet.Signature) { s.RevocationReason = reason(packet.UserIDNotValid) })
				return editKeyring(l.t, l.export(f)).toUserID(0, rev).bytes(), sig
			}},
		{name: "the only user id's newest self-signature ends at day 30",
			stricter: "no user id is valid",
			build: func(l *pgpLab, data []byte) ([]byte, []byte) {
				f, sig := signingPrimary(l, data)
				s := uidSig(l.t, l.secrets(f)[f], packet.SigTypePositiveCert, alice, 2, func(s *packet.Signature) { s.SigLifetimeSecs = lifetime(28) })
				return editKeyring(l.t, l.export(f)).toUserID(0, s).bytes(), sig
			}},
		// Signing subkeys.
		{name: "signing subkey", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, _, sig := signingSubkey(l, data, "never", "never")
			return l.export(f), sig
		}},
		{name: "rsa3072 signing subkey", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "cert", "never")
			sub := l.addKey(1, f, "rsa3072", "sign", "never")
			return l.export(f), l.sign(10, sub+"!", data)
		}},
		{name: "signing subkey expires at day 60", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, _, sig := signingSubkey(l, data, "never", "59d")
			return l.export(f), sig
		}},
		{name: "signing subkey's expiry set at day 20 to day 30", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sub, sig := signingSubkey(l, data, "never", "never")
			l.gpg(pgpDay(20), "", "--quick-set-expire", f, "10d", sub)
			return l.export(f), sig
		}},
		{name: "signing subkey revoked at day 90, no reason specified", build: subkeyRevoked(menuNoReason)},
		{name: "signing subkey revoked at day 90, key compromised", build: subkeyRevoked(menuCompromised)},
		{name: "signing subkey revoked at day 90, key superseded", build: subkeyRevoked(menuSuperseded)},
		{name: "signing subkey revoked at day 90, key retired", build: subkeyRevoked(menuRetired)},
		{name: "primary revoked at day 90, subkey signs", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, _, sig := signingSubkey(l, data, "never", "never")
			l.revoke(90, f, 0, menuSuperseded)
			return l.export(f), sig
		}},
		{name: "primary expires at day 60, subkey signs", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, _, sig := signingSubkey(l, data, "60d", "never")
			return l.export(f), sig
		}},
		{name: "direct-key self-signature expires the primary at day 30, subkey signs", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, _, sig := signingSubkey(l, data, "never", "never")
			dk := directKeySig(l.t, l.secrets(f)[f], 2, func(s *packet.Signature) { s.KeyLifetimeSecs = lifetime(30) })
			return editKeyring(l.t, l.export(f)).afterPrimary(dk).bytes(), sig
		}},
		{name: "direct-key self-signature limits the primary to certify, subkey signs", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, _, sig := signingSubkey(l, data, "never", "never")
			dk := directKeySig(l.t, l.secrets(f)[f], 2, flags(false, true))
			return editKeyring(l.t, l.export(f)).afterPrimary(dk).bytes(), sig
		}},
		{name: "signing subkey without a back-signature", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sub, sig := signingSubkey(l, data, "never", "never")
			sec := l.secrets(f)
			b := binding(l.t, sec[f], sec[sub], 1, flags(true, false), nil)
			return editKeyring(l.t, l.export(f)).replaceSubkeySigs(0, b).bytes(), sig
		}},
		{name: "signing subkey with a back-signature by another key", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sub, sig := signingSubkey(l, data, "never", "never")
			sec := l.secrets(f)
			b := binding(l.t, sec[f], sec[sub], 1, flags(true, false), sec[f])
			return editKeyring(l.t, l.export(f)).replaceSubkeySigs(0, b).bytes(), sig
		}},
		{name: "signing subkey rebound at day 20 for authentication", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sub, sig := signingSubkey(l, data, "never", "never")
			sec := l.secrets(f)
			b := binding(l.t, sec[f], sec[sub], 20, func(s *packet.Signature) { s.FlagsValid, s.FlagAuthenticate = true, true }, sec[sub])
			return editKeyring(l.t, l.export(f)).toSubkey(0, b).bytes(), sig
		}},
		{name: "subkey rebound at day 20 for authentication until day 30: gpg keeps only the newest binding", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, sub, sig := signingSubkey(l, data, "never", "never")
			sec := l.secrets(f)
			b := binding(l.t, sec[f], sec[sub], 20, func(s *packet.Signature) {
				s.FlagsValid, s.FlagAuthenticate, s.SigLifetimeSecs = true, true, lifetime(10)
			}, sec[sub])
			return editKeyring(l.t, l.export(f)).toSubkey(0, b).bytes(), sig
		}},
		{name: "authentication subkey signs", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "cert", "never")
			sub := l.addKey(1, f, "ed25519", "auth", "never")
			return l.export(f), dataSig(l.t, l.secrets(f)[sub], 10, data, nil)
		}},
		{name: "signature older than its subkey", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "cert", "never")
			sub := l.addKey(15, f, "ed25519", "sign", "never")
			return l.export(f), dataSig(l.t, l.secrets(f)[sub], 10, data, nil)
		}},
		{name: "two signing subkeys, the first revoked, the second signs", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, _, _ := signingSubkey(l, data, "never", "never")
			second := l.addKey(2, f, "ed25519", "sign", "never")
			sig := l.sign(10, second+"!", data)
			l.revoke(90, f, 1, menuSuperseded)
			return l.export(f), sig
		}},
		{name: "two signing subkeys, the first revoked, the first signs", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f, _, sig := signingSubkey(l, data, "never", "never")
			l.addKey(2, f, "ed25519", "sign", "never")
			l.revoke(90, f, 1, menuSuperseded)
			return l.export(f), sig
		}},
		// The data signature itself.
		{name: "signature expiring at day 40", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "sign", "never")
			return l.export(f), l.sign(10, f+"!", data, "--default-sig-expire", "30d")
		}},
		{name: "signature by a key made after it", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			f := l.gen(alice, "ed25519", "sign", "never")
			return l.export(f), dataSig(l.t, l.secrets(f)[f], -3, data, nil)
		}},
		{name: "v6 key", refused: "v6 key", build: func(l *pgpLab, data []byte) ([]byte, []byte) {
			e, err := openpgp.NewEntity("Alice", "", "alice@example.com", &packet.Config{V6Keys: true, Algorithm: packet.PubKeyAlgoEd25519, Time: func() time.Time { return pgpEpoch }})
			if err != nil {
				l.t.Fatal(err)
			}
			var kr, sig bytes.Buffer
			e.Serialize(&kr)
			if err := openpgp.ArmoredDetachSign(&sig, e, bytes.NewReader(data), &packet.Config{Time: func() time.Time { return pgpDay(10) }}); err != nil {
				l.t.Fatal(err)
			}
			return kr.Bytes(), sig.Bytes()
		}},
	}
}

// TestOpenPGPAgainstGPG is the differential table: every key shape, each
// signing a statement, judged by taskproof at each of pgpTimes and by the
// real gpg --verify with --faked-system-time at the same time. The verdicts
// must be equal, except where a row says why taskproof refuses more
// (stricter) or refuses the keyring (refused); docs/format.md#openpgp-keys.
func TestOpenPGPAgainstGPG(t *testing.T) {
	testenv.GPGHome(t) // skips where gpg is not installed
	shapes := pgpShapes()
	if len(shapes) < 40 {
		t.Fatalf("%d key shapes; the table holds at least 40", len(shapes))
	}
	payload := []byte(testStatement)
	data := testkeys.PAE(payload)
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			l := newPGPLab(t)
			keyring, sig := sh.build(l, data)
			kr, err := ParseKeyring(keyring)
			if sh.refused != "" {
				if !errors.Is(err, ErrTrust) || !strings.Contains(err.Error(), sh.refused) {
					t.Fatalf("keyring: err = %v, want a trust error naming %q", err, sh.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("keyring: %v", err)
			}
			trust, err := NewTrust(WithKeyring(kr))
			if err != nil {
				t.Fatal(err)
			}
			env := wrap(t, payload, dsse.Signature{Sig: sig})
			g := newGPGVerifier(t, keyring, data)
			stricterSeen := false
			for _, d := range pgpTimes {
				at := pgpDay(d).Add(12 * time.Hour)
				res := mustVerify(t, env, trust, at)
				ours := res.Status == OK
				theirs, status := g.accepts(sig, at)
				switch {
				case ours == theirs:
				case sh.stricter != "" && theirs && !ours && strings.Contains(res.Signatures[0].Reason, sh.stricter):
					stricterSeen = true
				default:
					if os.Getenv("TASKPROOF_PGP_DEBUG") != "" {
						cmd := exec.Command("gpg", "--batch", "--verbose", "--faked-system-time", fakedTime(at), "--verify", g.data+".asc", g.data)
						cmd.Env = append(os.Environ(), "GNUPGHOME="+g.home)
						out, _ := cmd.CombinedOutput()
						cmd = exec.Command("gpg", "--batch", "--list-packets", filepath.Join(g.home, "keyring.gpg"))
						out2, _ := cmd.CombinedOutput()
						t.Logf("%s\n%s", out, out2)
					}
					t.Errorf("day %d: taskproof accepts %v (%s %s), gpg accepts %v (%s)", d, ours, res.Status, res.Signatures[0].Reason, theirs, status)
				}
			}
			if sh.stricter != "" && !stricterSeen {
				t.Errorf("row says taskproof is stricter than gpg (%s), but the verdicts never differ", sh.stricter)
			}
		})
	}
}
