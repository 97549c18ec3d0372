package signer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// gitHubEventCases are the simulated events of testdata/github-events, each
// with the event name the runner sets and whether a job may sign in it; the
// Action's test runs the same events through the real bash.
var gitHubEventCases = []struct {
	file, event string
	allowed     bool
	reason      string // the refusal names this
}{
	{"push.json", "push", true, ""},
	{"pull_request-same.json", "pull_request", true, ""},
	{"pull_request-fork.json", "pull_request", false, "its head is in mallory/greet, not in acme/greet"},
	{"pull_request-deleted-fork.json", "pull_request", false, "does not name both"},
	{"pull_request_target-same.json", "pull_request_target", false, "pull_request_target runs the base repository's workflow"},
	{"pull_request_target-fork.json", "pull_request_target", false, "pull_request_target runs the base repository's workflow"},
	{"workflow_run-same.json", "workflow_run", true, ""},
	{"workflow_run-fork.json", "workflow_run", false, "its head is in mallory/greet, not in acme/greet"},
	{"issue_comment-fork.json", "issue_comment", false, "event issue_comment is not one"},
}

func TestCheckActionsEvent(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "github-events")
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	for _, tc := range gitHubEventCases {
		t.Run(tc.file, func(t *testing.T) {
			err := CheckActionsEvent(env(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": tc.event,
				"GITHUB_EVENT_PATH": filepath.Join(dir, tc.file)}))
			if tc.allowed {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUntrustedEvent) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err %v, want ErrUntrustedEvent naming %q", err, tc.reason)
			}
		})
	}

	// Outside GitHub Actions nothing is checked.
	if err := CheckActionsEvent(env(map[string]string{"GITHUB_EVENT_NAME": "pull_request_target"})); err != nil {
		t.Errorf("outside Actions: %v", err)
	}
	// What cannot be read is refused.
	bad := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(bad, []byte(`{"pull_request": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		vars map[string]string
		want string
	}{
		{"no event name", map[string]string{"GITHUB_ACTIONS": "true"}, "GITHUB_EVENT_NAME is empty"},
		{"no event path", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"}, "without GITHUB_EVENT_PATH"},
		{"missing event file", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": bad + ".missing"}, "reading GITHUB_EVENT_PATH"},
		{"broken payload", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": bad}, "is not an event payload"},
		{"another event's payload", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": filepath.Join(dir, "pull_request-same.json")}, "has no workflow_run member"},
	} {
		if err := CheckActionsEvent(env(tc.vars)); !errors.Is(err, ErrUntrustedEvent) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a refusal naming %q", tc.name, err, tc.want)
		}
	}
}

// FuzzCheckActionsEvent: whatever a payload holds, a pull_request or
// workflow_run event is allowed only when it names one repository as both
// head and base.
func FuzzCheckActionsEvent(f *testing.F) {
	dir := filepath.Join(testenv.RepoRoot(f), "testdata", "github-events")
	for _, tc := range gitHubEventCases {
		b, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tc.event, b)
	}
	f.Add("pull_request", []byte(`{"pull_request":{"head":{"repo":{"id":1}},"base":{"repo":{"full_name":"a/b"}}}}`))
	// One file per fuzzing process, rewritten for each input.
	path := filepath.Join(f.TempDir(), "event.json")
	f.Fuzz(func(t *testing.T, event string, payload []byte) {
		if err := os.WriteFile(path, payload, 0o644); err != nil {
			t.Fatal(err)
		}
		err := CheckActionsEvent(func(k string) string {
			return map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": path}[k]
		})
		if err != nil && !errors.Is(err, ErrUntrustedEvent) {
			t.Fatalf("error %v does not match ErrUntrustedEvent", err)
		}
		if err != nil || (event != "pull_request" && event != "workflow_run") {
			return
		}
		var ev struct {
			PullRequest struct {
				Head, Base struct{ Repo *eventRepo }
			} `json:"pull_request"`
			WorkflowRun struct {
				HeadRepository *eventRepo `json:"head_repository"`
				Repository     *eventRepo `json:"repository"`
			} `json:"workflow_run"`
		}
		if json.Unmarshal(payload, &ev) != nil {
			t.Fatalf("a payload that does not decode was allowed: %q", payload)
		}
		head, base := ev.PullRequest.Head.Repo, ev.PullRequest.Base.Repo
		if event == "workflow_run" {
			head, base = ev.WorkflowRun.HeadRepository, ev.WorkflowRun.Repository
		}
		if same, known := head.same(base); !same || !known {
			t.Fatalf("event %s allowed with head %v and base %v", event, head, base)
		}
	})
}
