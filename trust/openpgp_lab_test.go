package trust

import (
	"bytes"
	"crypto"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/trust/internal/openpgpkeys"
)

// pgpLab makes OpenPGP keys and signatures with the real gpg in an isolated
// GNUPGHOME, its clock set by --faked-system-time, and builds with go-crypto
// only the packets gpg cannot make (direct-key self-signatures, bindings
// without back-signatures, data signatures by keys gpg will not sign with).
type pgpLab struct {
	t    *testing.T
	home string
	env  []string
}

// pgpEpoch is when the lab's keys are made; the differential table's times
// are days after it.
var pgpEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func pgpDay(d int) time.Time { return pgpEpoch.Add(time.Duration(d) * 24 * time.Hour) }

func newPGPLab(t *testing.T) *pgpLab {
	t.Helper()
	home := testenv.GPGHome(t)
	return &pgpLab{t: t, home: home, env: []string{"GNUPGHOME=" + home}}
}

func fakedTime(at time.Time) string { return at.UTC().Format("20060102T150405") + "!" }

// gpg runs gpg in the lab's home with its clock at at and returns stdout.
func (l *pgpLab) gpg(at time.Time, stdin string, args ...string) string {
	l.t.Helper()
	full := append([]string{"--batch", "--no-tty", "--pinentry-mode", "loopback", "--passphrase", "", "--faked-system-time", fakedTime(at)}, args...)
	cmd := exec.Command("gpg", full...)
	cmd.Env = append(os.Environ(), l.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		l.t.Fatalf("gpg %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// fprs lists the fingerprints of key fpr's primary key and subkeys, in order.
func (l *pgpLab) fprs(fpr string) []string {
	var out []string
	for _, line := range strings.Split(l.gpg(time.Now(), "", "--with-colons", "--list-keys", fpr), "\n") {
		if strings.HasPrefix(line, "fpr:") {
			out = append(out, strings.Split(line, ":")[9])
		}
	}
	return out
}

// gen makes a primary key at day 0: gpg --quick-gen-key UID ALGO USAGE EXPIRE.
func (l *pgpLab) gen(uid, algo, usage, expire string) string {
	l.gpg(pgpEpoch, "", "--quick-gen-key", uid, algo, usage, expire)
	out := l.gpg(pgpEpoch, "", "--with-colons", "--list-keys", uid)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "fpr:") {
			return strings.Split(line, ":")[9]
		}
	}
	l.t.Fatal("no fingerprint")
	return ""
}

// addKey adds a subkey at day d and returns its fingerprint.
func (l *pgpLab) addKey(d int, fpr, algo, usage, expire string) string {
	l.gpg(pgpDay(d), "", "--quick-add-key", fpr, algo, usage, expire)
	f := l.fprs(fpr)
	return f[len(f)-1]
}

// revoke revokes the primary key (sub 0) or its sub-th subkey at day d with
// gpg's menu reason (0 no reason, 1 compromised, 2 superseded, 3 no longer
// used), as a person answers --edit-key's prompts.
func (l *pgpLab) revoke(d int, fpr string, sub int, menuReason int) {
	script := ""
	if sub > 0 {
		script = fmt.Sprintf("key %d\n", sub)
	}
	script += fmt.Sprintf("revkey\ny\n%d\n\ny\nsave\n", menuReason)
	l.gpg(pgpDay(d), script, "--command-fd", "0", "--edit-key", fpr)
}

// sign makes a detached binary signature over data at day d with the key
// named by keySpec (a fingerprint; "FPR!" for exactly that subkey).
func (l *pgpLab) sign(d int, keySpec string, data []byte, extra ...string) []byte {
	dir := l.t.TempDir()
	file := filepath.Join(dir, "data")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		l.t.Fatal(err)
	}
	args := append([]string{"--yes", "--armor", "--digest-algo", "SHA256", "-u", keySpec}, extra...)
	l.gpg(pgpDay(d), "", append(args, "--detach-sign", "-o", file+".asc", file)...)
	sig, err := os.ReadFile(file + ".asc")
	if err != nil {
		l.t.Fatal(err)
	}
	return sig
}

// export is the key's binary public keyring, as `gpg --export` writes it.
func (l *pgpLab) export(fpr string) []byte {
	return []byte(l.gpg(time.Now(), "", "--export", fpr))
}

// secrets returns the key's private primary key and subkeys by fingerprint.
func (l *pgpLab) secrets(fpr string) map[string]*packet.PrivateKey {
	out := map[string]*packet.PrivateKey{}
	pr := packet.NewReader(strings.NewReader(l.gpg(time.Now(), "", "--export-secret-keys", fpr)))
	for {
		p, err := pr.Next()
		if err != nil {
			break
		}
		if k, ok := p.(*packet.PrivateKey); ok {
			out[openpgpkeys.FprHex(k.Fingerprint)] = k
		}
	}
	if len(out) == 0 {
		l.t.Fatal("no secret keys exported")
	}
	return out
}

// pgpSign makes a v4 signature of type typ by priv at at, filled by fill,
// and signs it with do (which hashes what the type covers).
func pgpSig(typ packet.SignatureType, priv *packet.PrivateKey, at time.Time, fill func(*packet.Signature)) *packet.Signature {
	s := &packet.Signature{
		Version: 4, SigType: typ, PubKeyAlgo: priv.PubKeyAlgo, Hash: crypto.SHA256,
		CreationTime: at, IssuerKeyId: &priv.KeyId, IssuerFingerprint: priv.Fingerprint, IssuerKeyVersion: 4,
	}
	if fill != nil {
		fill(s)
	}
	return s
}

func pgpCfg(at time.Time) *packet.Config {
	return &packet.Config{Time: func() time.Time { return at }}
}

func lifetime(d int) *uint32 {
	v := uint32(d * 24 * 3600)
	return &v
}

func serialize(t *testing.T, s *packet.Signature) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.Serialize(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// directKeySig is a direct-key self-signature (0x1F) by the primary at day d.
func directKeySig(t *testing.T, primary *packet.PrivateKey, d int, fill func(*packet.Signature)) []byte {
	t.Helper()
	s := pgpSig(packet.SigTypeDirectSignature, primary, pgpDay(d), fill)
	if err := s.SignDirectKeyBinding(&primary.PublicKey, primary, pgpCfg(pgpDay(d))); err != nil {
		t.Fatal(err)
	}
	return serialize(t, s)
}

// uidSig is a self-certification (0x13) or, with typ 0x30, a certification
// revocation of uid by the primary at day d.
func uidSig(t *testing.T, primary *packet.PrivateKey, typ packet.SignatureType, uid string, d int, fill func(*packet.Signature)) []byte {
	t.Helper()
	s := pgpSig(typ, primary, pgpDay(d), fill)
	if err := s.SignUserId(uid, &primary.PublicKey, primary, pgpCfg(pgpDay(d))); err != nil {
		t.Fatal(err)
	}
	return serialize(t, s)
}

// keyRevocation is a key revocation (0x20) at day d; reason nil writes none.
func keyRevocation(t *testing.T, primary *packet.PrivateKey, d int, reason *packet.ReasonForRevocation) []byte {
	t.Helper()
	s := pgpSig(packet.SigTypeKeyRevocation, primary, pgpDay(d), func(s *packet.Signature) { s.RevocationReason = reason })
	if err := s.RevokeKey(&primary.PublicKey, primary, pgpCfg(pgpDay(d))); err != nil {
		t.Fatal(err)
	}
	return serialize(t, s)
}

// binding is a subkey binding signature (0x18) at day d with flags, its
// back-signature made by backsigBy (nil: none).
func binding(t *testing.T, primary, sub *packet.PrivateKey, d int, fill func(*packet.Signature), backsigBy *packet.PrivateKey) []byte {
	t.Helper()
	s := pgpSig(packet.SigTypeSubkeyBinding, primary, pgpDay(d), fill)
	if backsigBy != nil {
		e := pgpSig(packet.SigTypePrimaryKeyBinding, backsigBy, pgpDay(d), nil)
		if err := e.CrossSignKey(&sub.PublicKey, &primary.PublicKey, backsigBy, pgpCfg(pgpDay(d))); err != nil {
			t.Fatal(err)
		}
		s.EmbeddedSignature = e
	}
	if err := s.SignKey(&sub.PublicKey, primary, pgpCfg(pgpDay(d))); err != nil {
		t.Fatal(err)
	}
	return serialize(t, s)
}

// dataSig is a detached binary signature over data by priv at day d, armored:
// what gpg makes, for keys gpg refuses to sign with.
func dataSig(t *testing.T, priv *packet.PrivateKey, d int, data []byte, fill func(*packet.Signature)) []byte {
	t.Helper()
	s := pgpSig(packet.SigTypeBinary, priv, pgpDay(d), fill)
	h, err := s.PrepareSign(pgpCfg(pgpDay(d)))
	if err != nil {
		t.Fatal(err)
	}
	h.Write(data)
	if err := s.Sign(h, priv, pgpCfg(pgpDay(d))); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := armor.Encode(&b, "PGP SIGNATURE", nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(serialize(t, s))
	w.Close()
	b.WriteByte('\n')
	return b.Bytes()
}

// rawPacket is one OpenPGP packet of a keyring, header included: the lab
// edits keyrings packet by packet.
type rawPacket struct {
	tag   byte
	bytes []byte
}

const (
	tagSignature = 2
	tagPublicKey = 6
	tagUserID    = 13
	tagSubkey    = 14
)

func splitPackets(t *testing.T, data []byte) []rawPacket {
	t.Helper()
	var out []rawPacket
	for len(data) > 0 {
		b0 := data[0]
		if b0&0x80 == 0 {
			t.Fatalf("not a packet header: %#x", b0)
		}
		var tag byte
		var hdr, n int
		if b0&0x40 != 0 {
			tag = b0 & 0x3f
			l0 := int(data[1])
			switch {
			case l0 < 192:
				hdr, n = 2, l0
			case l0 < 224:
				hdr, n = 3, (l0-192)<<8+int(data[2])+192
			case l0 == 255:
				hdr, n = 6, int(data[2])<<24|int(data[3])<<16|int(data[4])<<8|int(data[5])
			default:
				t.Fatal("partial body length in a keyring")
			}
		} else {
			tag = (b0 >> 2) & 0xf
			switch b0 & 3 {
			case 0:
				hdr, n = 2, int(data[1])
			case 1:
				hdr, n = 3, int(data[1])<<8|int(data[2])
			case 2:
				hdr, n = 5, int(data[1])<<24|int(data[2])<<16|int(data[3])<<8|int(data[4])
			default:
				hdr, n = 1, len(data)-1
			}
		}
		out = append(out, rawPacket{tag: tag, bytes: data[:hdr+n]})
		data = data[hdr+n:]
	}
	return out
}

func joinPackets(ps []rawPacket) []byte {
	var b []byte
	for _, p := range ps {
		b = append(b, p.bytes...)
	}
	return b
}

// edit is a keyring being changed packet by packet.
type edit struct {
	t  *testing.T
	ps []rawPacket
}

func editKeyring(t *testing.T, keyring []byte) *edit {
	return &edit{t: t, ps: splitPackets(t, keyring)}
}

func (e *edit) bytes() []byte { return joinPackets(e.ps) }

// nth is the index of the n-th (0-based) packet with tag.
func (e *edit) nth(tag byte, n int) int {
	for i, p := range e.ps {
		if p.tag == tag {
			if n == 0 {
				return i
			}
			n--
		}
	}
	e.t.Fatalf("no packet %d with tag %d", n, tag)
	return -1
}

// insertAfter puts sig right after packet i.
func (e *edit) insertAfter(i int, sig []byte) *edit {
	p := rawPacket{tag: tagSignature, bytes: sig}
	e.ps = append(e.ps[:i+1], append([]rawPacket{p}, e.ps[i+1:]...)...)
	return e
}

// afterPrimary adds a signature directly after the primary key.
func (e *edit) afterPrimary(sig []byte) *edit { return e.insertAfter(e.nth(tagPublicKey, 0), sig) }

// toUserID adds a signature after the n-th user id (after its signatures).
func (e *edit) toUserID(n int, sig []byte) *edit {
	i := e.nth(tagUserID, n)
	for i+1 < len(e.ps) && e.ps[i+1].tag == tagSignature {
		i++
	}
	return e.insertAfter(i, sig)
}

// addUserID appends a user id packet (and its signatures) before the subkeys.
func (e *edit) addUserID(uid string, sigs ...[]byte) *edit {
	b := append([]byte{0xc0 | tagUserID, byte(len(uid))}, uid...) // a new-format header; user ids here are short
	i := len(e.ps) - 1
	for j, p := range e.ps {
		if p.tag == tagSubkey {
			i = j - 1
			break
		}
	}
	add := []rawPacket{{tag: tagUserID, bytes: b}}
	for _, s := range sigs {
		add = append(add, rawPacket{tag: tagSignature, bytes: s})
	}
	e.ps = append(e.ps[:i+1], append(add, e.ps[i+1:]...)...)
	return e
}

// replaceSubkeySigs puts sigs in place of the n-th subkey's signatures.
func (e *edit) replaceSubkeySigs(n int, sigs ...[]byte) *edit {
	i := e.nth(tagSubkey, n)
	j := i + 1
	for j < len(e.ps) && e.ps[j].tag == tagSignature {
		j++
	}
	var add []rawPacket
	for _, s := range sigs {
		add = append(add, rawPacket{tag: tagSignature, bytes: s})
	}
	e.ps = append(e.ps[:i+1], append(add, e.ps[j:]...)...)
	return e
}

// toSubkey adds a signature after the n-th subkey's signatures.
func (e *edit) toSubkey(n int, sig []byte) *edit {
	i := e.nth(tagSubkey, n)
	for i+1 < len(e.ps) && e.ps[i+1].tag == tagSignature {
		i++
	}
	return e.insertAfter(i, sig)
}

// gpgVerdict is whether the real gpg --verify, given keyring and with its
// clock at at, reports the signature good: GOODSIG, which gpg reports only
// without EXPKEYSIG, REVKEYSIG, EXPSIG, BADSIG and ERRSIG (a key usage or
// cross-certification refusal is an ERRSIG). The status lines are returned.
type gpgVerifier struct {
	t    *testing.T
	home string
	data string
}

func newGPGVerifier(t *testing.T, keyring, data []byte) *gpgVerifier {
	t.Helper()
	home := testenv.GPGHome(t)
	v := &gpgVerifier{t: t, home: home, data: filepath.Join(home, "data")}
	if err := os.WriteFile(v.data, data, 0o600); err != nil {
		t.Fatal(err)
	}
	kr := filepath.Join(home, "keyring.gpg")
	if err := os.WriteFile(kr, keyring, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("gpg", "--batch", "--no-tty", "--import", kr)
	cmd.Env = append(os.Environ(), "GNUPGHOME="+home)
	cmd.CombinedOutput() // a key gpg refuses to import makes its verdict "no key"
	return v
}

func (v *gpgVerifier) accepts(sig []byte, at time.Time) (bool, string) {
	v.t.Helper()
	sigFile := v.data + ".asc"
	if err := os.WriteFile(sigFile, sig, 0o600); err != nil {
		v.t.Fatal(err)
	}
	cmd := exec.Command("gpg", "--batch", "--no-tty", "--status-fd", "1", "--faked-system-time", fakedTime(at), "--verify", sigFile, v.data)
	cmd.Env = append(os.Environ(), "GNUPGHOME="+v.home)
	out, _ := cmd.Output()
	var status []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "[GNUPG:]" {
			switch f[1] {
			case "GOODSIG", "EXPKEYSIG", "REVKEYSIG", "EXPSIG", "BADSIG", "ERRSIG", "NO_PUBKEY", "KEYEXPIRED", "KEYREVOKED":
				status = append(status, f[1])
			}
		}
	}
	return strings.Contains(string(out), "[GNUPG:] GOODSIG "), strings.Join(status, " ")
}
