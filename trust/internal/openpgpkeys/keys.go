package openpgpkeys

import (
	"crypto"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// OpenPGP keys are judged as gpg judges them (docs/format.md#openpgp-keys):
// go-crypto reads the packets and checks each signature's mathematics, and
// the rules below decide, at the verifier's time, whether the key that made a
// data signature may sign. go-crypto's own Entity rules differ from gpg's on
// points that decide trust (a revocation's reason, a v4 key's direct-key
// self-signature), so they are not used. A key block these rules cannot judge
// is refused when the keyring is read (a trust error, exit 3), never guessed.

// Cert is one transferable public key of the keyring: the primary key and
// the self-signatures that verified when the keyring was read, per component.
type Cert struct {
	primary *packet.PublicKey
	fpr     string // primary key fingerprint, upper-case hex
	// revocations are the primary's key revocations (0x20) by itself. gpg
	// counts each, whatever its reason or date.
	revocations []*packet.Signature
	// direct are its direct-key self-signatures (0x1F), in keyring order.
	direct  []*packet.Signature
	uids    []*pgpUserID
	subkeys []*pgpSubkey
}

// pgpUserID is a user id and its self-certifications (0x10–0x13) and
// certification revocations (0x30), in keyring order.
type pgpUserID struct {
	id   string
	sigs []*packet.Signature
}

// pgpSubkey is a subkey with its binding signatures (0x18) and subkey
// revocations (0x28) by the primary.
type pgpSubkey struct {
	key         *packet.PublicKey
	fpr         string
	revocations []*packet.Signature
	bindings    []pgpBinding
}

// pgpBinding is a subkey binding signature and what its embedded primary key
// binding signature (0x19, the back-signature) is.
type pgpBinding struct {
	sig     *packet.Signature
	backsig backsig
}

type backsig int8

const (
	backsigNone backsig = iota
	backsigInvalid
	backsigValid
)

// Key is a key of a certificate that may have made a data signature: its
// primary key (sub nil) or one of its subkeys.
type Key struct {
	cert *Cert
	sub  *pgpSubkey
}

func (k Key) public() *packet.PublicKey {
	if k.sub != nil {
		return k.sub.key
	}
	return k.cert.primary
}

// Keyring holds the certificates of the verifier's keyrings, one per
// primary fingerprint (a key given twice is merged, as gpg merges it on
// import), with an index of every primary key and subkey by fingerprint and
// by key id.
type Keyring struct {
	certs []*Cert
	byFpr map[string]Key
	byID  map[uint64][]Key
	// revocationCerts are the key revocations (0x20) read before any key of
	// their block: revocation certificates, applied to the keys they revoke
	// once every keyring is read (ApplyRevocationCerts).
	revocationCerts []*packet.Signature
}

// NewKeyring is an empty keyring: Add reads keyrings into it, then
// ApplyRevocationCerts.
func NewKeyring() *Keyring {
	return &Keyring{byFpr: map[string]Key{}, byID: map[uint64][]Key{}}
}

// FprHex writes a fingerprint as gpg does: upper-case hex.
func FprHex(b []byte) string { return fmt.Sprintf("%X", b) }

// keyringRefusal is a key block taskproof does not judge, with why: the
// caller reads it as a trust error.
func keyringRefusal(fpr, format string, args ...any) error {
	what := "keyring"
	if fpr != "" {
		what = "openpgp key " + fpr
	}
	return fmt.Errorf("%s: %s (docs/format.md#openpgp-keys)", what, fmt.Sprintf(format, args...))
}

// Add reads the packets of one keyring (binary) into k. Each signature on a
// key is checked once here; judging a key at a time is then arithmetic.
func (k *Keyring) Add(body io.Reader) error {
	pr := packet.NewReader(body)
	var (
		cert *Cert
		uid  *pgpUserID // the user id signatures attach to; nil after a user attribute
		sub  *pgpSubkey
		// where is the component that signatures now follow: "key", "user id",
		// "user attribute" or "subkey".
		where string
	)
	for {
		p, err := pr.NextWithUnsupported()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			fpr := ""
			if cert != nil {
				fpr = cert.fpr
			}
			return keyringRefusal(fpr, "unreadable packet: %v", err)
		}
		if up, ok := p.(*packet.UnsupportedPacket); ok {
			switch inner := up.IncompletePacket.(type) {
			case *packet.PublicKey:
				if !inner.IsSubkey || cert == nil {
					return keyringRefusal("", "a primary key go-crypto cannot read: %v", up.Error)
				}
				// gpg holds a subkey of an algorithm it lacks invalid; this
				// one is never a signing key, and its signatures stay with it.
				sub, where = &pgpSubkey{}, "subkey"
				cert.subkeys = append(cert.subkeys, sub)
				continue
			case *packet.PrivateKey:
				if !inner.IsSubkey || cert == nil {
					return keyringRefusal("", "a primary key go-crypto cannot read: %v", up.Error)
				}
				sub, where = &pgpSubkey{}, "subkey"
				cert.subkeys = append(cert.subkeys, sub)
				continue
			}
			if _, isSig := up.IncompletePacket.(*packet.Signature); isSig && (where == "user id" || where == "user attribute") {
				// A certification go-crypto cannot read (a v3 one, or one
				// with an unknown critical subpacket) is left out, as gpg
				// leaves out those it cannot read.
				continue
			}
			fpr := ""
			if cert != nil {
				fpr = cert.fpr
			}
			return keyringRefusal(fpr, "a packet go-crypto cannot read after a %s (%v), which gpg may read", orKeyring(where), up.Error)
		}
		switch pkt := p.(type) {
		case *packet.PrivateKey:
			p = &pkt.PublicKey
		}
		switch pkt := p.(type) {
		case *packet.PublicKey:
			if !pkt.IsSubkey {
				if pkt.Version != 4 {
					return keyringRefusal(FprHex(pkt.Fingerprint), "a v%d key: gpg, whose reading taskproof follows, judges v4 keys", pkt.Version)
				}
				fpr := FprHex(pkt.Fingerprint)
				if prev, ok := k.byFpr[fpr]; ok && prev.sub == nil {
					cert = prev.cert
				} else if ok {
					return keyringRefusal(fpr, "a primary key that is also another key's subkey")
				} else {
					cert = &Cert{primary: pkt, fpr: fpr}
					k.certs = append(k.certs, cert)
					k.index(Key{cert: cert})
				}
				uid, sub, where = nil, nil, "key"
				continue
			}
			if cert == nil {
				return keyringRefusal("", "a subkey before any primary key")
			}
			fpr := FprHex(pkt.Fingerprint)
			sub = nil
			for _, s := range cert.subkeys {
				if s.fpr == fpr {
					sub = s
				}
			}
			if sub == nil {
				if _, taken := k.byFpr[fpr]; taken {
					return keyringRefusal(cert.fpr, "subkey %s is also another key", fpr)
				}
				sub = &pgpSubkey{key: pkt, fpr: fpr}
				cert.subkeys = append(cert.subkeys, sub)
				k.index(Key{cert: cert, sub: sub})
			}
			uid, where = nil, "subkey"
		case *packet.UserId:
			if cert == nil {
				return keyringRefusal("", "a user id before any primary key")
			}
			uid = nil
			for _, u := range cert.uids {
				if u.id == pkt.Id {
					uid = u
				}
			}
			if uid == nil {
				uid = &pgpUserID{id: pkt.Id}
				cert.uids = append(cert.uids, uid)
			}
			sub, where = nil, "user id"
		case *packet.UserAttribute:
			if cert == nil {
				return keyringRefusal("", "a user attribute before any primary key")
			}
			uid, sub, where = nil, nil, "user attribute"
		case *packet.Signature:
			if cert == nil {
				// A revocation certificate (gpg --generate-revocation, or the
				// one gpg keeps in openpgp-revocs.d) is a key revocation alone.
				if pkt.SigType != packet.SigTypeKeyRevocation {
					return keyringRefusal("", "a signature of type 0x%02x before any key: the one signature a keyring may hold alone is a key revocation (0x20), a revocation certificate; import the file into gpg and export the key (gpg --import FILE; gpg --export --armor KEYID)", uint8(pkt.SigType))
				}
				k.revocationCerts = append(k.revocationCerts, pkt)
				continue
			}
			if err := cert.addSignature(pkt, where, uid, sub); err != nil {
				return err
			}
		default:
			fpr := ""
			if cert != nil {
				fpr = cert.fpr
			}
			return keyringRefusal(fpr, "unexpected %T packet in a keyring", p)
		}
	}
}

// ApplyRevocationCerts applies each revocation certificate to the key it
// revokes, as gpg's import does: one whose issuer is a primary key of the
// keyring must verify as that key's revocation of itself (else the keyring is
// refused: a published revocation that did not take effect would be worse
// than none), and is then one of the key's revocations, hard at every time.
// One whose key the keyring does not hold changes nothing (that key is not
// trusted), as gpg skips it.
func (k *Keyring) ApplyRevocationCerts() error {
	for _, s := range k.revocationCerts {
		var cert *Cert
		for _, key := range k.lookup(s) {
			if key.sub == nil {
				cert = key.cert
			}
		}
		if cert == nil {
			continue
		}
		if !cert.selfSigSound(s, cert.primary) || cert.primary.VerifyRevocationSignature(s) != nil {
			return keyringRefusal(cert.fpr, "a revocation certificate for this key that does not verify with it (a designated revoker's, or a damaged one)")
		}
		cert.revocations = append(cert.revocations, s)
	}
	return nil
}

func orKeyring(where string) string {
	if where == "" {
		return "keyring start"
	}
	return where
}

func (k *Keyring) index(key Key) {
	pub := key.public()
	k.byFpr[FprHex(pub.Fingerprint)] = key
	k.byID[pub.KeyId] = append(k.byID[pub.KeyId], key)
}

// Signature types a key block holds, by the component they follow.
var pgpSigPlaces = map[string][]packet.SignatureType{
	"key":            {packet.SigTypeDirectSignature, packet.SigTypeKeyRevocation},
	"user id":        {packet.SigTypeGenericCert, packet.SigTypePersonaCert, packet.SigTypeCasualCert, packet.SigTypePositiveCert, packet.SigTypeCertificationRevocation},
	"user attribute": {packet.SigTypeGenericCert, packet.SigTypePersonaCert, packet.SigTypeCasualCert, packet.SigTypePositiveCert, packet.SigTypeCertificationRevocation},
	"subkey":         {packet.SigTypeSubkeyBinding, packet.SigTypeSubkeyRevocation},
}

// addSignature files a signature under the component it follows, keeping the
// self-signatures that verify (gpg ignores the others).
func (c *Cert) addSignature(s *packet.Signature, where string, uid *pgpUserID, sub *pgpSubkey) error {
	placed := false
	for _, t := range pgpSigPlaces[where] {
		placed = placed || s.SigType == t
	}
	if !placed {
		return keyringRefusal(c.fpr, "a signature of type 0x%02x after a %s", uint8(s.SigType), where)
	}
	self := s.IssuerKeyId != nil && *s.IssuerKeyId == c.primary.KeyId
	if !self {
		if s.SigType == packet.SigTypeKeyRevocation {
			return keyringRefusal(c.fpr, "a key revocation by another key (a designated revoker)")
		}
		return nil // a certification by someone else decides nothing here
	}
	if !c.selfSigSound(s, c.primary) {
		return nil
	}
	switch where {
	case "key":
		if s.SigType == packet.SigTypeKeyRevocation {
			if c.primary.VerifyRevocationSignature(s) == nil {
				c.revocations = append(c.revocations, s)
			}
		} else if c.primary.VerifyDirectKeySignature(s) == nil {
			c.direct = append(c.direct, s)
		}
	case "user id":
		if c.primary.VerifyUserIdSignature(uid.id, c.primary, s) == nil {
			uid.sigs = append(uid.sigs, s)
		}
	case "subkey":
		if sub.key == nil {
			return nil
		}
		// The binding's own signature over primary and subkey; the
		// back-signature is judged apart (gpg requires it of a subkey only
		// when the subkey makes a data signature).
		if c.primary.VerifySubkeyRevocationSignature(s, sub.key) != nil {
			return nil
		}
		if s.SigType == packet.SigTypeSubkeyRevocation {
			sub.revocations = append(sub.revocations, s)
		} else {
			sub.bindings = append(sub.bindings, pgpBinding{sig: s, backsig: c.backsig(s, sub.key)})
		}
	}
	return nil
}

// selfSigSound holds what gpg asks of a signature besides its mathematics: a
// v4 signature, no critical notation (gpg knows none by default), a digest
// other than MD5, and not older than the key that made it.
func (c *Cert) selfSigSound(s *packet.Signature, by *packet.PublicKey) bool {
	if s.Version != 4 || s.Hash == crypto.MD5 {
		return false
	}
	for _, n := range s.Notations {
		if n.IsCritical {
			return false
		}
	}
	return !s.CreationTime.Before(by.CreationTime)
}

// backsig judges a binding's embedded primary key binding signature, made by
// the subkey over the primary key and the subkey.
func (c *Cert) backsig(binding *packet.Signature, sub *packet.PublicKey) backsig {
	e := binding.EmbeddedSignature
	if e == nil {
		return backsigNone
	}
	if e.SigType != packet.SigTypePrimaryKeyBinding || !c.selfSigSound(e, sub) {
		return backsigInvalid
	}
	h, err := e.PrepareVerify()
	if err != nil {
		return backsigInvalid
	}
	if c.primary.SerializeForHash(h) != nil || sub.SerializeForHash(h) != nil {
		return backsigInvalid
	}
	if sub.VerifySignature(h, e) != nil {
		return backsigInvalid
	}
	return backsigValid
}

// lookup returns the keys a data signature names: by its issuer fingerprint
// when a key has it, else by its issuer key id (gpg's order).
func (k *Keyring) lookup(s *packet.Signature) []Key {
	if len(s.IssuerFingerprint) > 0 {
		if key, ok := k.byFpr[FprHex(s.IssuerFingerprint)]; ok && key.public() != nil {
			return []Key{key}
		}
	}
	if s.IssuerKeyId == nil {
		return nil
	}
	var out []Key
	for _, key := range k.byID[*s.IssuerKeyId] {
		if key.public() != nil {
			out = append(out, key)
		}
	}
	return out
}

// Key usage as gpg reads it from a key flags subpacket, or from the key's
// algorithm when no self-signature gives one.
type pgpUsage struct {
	set  bool // a key flags subpacket decided it
	sign bool
}

func usageOf(s *packet.Signature) pgpUsage {
	if s == nil || !s.FlagsValid {
		return pgpUsage{}
	}
	return pgpUsage{set: true, sign: s.FlagSign}
}

// algoCanSign is whether gpg lets a key of the algorithm make data
// signatures: the signing algorithms gpg reads (RSA, RSA sign-only, DSA,
// ECDSA, EdDSA); a key of another algorithm never signs for it.
func algoCanSign(a packet.PublicKeyAlgorithm) bool {
	switch a {
	case packet.PubKeyAlgoRSA, packet.PubKeyAlgoRSASignOnly, packet.PubKeyAlgoDSA, packet.PubKeyAlgoECDSA, packet.PubKeyAlgoEdDSA:
		return true
	}
	return false
}

// sigExpiredAt is whether a signature's own lifetime ended at t (gpg: expired
// when its expiration is at or before t).
func sigExpiredAt(s *packet.Signature, t int64) bool {
	return s.SigLifetimeSecs != nil && *s.SigLifetimeSecs != 0 && s.CreationTime.Unix()+int64(*s.SigLifetimeSecs) <= t
}

// newest is the signature gpg takes of sigs: the latest created, a later one
// in keyring order winning a tie.
func newest(sigs []*packet.Signature, keep func(*packet.Signature) bool) *packet.Signature {
	var best *packet.Signature
	for _, s := range sigs {
		if keep != nil && !keep(s) {
			continue
		}
		if best == nil || !s.CreationTime.Before(best.CreationTime) {
			best = s
		}
	}
	return best
}

// primaryState is what the primary key is at a time, as gpg computes it.
type primaryState struct {
	valid bool
	// anchored: a direct-key self-signature or a user id whose newest
	// self-signature is a valid certification speaks for the key at the time
	// (docs/format.md#openpgp-keys: taskproof asks this, gpg does not).
	anchored bool
	revoked  *packet.Signature
	expires  int64 // 0: never
	usage    pgpUsage
	// from names the self-signature usage and expiry came from, for reasons.
	from    string
	primary string // the primary user id, "" when none is valid
}

func (c *Cert) primaryAt(t int64) primaryState {
	var st primaryState
	if len(c.revocations) > 0 {
		st.revoked = c.revocations[0]
	}
	created := c.primary.CreationTime.Unix()
	expiresAfter := func(s *packet.Signature) int64 {
		if s.KeyLifetimeSecs == nil || *s.KeyLifetimeSecs == 0 {
			return 0
		}
		return created + int64(*s.KeyLifetimeSecs)
	}
	expirySeen := false
	if dk := newest(c.direct, func(s *packet.Signature) bool { return !sigExpiredAt(s, t) }); dk != nil {
		st.anchored = true
		if u := usageOf(dk); u.set {
			st.usage, st.from = u, "its direct-key self-signature"
		}
		if e := expiresAfter(dk); e != 0 {
			st.expires, expirySeen = e, true
		}
	}
	type uidState struct {
		created       int64
		sig           *packet.Signature
		id            string
		primaryFlag   bool
		usage         pgpUsage
		expires       int64
		revokedOrDead bool
	}
	var states []uidState
	for _, u := range c.uids {
		s := newest(u.sigs, nil)
		if s == nil {
			continue
		}
		st.valid = true
		us := uidState{sig: s, id: u.id}
		if s.SigType == packet.SigTypeCertificationRevocation || sigExpiredAt(s, t) {
			us.revokedOrDead = true
			states = append(states, us)
			continue
		}
		st.anchored = true
		us.created = s.CreationTime.Unix()
		us.primaryFlag = s.IsPrimaryId != nil && *s.IsPrimaryId
		us.usage = usageOf(s)
		us.expires = expiresAfter(s)
		states = append(states, us)
	}
	if !st.usage.set {
		var date int64
		for _, u := range states {
			if !u.revokedOrDead && u.usage.set && (!st.usage.set || u.created > date) {
				st.usage, date, st.from = u.usage, u.created, fmt.Sprintf("the self-signature of user id %q", u.id)
			}
		}
	}
	if !expirySeen {
		var date int64
		found := false
		for _, u := range states {
			if !u.revokedOrDead && u.expires != 0 && (!found || u.created > date) {
				st.expires, date, found = u.expires, u.created, true
			}
		}
	}
	// The primary user id: the latest of those flagged primary, else the
	// latest; never a revoked one.
	var best *uidState
	for i := range states {
		u := &states[i]
		if u.revokedOrDead {
			continue
		}
		if best == nil || (u.primaryFlag && !best.primaryFlag) || (u.primaryFlag == best.primaryFlag && u.created > best.created) {
			best = u
		}
	}
	if best != nil {
		st.primary = best.id
	}
	// gpg imports no key without a user id that has a valid self-signature,
	// and at t accepts no self-signature of a primary key created after t.
	if created > t {
		st.valid, st.anchored = false, false
	}
	return st
}

// bindingAt is the binding gpg takes for s at t: its newest binding (gpg
// keeps no other when it imports the key), unless that one's own lifetime
// ended by t.
func (s *pgpSubkey) bindingAt(t int64) *pgpBinding {
	var best *pgpBinding
	for i := range s.bindings {
		b := &s.bindings[i]
		if best == nil || !b.sig.CreationTime.Before(best.sig.CreationTime) {
			best = b
		}
	}
	if best == nil || sigExpiredAt(best.sig, t) {
		return nil
	}
	return best
}

var pgpReasons = map[packet.ReasonForRevocation]string{
	packet.NoReason:       "no reason specified",
	packet.KeySuperseded:  "key superseded",
	packet.KeyCompromised: "key compromised",
	packet.KeyRetired:     "key retired",
	packet.UserIDNotValid: "user id no longer valid",
}

func revocationText(s *packet.Signature) string {
	reason := "no reason given"
	if s.RevocationReason != nil {
		if r, ok := pgpReasons[*s.RevocationReason]; ok {
			reason = r
		} else {
			reason = fmt.Sprintf("reason %d", uint8(*s.RevocationReason))
		}
	}
	return fmt.Sprintf("revoked on %s (%s; every revocation counts at every time)", day(s.CreationTime.Unix()), reason)
}

func day(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339) }

// Judge decides whether key may have made the data signature sig at t
// (unix seconds), as gpg --verify does with its clock at t: "" when it may,
// else why not. The signature's mathematics are checked before.
func (key Key) Judge(sig *packet.Signature, t int64) string {
	c := key.cert
	st := c.primaryAt(t)
	created := c.primary.CreationTime.Unix()
	switch {
	case created > t:
		return fmt.Sprintf("created %s, after the time judged", day(created))
	case !st.valid:
		return "no user id with a valid self-signature"
	case st.revoked != nil:
		return revocationText(st.revoked)
	case st.expires != 0 && st.expires < t:
		return fmt.Sprintf("expired %s", day(st.expires))
	case !st.anchored:
		return "no user id is valid (revoked, or its self-signature expired) and no direct-key self-signature speaks for the key"
	}
	signer := c.primary
	usage, from := st.usage, st.from
	if key.sub != nil {
		signer = key.sub.key
		subCreated := signer.CreationTime.Unix()
		if subCreated > t {
			return fmt.Sprintf("subkey %s created %s, after the time judged", key.sub.fpr, day(subCreated))
		}
		if len(key.sub.revocations) > 0 {
			return "subkey " + key.sub.fpr + " " + revocationText(key.sub.revocations[0])
		}
		b := key.sub.bindingAt(t)
		if b == nil {
			return fmt.Sprintf("subkey %s has no valid binding signature", key.sub.fpr)
		}
		if l := b.sig.KeyLifetimeSecs; l != nil && *l != 0 && subCreated+int64(*l) < t {
			return fmt.Sprintf("subkey %s expired %s", key.sub.fpr, day(subCreated+int64(*l)))
		}
		usage, from = usageOf(b.sig), "its binding signature"
		if ok, why := mayDataSign(signer, usage, from); !ok {
			return "subkey " + key.sub.fpr + " " + why
		}
		switch b.backsig {
		case backsigNone:
			return fmt.Sprintf("signing subkey %s is not cross-certified (its binding has no back-signature)", key.sub.fpr)
		case backsigInvalid:
			return fmt.Sprintf("signing subkey %s has an invalid back-signature", key.sub.fpr)
		}
	} else if ok, why := mayDataSign(signer, usage, from); !ok {
		return why
	}
	if signer.CreationTime.After(sig.CreationTime) {
		return fmt.Sprintf("the signing key (created %s) is newer than the signature (%s)", day(signer.CreationTime.Unix()), day(sig.CreationTime.Unix()))
	}
	if sigExpiredAt(sig, t) {
		return fmt.Sprintf("the signature expired %s", day(sig.CreationTime.Unix()+int64(*sig.SigLifetimeSecs)))
	}
	return ""
}

// mayDataSign is gpg's usage check of a data signature's key.
func mayDataSign(k *packet.PublicKey, u pgpUsage, from string) (bool, string) {
	if !algoCanSign(k.PubKeyAlgo) {
		return false, fmt.Sprintf("is not a signing key (algorithm %d)", k.PubKeyAlgo)
	}
	if u.set && !u.sign {
		return false, "is not a signing key: the key flags of " + from + " do not include signing"
	}
	return true, ""
}

// VerifyData checks the data signature sig over data with the keys it names:
// the key whose mathematics verify it, or nil.
func (k *Keyring) VerifyData(sig *packet.Signature, data []byte) (*Key, error) {
	cands := k.lookup(sig)
	if len(cands) == 0 {
		return nil, ErrUnknownKey
	}
	var last error
	for _, key := range cands {
		h, err := sig.PrepareVerify()
		if err != nil {
			return nil, err
		}
		h.Write(data)
		if last = key.public().VerifySignature(h, sig); last == nil {
			return &key, nil
		}
	}
	return nil, last
}

// ErrUnknownKey is VerifyData's error when no key of the keyring has the
// signature's issuer.
var ErrUnknownKey = errors.New("no key in the keyring has the signature's issuer")

// PrimaryUserID is the key's primary user id at t, "" when none is valid.
func (c *Cert) PrimaryUserID(t int64) string {
	return strings.TrimSpace(c.primaryAt(t).primary)
}

// Empty reports whether the keyring read neither a key nor a revocation
// certificate.
func (k *Keyring) Empty() bool { return len(k.certs) == 0 && len(k.revocationCerts) == 0 }

// Certs are the keyring's certificates, one per primary fingerprint.
func (k *Keyring) Certs() []*Cert { return k.certs }

// Cert is the certificate of the key.
func (k Key) Cert() *Cert { return k.cert }

// Fingerprint is the certificate's primary key fingerprint, upper-case hex.
func (c *Cert) Fingerprint() string { return c.fpr }

// Primary is the certificate's primary key.
func (c *Cert) Primary() *packet.PublicKey { return c.primary }

// Keys are the certificate's primary key and the subkeys whose key was read.
func (c *Cert) Keys() []*packet.PublicKey {
	keys := []*packet.PublicKey{c.primary}
	for _, s := range c.subkeys {
		if s.key != nil {
			keys = append(keys, s.key)
		}
	}
	return keys
}
