// Package sigstoretest runs an in-process Sigstore for tests: a Fulcio-like CA
// issuing certificates for any identity and issuer the test names, and a Rekor
// v1 client (sigstore-go's sign.RekorClient) logging entries with
// sigstore-go's VirtualSigstore keys, so that bundles are made by sigstore-go's
// real signing path (pkg/sign) and checked by its real verifier, offline.
// Test code only: nothing outside _test.go files imports it.
package sigstoretest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	jsoncanonicalizer "github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/go-openapi/runtime"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/rekor/pkg/generated/client/entries"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/types"
	_ "github.com/sigstore/rekor/pkg/types/dsse/v0.0.1" // the dsse entry type sign.Rekor proposes
	"github.com/sigstore/rekor/pkg/util"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/taskproof/taskproof/signer"
)

// Env is one in-process Sigstore: a CA (root and intermediate), a Rekor v1
// log key of its own, the VirtualSigstore's CT log and timestamp authority,
// and the trusted root naming them.
//
// The Rekor log is its own (not the VirtualSigstore's) because the
// VirtualSigstore signs every checkpoint for a tree of 42 entries while its
// inclusion proofs are for a tree of one: sigstore-go accepts that, the npm
// verifier @sigstore/verify (which proves inclusion against the checkpoint's
// size) rightly does not. Here the checkpoint, the inclusion proof and the
// signed entry timestamp all describe the same one-entry tree.
type Env struct {
	VS       *ca.VirtualSigstore
	CARoot   *x509.Certificate
	caKey    *ecdsa.PrivateKey
	CAInter  *x509.Certificate
	interKey *ecdsa.PrivateKey
	rekorKey *ecdsa.PrivateKey
	Root     *root.TrustedRoot
	// LogIndex is the index the Env's Rekor gives its entries (default 0).
	// Its log holds one entry, so only index 0 has an inclusion proof that
	// verifies: another index makes entries for a log that a trusted root
	// other than Root is to skip.
	LogIndex int64
}

// rekorHost is the Rekor log's host name: the trusted root's base URL and the
// checkpoint origin ("<host> - <tree ID>") agree on it.
const rekorHost = "rekor.localhost"

// New makes an Env; it fails the test on error.
func New(t testing.TB) *Env {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		t.Fatal(err)
	}
	inter, interKey, err := ca.GenerateFulcioIntermediate(rootCert, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	fulcio := &root.FulcioCertificateAuthority{
		Root: rootCert, Intermediates: []*x509.Certificate{inter},
		ValidityPeriodStart: time.Now().Add(-24 * time.Hour), ValidityPeriodEnd: time.Now().Add(24 * time.Hour),
		URI: "https://fulcio.test",
	}
	// VirtualSigstore's log IDs hold the hex text; a trusted root file holds
	// the raw key ID, so fix them for WriteTrustedRoot's JSON to read back.
	rawIDs := func(logs map[string]*root.TransparencyLog) map[string]*root.TransparencyLog {
		for k, l := range logs {
			if raw, err := hex.DecodeString(k); err == nil {
				l.ID = raw
			}
		}
		return logs
	}
	rekorKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rekorID, err := logID(rekorKey)
	if err != nil {
		t.Fatal(err)
	}
	rekor := map[string]*root.TransparencyLog{hex.EncodeToString(rekorID): {
		BaseURL: "https://" + rekorHost, ID: rekorID, ValidityPeriodStart: time.Now().Add(-time.Hour),
		HashFunc: crypto.SHA256, PublicKey: rekorKey.Public(), SignatureHashFunc: crypto.SHA256,
	}}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, []root.CertificateAuthority{fulcio},
		rawIDs(vs.CTLogs()), vs.TimestampingAuthorities(), rekor)
	if err != nil {
		t.Fatal(err)
	}
	return &Env{VS: vs, CARoot: rootCert, caKey: rootKey, CAInter: inter, interKey: interKey, rekorKey: rekorKey, Root: tr}
}

// logID is a transparency log's ID: SHA-256 of its public key's DER.
func logID(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(der)
	return sum[:], nil
}

// WriteTrustedRoot writes the trusted root JSON into dir and returns its path.
func (e *Env) WriteTrustedRoot(t testing.TB, dir string) string {
	t.Helper()
	b, err := e.Root.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "trusted_root.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Fulcio is a sign.CertificateProvider issuing a certificate for the keypair
// with Identity as a URI (or e-mail, when it has no scheme) subject
// alternative name and Issuer as the OIDC issuer extension, valid from
// NotBefore for Validity (zero: a minute ago, for ten minutes).
type Fulcio struct {
	Env              *Env
	Identity, Issuer string
	NotBefore        time.Time
	Validity         time.Duration
	// Profile, when set, changes the certificate template before it is
	// signed (its key usages, basic constraints): a certificate without
	// Fulcio's code-signing profile.
	Profile func(*x509.Certificate)
	Calls   int
}

// GetCertificate implements sign.CertificateProvider.
func (f *Fulcio) GetCertificate(_ context.Context, kp sign.Keypair, _ *sign.CertificateProviderOptions) ([]byte, error) {
	f.Calls++
	nb, validity := f.NotBefore, f.Validity
	if nb.IsZero() {
		nb = time.Now().Add(-time.Minute)
	}
	if validity == 0 {
		validity = 10 * time.Minute
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		NotBefore:    nb,
		NotAfter:     nb.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{
			{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}, Value: []byte(f.Issuer)},
		},
	}
	if u, err := url.Parse(f.Identity); err == nil && u.Scheme != "" {
		tmpl.URIs = []*url.URL{u}
	} else {
		tmpl.EmailAddresses = []string{f.Identity}
	}
	if f.Profile != nil {
		f.Profile(tmpl)
	}
	return x509.CreateCertificate(nil, tmpl, f.Env.CAInter, kp.GetPublicKey(), f.Env.interKey)
}

// Rekor returns a sign.Transparency logging into the Env's virtual Rekor
// through sigstore-go's real sign.Rekor (v1 API) and an in-process client.
func (e *Env) Rekor() sign.Transparency {
	return sign.NewRekor(&sign.RekorOptions{BaseURL: "https://rekor.test", Client: &rekorClient{e: e}})
}

// NoLog is a sign.Transparency that logs nothing (a bundle without tlog
// entries).
type NoLog struct{}

// GetTransparencyLogEntry implements sign.Transparency.
func (NoLog) GetTransparencyLogEntry(context.Context, []byte, *protobundle.Bundle) error { return nil }

// Signer returns a taskproof Sigstore signer using this Env's CA (as f says)
// and Rekor.
func (e *Env) Signer(t testing.TB, f *Fulcio, logs ...sign.Transparency) *signer.Sigstore {
	t.Helper()
	f.Env = e
	if len(logs) == 0 {
		logs = []sign.Transparency{e.Rekor()}
	}
	s, err := signer.NewSigstore(signer.SigstoreOptions{CertificateProvider: f, TransparencyLogs: logs, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type rekorClient struct{ e *Env }

func (c *rekorClient) CreateLogEntry(params *entries.CreateLogEntryParams, _ ...entries.ClientOption) (*entries.CreateLogEntryCreated, error) {
	ctx := context.Background()
	impl, err := types.CreateVersionedEntry(params.ProposedEntry)
	if err != nil {
		return nil, err
	}
	body, err := types.CanonicalizeEntry(ctx, impl)
	if err != nil {
		return nil, err
	}
	if _, err := models.UnmarshalProposedEntry(bytes.NewReader(body), runtime.JSONConsumer()); err != nil {
		return nil, err
	}
	rawID, err := logID(c.e.rekorKey)
	if err != nil {
		return nil, err
	}
	id := hex.EncodeToString(rawID)
	signer, err := signature.LoadECDSASignerVerifier(c.e.rekorKey, crypto.SHA256)
	if err != nil {
		return nil, err
	}
	// A log of one entry: index 0, tree size 1, root hash = the leaf hash
	// (RFC 6962), no proof hashes; the checkpoint signs that same tree.
	index := c.e.LogIndex
	now := time.Now().Unix()
	b64 := base64.StdEncoding.EncodeToString(body)
	payload, err := json.Marshal(tlog.RekorPayload{Body: b64, IntegratedTime: now, LogIndex: index, LogID: id})
	if err != nil {
		return nil, err
	}
	canonical, err := jsoncanonicalizer.Transform(payload)
	if err != nil {
		return nil, err
	}
	set, err := signer.SignMessage(bytes.NewReader(canonical))
	if err != nil {
		return nil, err
	}
	leaf := sha256.Sum256(append([]byte{0}, body...))
	checkpoint, err := util.CreateAndSignCheckpoint(ctx, rekorHost, 1, 1, leaf[:], signer)
	if err != nil {
		return nil, err
	}
	rootHash, treeSize, cp := hex.EncodeToString(leaf[:]), int64(1), string(checkpoint)
	proof := &models.InclusionProof{TreeSize: &treeSize, RootHash: &rootHash, LogIndex: &index, Hashes: []string{}, Checkpoint: &cp}
	uuid := hex.EncodeToString(body[:8])
	entry := models.LogEntryAnon{Body: b64, IntegratedTime: &now, LogID: &id, LogIndex: &index,
		Verification: &models.LogEntryAnonVerification{SignedEntryTimestamp: set, InclusionProof: proof}}
	return &entries.CreateLogEntryCreated{ETag: uuid, Payload: models.LogEntry{uuid: entry}}, nil
}

func (c *rekorClient) GetLogEntryByUUID(*entries.GetLogEntryByUUIDParams, ...entries.ClientOption) (*entries.GetLogEntryByUUIDOK, error) {
	return nil, errors.New("virtual rekor: no lookup")
}
