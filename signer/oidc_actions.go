package signer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// GitHub Actions' OIDC token request, as the runner describes it to a job
// granted `permissions: id-token: write`.
const (
	// ActionsTokenURLEnv names the environment variable holding the token
	// request URL.
	ActionsTokenURLEnv = "ACTIONS_ID_TOKEN_REQUEST_URL"
	// ActionsTokenEnv names the environment variable holding the bearer token
	// that authorises the request.
	ActionsTokenEnv = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
	// SigstoreAudience is the audience Fulcio accepts.
	SigstoreAudience = "sigstore"
)

// maxTokenResponse bounds the token endpoint's answer (a JWT is a few KiB).
const maxTokenResponse = 1 << 20

// FetchActionsIDToken asks GitHub Actions' token endpoint for an OIDC identity
// token, as cosign does: GET requestURL with the query parameter
// audience=<audience> and the header "Authorization: bearer <requestToken>",
// answered by the JSON object {"value": "<jwt>"}. The request is bounded by
// timeout (zero: 30 seconds). Errors match [ErrSigstore]: the request fails,
// the status is not 200, the body is not that JSON object, or value is
// missing or empty.
func FetchActionsIDToken(ctx context.Context, requestURL, requestToken, audience string, timeout time.Duration) (string, error) {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	u, err := url.Parse(requestURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("%w: %s %q is not an http(s) URL", ErrSigstore, ActionsTokenURLEnv, requestURL)
	}
	q := u.Query()
	q.Set("audience", audience)
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%w: GitHub Actions OIDC token request: %v", ErrSigstore, err)
	}
	req.Header.Set("Authorization", "bearer "+requestToken)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: GitHub Actions OIDC token request to %s: %v", ErrSigstore, u.Host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse+1))
	if err != nil {
		return "", fmt.Errorf("%w: GitHub Actions OIDC token response from %s: %v", ErrSigstore, u.Host, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%w: GitHub Actions OIDC token request to %s: %s: %s (does the job have `permissions: id-token: write`?)", ErrSigstore, u.Host, resp.Status, snippet(body))
	}
	if len(body) > maxTokenResponse {
		return "", fmt.Errorf("%w: GitHub Actions OIDC token response from %s exceeds %d bytes", ErrSigstore, u.Host, maxTokenResponse)
	}
	var answer struct {
		Value *string `json:"value"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return "", fmt.Errorf("%w: GitHub Actions OIDC token response from %s is not the JSON object {\"value\": TOKEN}: %v", ErrSigstore, u.Host, err)
	}
	if answer.Value == nil || strings.TrimSpace(*answer.Value) == "" {
		return "", fmt.Errorf("%w: GitHub Actions OIDC token response from %s has no \"value\"", ErrSigstore, u.Host)
	}
	return strings.TrimSpace(*answer.Value), nil
}

// snippet is the start of a response body, for an error message.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
