package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// In GitHub Actions, a signing command refuses an event whose commits the
// repository does not own before it asks for the workflow's OIDC token or
// reads a key (exit 3, nothing written); in the repository's own events it
// goes on to sign.
func TestAttestRefusesUntrustedEvents(t *testing.T) {
	r := newCLIRepo(t)
	events := filepath.Join(testenv.RepoRoot(t), "testdata", "github-events")
	key, _ := sshKeyFile(t, "")
	for _, tc := range gitHubEvents {
		t.Run(tc.file, func(t *testing.T) {
			w := newActionsWorld(t, 200, `{"value":"`+fakeJWT+`"}`)
			env := []string{"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + tc.event, "GITHUB_EVENT_PATH=" + filepath.Join(events, tc.file),
				"ACTIONS_ID_TOKEN_REQUEST_URL=" + w.tokenURL, "ACTIONS_ID_TOKEN_REQUEST_TOKEN=REQ-TOKEN"}
			_, stderr, code := r.taskproof(t, env, "attest", "tick", "--commit", r.c1, "--verdict", "regression_only", "--regression-reason", "planning_work",
				"--signer", "sigstore", "--fulcio-url", w.fulcioURL, "--rekor-url", closedURL(t), "--sigstore-timeout", "5s")
			if tc.allowed {
				// The token is fetched and sent to the test Fulcio, which refuses it.
				if code != 3 || w.tokenRequests != 1 || !strings.Contains(stderr, "getting a signing certificate") {
					t.Fatalf("exit %d, %d token requests, stderr %s; want the token fetched and Fulcio asked", code, w.tokenRequests, stderr)
				}
				return
			}
			if code != 3 || w.tokenRequests != 0 || !strings.Contains(stderr, "signing refused in this GitHub Actions event") {
				t.Fatalf("sigstore: exit %d, %d token requests, stderr %s; want exit 3 before any token request", code, w.tokenRequests, stderr)
			}
			// A key from the repository's secrets is refused alike.
			_, stderr, code = r.taskproof(t, env, "attest", "tick", "--commit", r.c1, "--verdict", "regression_only", "--regression-reason", "planning_work",
				"--signer", "ssh", "--key", key)
			if code != 3 || !strings.Contains(stderr, "signing refused") {
				t.Fatalf("ssh: exit %d, stderr %s; want exit 3", code, stderr)
			}
			if ref := r.notesRef(t); ref != "" {
				t.Fatalf("a refused event wrote notes: %s", ref)
			}
		})
	}
}
