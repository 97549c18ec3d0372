package attest_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notesref"
)

// The ecosystem interop suite (testdata/interop/ecosystem/README.md): what
// taskproof writes verifies with the tools people run — cosign v2 and v3,
// go-securesystemslib's default envelope verifier (in-toto-golang's),
// python-securesystemslib — and what cosign writes verifies with taskproof;
// one tampered byte fails everywhere. The external programs are the pinned
// releases `make interop` builds from the Go module proxy (cosign,
// in-toto-golang) and Debian's python3-securesystemslib; a test skips,
// saying which, when one is absent.

// The pinned releases (the Makefile's interop target builds the same).
const (
	cosignV2     = "v2.6.5"
	cosignV3     = "v3.1.3"
	inTotoGolang = "v0.11.0"
)

// interopTools is where `make interop` puts the pinned binaries:
// $TASKPROOF_INTEROP_TOOLS, else the user cache directory's
// taskproof/interop.
func interopTools() string {
	if d := os.Getenv("TASKPROOF_INTEROP_TOOLS"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "taskproof", "interop")
}

// interopTool returns the pinned binary name@version, or "" when it is not
// built.
func interopTool(name, version, binary string) string {
	p := filepath.Join(interopTools(), name+"-"+version, binary)
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return p
	}
	return ""
}

// cosigns returns the pinned cosign binaries present, by version, and logs
// the ones that are not.
func cosigns(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, v := range []string{cosignV2, cosignV3} {
		if p := interopTool("cosign", v, "cosign"); p != "" {
			out[v] = p
		} else {
			t.Logf("cosign %s not built in %s (`make interop` builds it from the Go module proxy): its column is not checked", v, interopTools())
		}
	}
	return out
}

// needCosign is cosigns, skipping the test when neither pinned cosign is
// built.
func needCosign(t *testing.T) map[string]string {
	t.Helper()
	out := cosigns(t)
	if len(out) == 0 {
		t.Skipf("no pinned cosign in %s: `make interop` builds cosign %s and %s from the Go module proxy (minutes), then runs this suite", interopTools(), cosignV2, cosignV3)
	}
	return out
}

// sslibVerifier returns a function running testdata/interop/ecosystem's
// sslib_verify.py with a python3 that imports securesystemslib (Debian's
// python3-securesystemslib: /usr/bin/python3), or nil, logged, when there is
// none.
func sslibVerifier(t *testing.T) func(key, envelope string) (string, bool) {
	t.Helper()
	script := filepath.Join(testenv.RepoRoot(t), "testdata", "interop", "ecosystem", "sslib_verify.py")
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(p)
		if err != nil || exec.Command(path, "-c", "import securesystemslib.keys, cryptography").Run() != nil {
			continue
		}
		return func(key, envelope string) (string, bool) { return run(t, nil, path, script, key, envelope) }
	}
	t.Log("python-securesystemslib not found (apt-get install python3-securesystemslib): its column is not checked")
	return nil
}

// run runs an external program with a bounded time and returns its combined
// output and whether it exited 0.
func run(t *testing.T, env []string, name string, args ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s %v: timed out", name, args)
	}
	return strings.TrimSpace(string(out)), err == nil
}

// ecoKey is one raw key of the suite: PEM files of its private and public
// key, and (made by cosign import-key-pair) cosign's encrypted private key.
type ecoKey struct {
	name, private, public, cosignKey string
	pub                              crypto.PublicKey
}

// newEcoKeys makes an ed25519, a P-256 and an RSA-3072 key under dir.
func newEcoKeys(t *testing.T, dir string) []ecoKey {
	t.Helper()
	ed, edPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := rsa.GenerateKey(rand.Reader, 3072)
	if err != nil {
		t.Fatal(err)
	}
	var out []ecoKey
	for _, k := range []struct {
		name string
		priv crypto.Signer
		pub  crypto.PublicKey
	}{{"ed25519", edPriv, ed}, {"p256", ec, &ec.PublicKey}, {"rsa", rk, &rk.PublicKey}} {
		der, err := x509.MarshalPKCS8PrivateKey(k.priv)
		if err != nil {
			t.Fatal(err)
		}
		pubDER, err := x509.MarshalPKIXPublicKey(k.pub)
		if err != nil {
			t.Fatal(err)
		}
		e := ecoKey{name: k.name, private: filepath.Join(dir, k.name+".key.pem"), public: filepath.Join(dir, k.name+".pub.pem"), pub: k.pub}
		if err := os.WriteFile(e.private, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(e.public, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// cosignImport makes cosign's encrypted key of k (empty password) with
// `cosign import-key-pair`, so that cosign signs with the same key.
func (k *ecoKey) cosignImport(t *testing.T, cosign string) {
	t.Helper()
	prefix := strings.TrimSuffix(k.private, ".key.pem") + "-cosign"
	if out, ok := run(t, []string{"COSIGN_PASSWORD="}, cosign, "import-key-pair", "--key", k.private, "--output-key-prefix", prefix, "-y"); !ok {
		t.Fatalf("cosign import-key-pair %s: %s", k.name, out)
	}
	k.cosignKey = prefix + ".key"
}

// goSSLibVerify verifies envelope line with go-securesystemslib's default
// path — LoadKey of the PEM public key, its SignerVerifier, and
// dsse.NewEnvelopeVerifier — which in-toto-golang's envelope verification is
// built on. No keyid is passed: the verifier's own (LoadKey's) decides which
// signatures it considers.
func goSSLibVerify(t *testing.T, publicPEM string, line []byte) error {
	t.Helper()
	b, err := os.ReadFile(publicPEM)
	if err != nil {
		t.Fatal(err)
	}
	k, err := signerverifier.LoadKey(b)
	if err != nil {
		t.Fatal(err)
	}
	var v ssldsse.Verifier
	switch k.KeyType {
	case signerverifier.ED25519KeyType:
		v, err = signerverifier.NewED25519SignerVerifierFromSSLibKey(k)
	case signerverifier.ECDSAKeyType:
		v, err = signerverifier.NewECDSASignerVerifierFromSSLibKey(k)
	case signerverifier.RSAKeyType:
		v, err = signerverifier.NewRSAPSSSignerVerifierFromSSLibKey(k)
	}
	if err != nil {
		t.Fatal(err)
	}
	var env ssldsse.Envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return err
	}
	ev, err := ssldsse.NewEnvelopeVerifier(v)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ev.Verify(context.Background(), &env)
	return err
}

// ecoFile writes b to a new file in dir and returns its path.
func ecoFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// predicateTypeOf is the predicateType of an envelope or bundle line's
// statement.
func predicateTypeOf(t *testing.T, line []byte) string {
	t.Helper()
	dl := noteline.Decode(line)
	if dl.Envelope == nil {
		t.Fatalf("line does not decode: %v\n%s", dl.Err, line)
	}
	var st struct {
		PredicateType string `json:"predicateType"`
	}
	if err := json.Unmarshal(dl.Envelope.Payload, &st); err != nil {
		t.Fatal(err)
	}
	return st.PredicateType
}

// tamperPayload flips one byte of the statement an envelope or bundle line
// holds (inside a string value, so that it stays JSON) and re-encodes it.
func tamperPayload(t *testing.T, line []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	env := m
	if de, ok := m["dsseEnvelope"].(map[string]any); ok {
		env = de
	}
	p, err := base64.StdEncoding.DecodeString(env["payload"].(string))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(p, []byte(`"name":"`))
	if i < 0 {
		t.Fatalf("no subject name in %s", p)
	}
	p[i+len(`"name":"`)] ^= 0x01
	env["payload"] = base64.StdEncoding.EncodeToString(p)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// taskproofVerify runs `taskproof verify --format json` on commit c with args
// (the trust) and returns the report's conclusion and exit code.
func taskproofVerify(t *testing.T, dir string, c gitref.Hash, args ...string) (string, int, string) {
	t.Helper()
	cmd := exec.Command(testenv.Binary(t), append(append([]string{"verify", "--format", "json"}, args...), string(c))...)
	cmd.Dir, cmd.Env = dir, testenv.GitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Conclusion string `json:"conclusion"`
	}
	_ = json.Unmarshal(stdout.Bytes(), &rep)
	return rep.Conclusion, code, stdout.String() + stderr.String()
}

// taskproofAttest runs `taskproof attest tick` on r.c1 (T001 and T002,
// regression_only) with args and returns the note's lines.
func taskproofAttest(t *testing.T, r *tickRepo, args ...string) [][]byte {
	t.Helper()
	base := []string{"attest", "tick", "--commit", string(r.c1), "--verdict", "regression_only", "--regression-reason", "planning_work"}
	cmd := exec.Command(testenv.Binary(t), append(base, args...)...)
	cmd.Dir, cmd.Env = r.dir, testenv.GitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("taskproof attest tick %v: %v\n%s", args, err, out)
	}
	return noteline.Split([]byte(note(t, r.dir, r.c1)))
}

// setNoteLines replaces c's note with lines, with the real git.
func setNoteLines(t *testing.T, dir string, c gitref.Hash, lines [][]byte) {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), bytes.NewReader(append(bytes.Join(lines, []byte("\n")), '\n'))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, dir, "notes", "--ref", notesref.Default, "add", "-f", "-C", strings.TrimSpace(string(out)), string(c))
}

// TestEcosystemTaskproofEnvelopes: taskproof's raw-key envelopes (ed25519,
// P-256, RSA in PSS and, with --rsa-scheme pkcs1v15, in PKCS#1 v1.5) verify
// with cosign v2 and v3 verify-blob-attestation, go-securesystemslib's
// default verifier and python-securesystemslib, each where its signature
// scheme allows, and with taskproof; one tampered payload byte fails in every
// one of them.
func TestEcosystemTaskproofEnvelopes(t *testing.T) {
	cos := cosigns(t)
	python := sslibVerifier(t)
	dir := t.TempDir()
	keys := newEcoKeys(t, dir)
	type want struct{ cosign, gossl, python bool }
	cases := []struct {
		key    ecoKey
		scheme string
		want   want
	}{
		{keys[0], "", want{true, true, true}},
		{keys[1], "", want{true, true, true}},
		// RSA: no one scheme serves both sides. PSS (the default, as
		// securesystemslib signs) is what securesystemslib verifies; cosign
		// verifies PKCS#1 v1.5 only, and go-securesystemslib PSS only.
		{keys[2], "", want{false, true, true}},
		{keys[2], "pkcs1v15", want{true, false, true}},
	}
	for _, tc := range cases {
		name := tc.key.name
		if tc.scheme != "" {
			name += "-" + tc.scheme
		}
		t.Run(name, func(t *testing.T) {
			r := newTickRepo(t)
			args := []string{"--signer", "raw", "--key", tc.key.private}
			if tc.scheme != "" {
				args = append(args, "--rsa-scheme", tc.scheme)
			}
			lines := taskproofAttest(t, r, args...)
			if len(lines) != 4 {
				t.Fatalf("note has %d lines, want 4", len(lines))
			}
			if concl, code, out := taskproofVerify(t, r.dir, r.c1, "--key", tc.key.public); code != 0 || concl != "success" {
				t.Fatalf("taskproof verify: exit %d, %s\n%s", code, concl, out)
			}
			check := func(label string, line []byte, ok bool) {
				t.Helper()
				p := ecoFile(t, t.TempDir(), "envelope.json", line)
				pt := predicateTypeOf(t, line)
				for v, cosign := range cos {
					out, got := run(t, nil, cosign, "verify-blob-attestation", "--key", tc.key.public, "--signature", p,
						"--type", pt, "--check-claims=false", "--insecure-ignore-tlog")
					if got != (ok && tc.want.cosign) {
						t.Errorf("%s: cosign %s verify-blob-attestation: ok=%v, want %v\n%s", label, v, got, ok && tc.want.cosign, out)
					}
				}
				err := goSSLibVerify(t, tc.key.public, line)
				if (err == nil) != (ok && tc.want.gossl) {
					t.Errorf("%s: go-securesystemslib EnvelopeVerifier: %v, want ok=%v", label, err, ok && tc.want.gossl)
				}
				if python != nil {
					out, got := python(tc.key.public, p)
					if got != (ok && tc.want.python) {
						t.Errorf("%s: python-securesystemslib: ok=%v, want %v\n%s", label, got, ok && tc.want.python, out)
					}
				}
			}
			for i, line := range lines {
				check(fmt.Sprintf("line %d", i+1), line, true)
			}
			tampered := tamperPayload(t, lines[0])
			check("tampered", tampered, false)
			setNoteLines(t, r.dir, r.c1, append([][]byte{tampered}, lines[1:]...))
			if concl, code, out := taskproofVerify(t, r.dir, r.c1, "--key", tc.key.public); code != 1 || concl != "failure" || !strings.Contains(out, "bad_signature") {
				t.Errorf("taskproof verify of a tampered envelope: exit %d, %s, want 1 with bad_signature\n%s", code, concl, out)
			}
		})
	}
}

// TestEcosystemKeyIDChoice measures which keyid lets the most verifiers
// check a taskproof envelope with no keyid flag (docs/format.md#interoperability):
// the same P-256 signature under an empty keyid, securesystemslib's, the hex
// SHA-256 of the key's DER and Sigstore's publicKey.hint form. taskproof
// writes securesystemslib's and must be among the forms accepted by the most;
// in-toto-golang's `in-toto key id` (when built) computes the same value.
func TestEcosystemKeyIDChoice(t *testing.T) {
	cos := cosigns(t)
	python := sslibVerifier(t)
	dir := t.TempDir()
	k := newEcoKeys(t, dir)[1]
	r := newTickRepo(t)
	line := taskproofAttest(t, r, "--signer", "raw", "--key", k.private)[0]
	env, err := dsse.DecodeEnvelope(line)
	if err != nil {
		t.Fatal(err)
	}
	written := env.Signatures[0].KeyID
	der, _ := x509.MarshalPKIXPublicKey(k.pub)
	sum := sha256.Sum256(der)
	sslib, err := keys.SSLibKeyID(k.pub, "ecdsa-sha2-nistp256")
	if err != nil {
		t.Fatal(err)
	}
	if written != sslib {
		t.Fatalf("taskproof wrote keyid %s, want securesystemslib's %s", written, sslib)
	}
	if bin := interopTool("in-toto-golang", inTotoGolang, "in-toto-golang"); bin != "" {
		out, ok := run(t, nil, bin, "key", "id", k.public)
		if !ok || out != sslib {
			t.Errorf("in-toto-golang key id: %q (ok=%v), want %s", out, ok, sslib)
		}
	} else {
		t.Logf("in-toto-golang %s not built in %s (`make interop`): its keyid is not compared", inTotoGolang, interopTools())
	}
	forms := []struct{ name, keyid string }{
		{"empty", ""},
		{"securesystemslib", sslib},
		{"hex SHA-256 of the DER", hex.EncodeToString(sum[:])},
		{"Sigstore hint", base64.StdEncoding.EncodeToString(sum[:])},
	}
	counts := map[string]int{}
	best := 0
	for _, f := range forms {
		e := *env
		e.Signatures = []dsse.Signature{{KeyID: f.keyid, Sig: env.Signatures[0].Sig}}
		b, err := json.Marshal(map[string]any{"payloadType": e.PayloadType, "payload": base64.StdEncoding.EncodeToString(e.Payload),
			"signatures": []any{map[string]any{"keyid": f.keyid, "sig": base64.StdEncoding.EncodeToString(e.Signatures[0].Sig)}}})
		if err != nil {
			t.Fatal(err)
		}
		p := ecoFile(t, t.TempDir(), "envelope.json", b)
		var accepted []string
		for v, cosign := range cos {
			if _, ok := run(t, nil, cosign, "verify-blob-attestation", "--key", k.public, "--signature", p,
				"--type", predicateTypeOf(t, b), "--check-claims=false", "--insecure-ignore-tlog"); ok {
				accepted = append(accepted, "cosign "+v)
			}
		}
		if goSSLibVerify(t, k.public, b) == nil {
			accepted = append(accepted, "go-securesystemslib")
		}
		if python != nil {
			if _, ok := python(k.public, p); ok {
				accepted = append(accepted, "python-securesystemslib")
			}
		}
		setNoteLines(t, r.dir, r.c1, [][]byte{b})
		if _, code, _ := taskproofVerify(t, r.dir, r.c1, "--key", k.public); code == 0 {
			accepted = append(accepted, "taskproof")
		}
		counts[f.name] = len(accepted)
		best = max(best, len(accepted))
		t.Logf("keyid %-24s accepted by %d: %s", f.name, len(accepted), strings.Join(accepted, ", "))
	}
	if counts["securesystemslib"] != best {
		t.Errorf("securesystemslib's keyid is accepted by %d verifiers, another form by %d: %v", counts["securesystemslib"], best, counts)
	}
}

// TestEcosystemTaskproofBundles: taskproof's keyless Sigstore bundles verify
// with cosign verify-blob-attestation against the same trusted root,
// identity and issuer, with the gitCommit subject checked (--digest COMMIT
// --digestAlg gitCommit); another commit, a tampered payload byte and another
// identity fail.
func TestEcosystemTaskproofBundles(t *testing.T) {
	cos := needCosign(t)
	r := newTickRepo(t)
	env := sigstoretest.New(t)
	tickSigstore(t, r, env)
	lines := noteline.Split([]byte(note(t, r.dir, r.c1)))
	dir := t.TempDir()
	root := env.WriteTrustedRoot(t, dir)
	for _, tc := range []struct {
		name     string
		line     []byte
		commit   gitref.Hash
		identity string
		ok       bool
	}{
		{"task-verification line", lines[0], r.c1, sgIdentity, true},
		{"VSA line", lines[1], r.c1, sgIdentity, true},
		{"another commit", lines[0], r.c2, sgIdentity, false},
		{"tampered payload", tamperPayload(t, lines[0]), r.c1, sgIdentity, false},
		{"another identity", lines[0], r.c1, strings.Replace(sgIdentity, "main", "attacker", 1), false},
	} {
		p := ecoFile(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".json", tc.line)
		for v, cosign := range cos {
			args := []string{"verify-blob-attestation", "--bundle", p, "--trusted-root", root,
				"--certificate-identity", tc.identity, "--certificate-oidc-issuer", sgIssuer, "--insecure-ignore-sct",
				"--type", predicateTypeOf(t, tc.line), "--digest", string(tc.commit), "--digestAlg", "gitCommit"}
			if v == cosignV2 {
				args = append(args, "--new-bundle-format")
			}
			if out, ok := run(t, nil, cosign, args...); ok != tc.ok {
				t.Errorf("%s: cosign %s: ok=%v, want %v\n%s", tc.name, v, ok, tc.ok, out)
			}
		}
	}
}

// TestEcosystemCosignOutputs: what cosign writes for taskproof's statements
// with a key — v2's DSSE envelope (--output-signature) and bundle
// (--new-bundle-format), v3's default bundle and its envelope
// (--new-bundle-format=false), for P-256, RSA (cosign signs PKCS#1 v1.5) and
// ed25519 keys (cosign signs Ed25519ph) — verifies with `taskproof verify
// --key cosign.pub`, credited to that key; a tampered byte fails.
func TestEcosystemCosignOutputs(t *testing.T) {
	cos := needCosign(t)
	importer := cos[cosignV3]
	if importer == "" {
		importer = cos[cosignV2]
	}
	dir := t.TempDir()
	keys := newEcoKeys(t, dir)
	// The statements: taskproof's own, written unsigned and signed by cosign.
	r := newTickRepo(t)
	unsigned := taskproofAttest(t, r, "--unsigned")
	var statements []string
	for i, l := range unsigned {
		e, err := dsse.DecodeEnvelope(l)
		if err != nil {
			t.Fatal(err)
		}
		statements = append(statements, ecoFile(t, dir, fmt.Sprintf("statement-%d.json", i), e.Payload))
	}
	type output struct {
		version, form string
		args          func(out string) []string
	}
	var outputs []output
	if cos[cosignV2] != "" {
		outputs = append(outputs,
			output{cosignV2, "envelope", func(out string) []string { return []string{"--tlog-upload=false", "--output-signature", out} }},
			output{cosignV2, "bundle", func(out string) []string {
				return []string{"--tlog-upload=false", "--new-bundle-format", "--bundle", out}
			}})
	}
	if cos[cosignV3] != "" {
		outputs = append(outputs,
			output{cosignV3, "bundle", func(out string) []string {
				return []string{"--use-signing-config=false", "--tlog-upload=false", "--bundle", out}
			}},
			output{cosignV3, "envelope", func(out string) []string {
				return []string{"--use-signing-config=false", "--tlog-upload=false", "--new-bundle-format=false", "--output-signature", out}
			}})
	}
	for i := range keys {
		keys[i].cosignImport(t, importer)
	}
	for _, k := range keys {
		for _, o := range outputs {
			t.Run(k.name+"/cosign-"+o.version+"-"+o.form, func(t *testing.T) {
				var lines [][]byte
				for i, st := range statements {
					out := filepath.Join(t.TempDir(), fmt.Sprintf("out-%d.json", i))
					args := append([]string{"attest-blob", "--key", k.cosignKey, "--statement", st, "-y"}, o.args(out)...)
					if msg, ok := run(t, []string{"COSIGN_PASSWORD="}, cos[o.version], args...); !ok {
						t.Fatalf("cosign %s attest-blob: %s", o.version, msg)
					}
					b, err := os.ReadFile(out)
					if err != nil {
						t.Fatal(err)
					}
					var buf bytes.Buffer
					if err := json.Compact(&buf, b); err != nil {
						t.Fatalf("cosign output is not JSON: %v\n%s", err, b)
					}
					lines = append(lines, buf.Bytes())
				}
				setNoteLines(t, r.dir, r.c1, lines)
				concl, code, out := taskproofVerify(t, r.dir, r.c1, "--key", k.public)
				if code != 0 || concl != "success" {
					t.Fatalf("taskproof verify --key: exit %d, %s\n%s", code, concl, out)
				}
				if !strings.Contains(out, `"kind": "raw"`) {
					t.Errorf("no raw signer credited:\n%s", out)
				}
				// A tampered bundle's hint names the trusted key: a bad
				// signature. cosign's envelopes carry an empty keyid, so a
				// tampered one names no key: untrusted (docs/format.md#signatures-dsse-v1).
				want := "signature" // bad_signature
				if o.form == "envelope" {
					want = "untrusted_signer"
				}
				setNoteLines(t, r.dir, r.c1, append([][]byte{tamperPayload(t, lines[0])}, lines[1:]...))
				concl, code, out = taskproofVerify(t, r.dir, r.c1, "--key", k.public)
				if code != 1 || concl != "failure" || !strings.Contains(out, `"code": "`+want+`"`) {
					t.Errorf("tampered: exit %d, %s; want 1 with %s\n%s", code, concl, want, out)
				}
			})
		}
	}
}
