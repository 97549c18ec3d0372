package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/internal/testenv"
)

// closedURL is an http URL on 127.0.0.1 where nothing listens: a port the
// kernel gave a listener that is closed again, so a connection is refused at
// once (no network, no hang).
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// silentURL is an http URL on 127.0.0.1 whose listener accepts connections
// and never answers: only a timeout ends a request to it.
func silentURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String()
}

// fakeJWT is a syntactically valid, unsigned OIDC identity token with a
// verified e-mail subject: enough for sigstore-go to read a subject and call
// Fulcio (which would refuse it; here no Fulcio answers).
const fakeJWT = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + // {"alg":"none","typ":"JWT"}
	// {"iss":"https://issuer.example","sub":"dev@example.invalid","email":"dev@example.invalid","email_verified":true,"aud":"sigstore","exp":4102444800}
	"eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwic3ViIjoiZGV2QGV4YW1wbGUuaW52YWxpZCIsImVtYWlsIjoiZGV2QGV4YW1wbGUuaW52YWxpZCIsImVtYWlsX3ZlcmlmaWVkIjp0cnVlLCJhdWQiOiJzaWdzdG9yZSIsImV4cCI6NDEwMjQ0NDgwMH0." +
	"c2ln"

// `attest tick --signer sigstore` offline: missing URLs or token are usage
// errors (exit 2), an unset token variable or unreadable token file is a
// trust/config error (exit 3), and an unreachable Fulcio fails with exit 3
// quickly (connection refused, bounded by --sigstore-timeout) — never a hang,
// never a note.
func TestSigstoreAttestOfflineRefusals(t *testing.T) {
	r := newCLIRepo(t)
	down, silent := closedURL(t), silentURL(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(fakeJWT+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key, _ := sshKeyFile(t, "")
	base := []string{"attest", "tick", "--commit", r.c1, "--verdict", "verified", "--signer", "sigstore", "--sigstore-timeout", "2s"}
	tests := []struct {
		name string
		env  []string
		args []string
		code int
		msg  string
	}{
		{"no URLs", []string{"TOK=" + fakeJWT}, []string{"--oidc-token-env", "TOK"}, 2, "needs --fulcio-url and --rekor-url"},
		{"no Rekor URL", []string{"TOK=" + fakeJWT}, []string{"--fulcio-url", down, "--oidc-token-env", "TOK"}, 2, "needs --fulcio-url and --rekor-url"},
		{"no Fulcio URL", []string{"TOK=" + fakeJWT}, []string{"--rekor-url", down, "--oidc-token-env", "TOK"}, 2, "needs --fulcio-url and --rekor-url"},
		{"no token flag", []string{"ACTIONS_ID_TOKEN_REQUEST_URL=", "ACTIONS_ID_TOKEN_REQUEST_TOKEN="}, []string{"--fulcio-url", down, "--rekor-url", down}, 2, "needs an OIDC identity token"},
		{"both token forms", []string{"TOK=" + fakeJWT}, []string{"--fulcio-url", down, "--rekor-url", down, "--oidc-token-env", "TOK", "--identity-token-file", tokenFile}, 2, "not both"},
		{"key with sigstore", []string{"TOK=" + fakeJWT}, []string{"--fulcio-url", down, "--rekor-url", down, "--oidc-token-env", "TOK", "--key", key}, 2, "--key"},
		{"sigstore flags without sigstore", nil, []string{"--signer", "ssh", "--key", key, "--fulcio-url", down}, 2, "go with --signer sigstore"},
		{"token variable unset", nil, []string{"--fulcio-url", down, "--rekor-url", down, "--oidc-token-env", "TASKPROOF_TEST_NO_SUCH_TOKEN"}, 3, "TASKPROOF_TEST_NO_SUCH_TOKEN is not set"},
		{"token variable empty", []string{"TOK="}, []string{"--fulcio-url", down, "--rekor-url", down, "--oidc-token-env", "TOK"}, 3, "TOK is not set or empty"},
		{"token file missing", nil, []string{"--fulcio-url", down, "--rekor-url", down, "--identity-token-file", filepath.Join(t.TempDir(), "absent")}, 3, "--identity-token-file"},
		{"token not a JWT", []string{"TOK=not-a-jwt"}, []string{"--fulcio-url", down, "--rekor-url", down, "--oidc-token-env", "TOK"}, 3, "subject from identity token"},
		{"Fulcio refuses connections (env token)", []string{"TOK=" + fakeJWT}, []string{"--fulcio-url", down, "--rekor-url", down, "--oidc-token-env", "TOK"}, 3, "connection refused"},
		{"Fulcio refuses connections (token file)", nil, []string{"--fulcio-url", down, "--rekor-url", down, "--identity-token-file", tokenFile}, 3, "connection refused"},
		// Ended by --sigstore-timeout 2s, not by the test's deadline.
		{"Fulcio never answers", []string{"TOK=" + fakeJWT}, []string{"--fulcio-url", silent, "--rekor-url", down, "--oidc-token-env", "TOK"}, 3, "getting a signing certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := r.taskproof(t, tt.env, append(append([]string{}, base...), tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tt.code, tt.msg)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
	if ref := r.notesRef(t); ref != "" {
		t.Errorf("refused sigstore ticks wrote notes: %s", ref)
	}
}

// `verify` refuses contradictory or incomplete Sigstore trust with exit 3
// (docs/format.md#exit-codes: a trust or config error), before looking at any note.
func TestSigstoreVerifyTrustRefusals(t *testing.T) {
	r := newCLIRepo(t)
	dir := t.TempDir()
	badRoot := filepath.Join(dir, "bad_root.json")
	if err := os.WriteFile(badRoot, []byte(`{"mediaType":"nope"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	root := sigstoretest.New(t).WriteTrustedRoot(t, dir)
	id, iss := "https://github.com/acme/calc/.github/workflows/release.yml@refs/heads/main", "https://token.actions.githubusercontent.com"
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"identity without trusted root", []string{"--certificate-identity", id, "--certificate-oidc-issuer", iss}, "needs a trusted root"},
		{"regexp without trusted root", []string{"--certificate-identity-regexp", ".*", "--certificate-oidc-issuer", iss}, "needs a trusted root"},
		{"trusted root without identity", []string{"--trusted-root", root}, "a trusted root without a certificate identity trusts no signer"},
		{"both identity forms", []string{"--trusted-root", root, "--certificate-identity", id, "--certificate-identity-regexp", ".*", "--certificate-oidc-issuer", iss}, "not both"},
		{"regexp without issuer", []string{"--trusted-root", root, "--certificate-identity-regexp", "https://github.com/acme/.*"}, "a certificate OIDC issuer is required"},
		{"identity without issuer", []string{"--trusted-root", root, "--certificate-identity", id}, "a certificate OIDC issuer is required"},
		{"regexp that does not compile", []string{"--trusted-root", root, "--certificate-identity-regexp", "(", "--certificate-oidc-issuer", iss}, "certificate identity regular expression"},
		{"unreadable trusted root", []string{"--trusted-root", filepath.Join(dir, "absent.json"), "--certificate-identity", id, "--certificate-oidc-issuer", iss}, "absent.json"},
		{"malformed trusted root", []string{"--trusted-root", badRoot, "--certificate-identity", id, "--certificate-oidc-issuer", iss}, "bad_root.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := r.taskproof(t, nil, append([]string{"verify", r.c1}, tt.args...)...)
			if code != 3 || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit 3 mentioning %q", code, stderr, tt.msg)
			}
		})
	}
}

// `attest carry` refuses (exit 2, naming the line) a FROM whose note holds a
// Sigstore bundle line, and leaves both notes unchanged: it cannot check or
// re-issue a bundle, and carrying the note's other lines would silently leave
// that task behind.
func TestSigstoreCarryRefusesBundles(t *testing.T) {
	r := newCLIRepo(t)
	bundle := `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{},"dsseEnvelope":{}}`
	other := `{"payloadType":"text/plain","payload":"aGk=","signatures":[]}`
	testenv.Git(t, r.dir, "notes", "--ref", "refs/notes/speccoder", "add", "-m", other+"\n"+bundle, r.c1)
	before := r.note(t, r.c1)
	for _, extra := range [][]string{nil, {"--insecure-skip-verify"}, {"--dry-run"}} {
		stdout, stderr, code := r.taskproof(t, nil, append([]string{"attest", "carry", r.c1, r.c3}, extra...)...)
		if code != 2 || !strings.Contains(stderr, "holds a Sigstore bundle (line 2)") || stdout != "" {
			t.Errorf("carry %v: exit %d, stdout %q, stderr %q; want exit 2 naming the bundle line", extra, code, stdout, stderr)
		}
	}
	if after := r.note(t, r.c1); after != before {
		t.Errorf("FROM's note changed:\n%s", after)
	}
	if n := r.note(t, r.c3); n != "" {
		t.Errorf("TO got a note: %s", n)
	}
}

// actionsWorld is a local server standing in for GitHub Actions' OIDC token
// endpoint and one standing in for Fulcio, each recording what it was sent.
type actionsWorld struct {
	mu                  sync.Mutex
	tokenRequests       int
	audience, tokenAuth string
	fulcioAuth          string
	status              int
	body                string
	tokenURL, fulcioURL string
}

func newActionsWorld(t *testing.T, status int, body string) *actionsWorld {
	w := &actionsWorld{status: status, body: body}
	tok := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.tokenRequests++
		w.audience, w.tokenAuth = r.URL.Query().Get("audience"), r.Header.Get("Authorization")
		w.mu.Unlock()
		rw.WriteHeader(w.status)
		fmt.Fprint(rw, w.body)
	}))
	fulcio := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.fulcioAuth = r.Header.Get("Authorization")
		w.mu.Unlock()
		http.Error(rw, "test Fulcio issues nothing", http.StatusBadRequest)
	}))
	t.Cleanup(tok.Close)
	t.Cleanup(fulcio.Close)
	w.tokenURL, w.fulcioURL = tok.URL+"/_apis/distributedtask/token?api-version=2.0", fulcio.URL
	return w
}

// In GitHub Actions, `--signer sigstore` with no token flag fetches the
// workflow's OIDC token (audience sigstore, bearer ACTIONS_ID_TOKEN_REQUEST_TOKEN)
// and sends it to Fulcio; an endpoint that refuses or answers badly is exit 3
// with what was wrong, and Fulcio is never asked.
func TestSigstoreAttestActionsToken(t *testing.T) {
	r := newCLIRepo(t)
	down := closedURL(t)
	args := func(w *actionsWorld, extra ...string) []string {
		return append([]string{"attest", "tick", "--commit", r.c1, "--verdict", "regression_only", "--regression-reason", "planning_work",
			"--signer", "sigstore", "--fulcio-url", w.fulcioURL, "--rekor-url", down, "--sigstore-timeout", "5s"}, extra...)
	}
	env := func(w *actionsWorld) []string {
		return []string{"ACTIONS_ID_TOKEN_REQUEST_URL=" + w.tokenURL, "ACTIONS_ID_TOKEN_REQUEST_TOKEN=REQ-TOKEN"}
	}

	w := newActionsWorld(t, 200, `{"count":1,"value":"`+fakeJWT+`"}`)
	_, stderr, code := r.taskproof(t, env(w), args(w)...)
	if code != 3 || !strings.Contains(stderr, "getting a signing certificate") {
		t.Fatalf("exit %d, stderr %q; want exit 3 from the test Fulcio", code, stderr)
	}
	if w.tokenRequests != 1 || w.audience != "sigstore" || w.tokenAuth != "bearer REQ-TOKEN" || w.fulcioAuth != "Bearer "+fakeJWT {
		t.Errorf("token requests %d (audience %q, auth %q), Fulcio auth %q; want the Actions token sent to Fulcio", w.tokenRequests, w.audience, w.tokenAuth, w.fulcioAuth)
	}

	// An explicit token wins: the endpoint is not asked.
	w = newActionsWorld(t, 200, `{"value":"`+fakeJWT+`"}`)
	_, _, code = r.taskproof(t, append(env(w), "TOK="+fakeJWT), args(w, "--oidc-token-env", "TOK")...)
	if code != 3 || w.tokenRequests != 0 || w.fulcioAuth != "Bearer "+fakeJWT {
		t.Errorf("--oidc-token-env: exit %d, %d token requests, Fulcio auth %q", code, w.tokenRequests, w.fulcioAuth)
	}

	for _, tt := range []struct {
		name   string
		status int
		body   string
		msg    string
	}{
		{"no id-token permission", 403, `{"message":"Forbidden"}`, "403 Forbidden"},
		{"server error", 500, "oops", "500 Internal Server Error"},
		{"bad JSON", 200, "{", "is not the JSON object"},
		{"missing value", 200, `{"count":0}`, `has no "value"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newActionsWorld(t, tt.status, tt.body)
			stdout, stderr, code := r.taskproof(t, env(w), args(w)...)
			if code != 3 || !strings.Contains(stderr, tt.msg) || !strings.Contains(stderr, "GitHub Actions OIDC token") || stdout != "" {
				t.Errorf("exit %d, stderr %q; want exit 3 mentioning %q", code, stderr, tt.msg)
			}
			if w.fulcioAuth != "" {
				t.Errorf("Fulcio was asked after a failed token fetch")
			}
		})
	}
	t.Run("request URL without its token", func(t *testing.T) {
		w := newActionsWorld(t, 200, `{"value":"x"}`)
		_, stderr, code := r.taskproof(t, []string{"ACTIONS_ID_TOKEN_REQUEST_URL=" + w.tokenURL, "ACTIONS_ID_TOKEN_REQUEST_TOKEN="}, args(w)...)
		if code != 3 || !strings.Contains(stderr, "must both be set") || w.tokenRequests != 0 {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	if ref := r.notesRef(t); ref != "" {
		t.Errorf("failed sigstore ticks wrote notes: %s", ref)
	}
}
