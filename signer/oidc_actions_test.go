package signer

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// FetchActionsIDToken against a local server standing in for GitHub Actions'
// token endpoint: the request carries the audience and the bearer token, and
// every bad answer is an ErrSigstore error saying what was wrong.
func TestFetchActionsIDToken(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string // token, or part of the error
		ok     bool
	}{
		{"token", 200, `{"count":1,"value":"eyJ.token.sig"}`, "eyJ.token.sig", true},
		{"not authorised", 403, `{"message":"Forbidden"}`, "403 Forbidden", false},
		{"server error", 500, `oops`, "500 Internal Server Error", false},
		{"not JSON", 200, `<html>`, "is not the JSON object", false},
		{"JSON array", 200, `["x"]`, "is not the JSON object", false},
		{"no value", 200, `{"count":0}`, `has no "value"`, false},
		{"empty value", 200, `{"value":"  "}`, `has no "value"`, false},
		{"value not a string", 200, `{"value":7}`, "is not the JSON object", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotAuth, gotAudience, gotVersion string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotAuth, gotAudience, gotVersion = r.Header.Get("Authorization"), r.URL.Query().Get("audience"), r.URL.Query().Get("api-version")
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			tok, err := FetchActionsIDToken(context.Background(), srv.URL+"/token?api-version=2.0", "REQ-TOKEN", SigstoreAudience, 5*time.Second)
			if gotAuth != "bearer REQ-TOKEN" || gotAudience != "sigstore" || gotVersion != "2.0" {
				t.Errorf("request: Authorization %q, audience %q, api-version %q", gotAuth, gotAudience, gotVersion)
			}
			if tt.ok {
				if err != nil || tok != tt.want {
					t.Fatalf("= %q, %v; want %q", tok, err, tt.want)
				}
				return
			}
			if !errors.Is(err, ErrSigstore) || !strings.Contains(err.Error(), tt.want) || tok != "" {
				t.Fatalf("= %q, %v; want an ErrSigstore error mentioning %q", tok, err, tt.want)
			}
		})
	}
	if _, err := FetchActionsIDToken(context.Background(), "not a url", "x", SigstoreAudience, time.Second); !errors.Is(err, ErrSigstore) {
		t.Errorf("bad URL: %v", err)
	}
	// A server that never answers is ended by the timeout.
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	if _, err := FetchActionsIDToken(context.Background(), srv.URL+"?a=b", "x", SigstoreAudience, 200*time.Millisecond); !errors.Is(err, ErrSigstore) {
		t.Errorf("silent server: %v", err)
	}
}
