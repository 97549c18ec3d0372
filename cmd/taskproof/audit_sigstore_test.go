package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
)

// `taskproof audit` reads a keylessly attested tick (its note lines are
// Sigstore bundles, made offline by sigstore-go's real signing path) as it
// reads any other: a row with its verdict and reason, no problem, and not a
// tick without evidence.
func TestAuditSigstoreAttestedTick(t *testing.T) {
	r := newCLIRepo(t)
	repo, err := gitref.Open(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	notes, err := repo.Notes("")
	if err != nil {
		t.Fatal(err)
	}
	const identity = "https://github.com/acme/calc/.github/workflows/release.yml@refs/heads/main"
	sg := sigstoretest.New(t).Signer(t, &sigstoretest.Fulcio{Identity: identity, Issuer: "https://token.actions.githubusercontent.com"})
	if _, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: gitref.Hash(r.c1), Verdict: predicate.RegressionOnly,
		Regression: map[string]any{"reason": "planning_work"}, Signers: []signer.Signer{sg}}); err != nil {
		t.Fatal(err)
	}
	repo.Close()
	for i, line := range noteline.Split([]byte(r.note(t, r.c1))) {
		if !noteline.IsBundle(line) {
			t.Fatalf("line %d of the note is no Sigstore bundle: the test proves nothing", i+1)
		}
	}
	stdout, stderr, code := r.taskproof(t, nil, "audit", r.c0+".."+r.c1, "--format", "json")
	if code != 0 {
		t.Fatalf("audit: exit %d, stderr %s", code, stderr)
	}
	var rep struct {
		Ticks []struct {
			TaskID     string `json:"task_id"`
			Commit     string `json:"commit"`
			Verdict    string `json:"verdict"`
			Regression *struct {
				Reason string `json:"reason"`
			} `json:"regression"`
			Signature struct {
				Status string `json:"status"`
				Count  int    `json:"count"`
			} `json:"signature"`
			Problems []string `json:"problems"`
		} `json:"ticks"`
		WithoutEvidence []json.RawMessage `json:"without_evidence"`
		Problems        []json.RawMessage `json:"problems"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("audit JSON: %v\n%s", err, stdout)
	}
	if len(rep.Problems) != 0 || len(rep.WithoutEvidence) != 0 {
		t.Errorf("problems %s, without evidence %s; want none", rep.Problems, rep.WithoutEvidence)
	}
	if len(rep.Ticks) != 2 {
		t.Fatalf("%d ticks, want T001 and T002:\n%s", len(rep.Ticks), stdout)
	}
	for _, row := range rep.Ticks {
		if row.Commit != r.c1 || row.Verdict != "regression_only" || row.Regression == nil || row.Regression.Reason != "planning_work" ||
			row.Signature.Status != "not_checked" || row.Signature.Count != 1 || len(row.Problems) != 0 {
			t.Errorf("%s: %+v", row.TaskID, row)
		}
	}
}
