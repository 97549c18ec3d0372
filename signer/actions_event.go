package signer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrUntrustedEvent is matched by [CheckActionsEvent]'s refusals: the GitHub
// Actions event may run code or commits the repository does not own with the
// repository's identity (its OIDC token, its secrets).
var ErrUntrustedEvent = errors.New("signing refused in this GitHub Actions event")

// maxEventPayload bounds the event file read (GitHub caps webhook payloads
// at 25 MB).
const maxEventPayload = 32 << 20

// CheckActionsEvent decides whether a GitHub Actions job may sign
// (docs/format.md#signing-in-github-actions). Outside GitHub Actions
// (GITHUB_ACTIONS is not "true") every signer may. Inside, what a job signs
// is signed with the workflow's identity — the OIDC token Fulcio certifies
// names the base repository's workflow, and a key comes from its secrets —
// so the job must be working on the repository's own commits:
//
//   - push, workflow_dispatch, schedule, merge_group and release run the
//     repository's own refs: allowed;
//   - pull_request is allowed when the pull request's head repository is the
//     base repository (a branch of the repository, not a fork);
//   - workflow_run is allowed when the run's head repository is the
//     repository;
//   - every other event is refused: pull_request_target and issue_comment run
//     the base repository's workflow, with its token and secrets, on behalf
//     of pull requests whose head a fork controls; the rest are not known to
//     carry the repository's own commits.
//
// The event payload is read from GITHUB_EVENT_PATH; one that cannot be read
// or does not name both repositories is refused. getenv reads the
// environment (os.Getenv). Refusals match [ErrUntrustedEvent].
func CheckActionsEvent(getenv func(string) string) error {
	if getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	name := getenv("GITHUB_EVENT_NAME")
	switch name {
	case "push", "workflow_dispatch", "schedule", "merge_group", "release":
		return nil
	case "pull_request", "workflow_run":
		return checkEventHead(name, getenv("GITHUB_EVENT_PATH"))
	case "":
		return fmt.Errorf("%w: GITHUB_ACTIONS is true but GITHUB_EVENT_NAME is empty: cannot tell whose commits this job works on", ErrUntrustedEvent)
	case "pull_request_target":
		return fmt.Errorf("%w: event pull_request_target runs the base repository's workflow, with its identity and secrets, for a pull request whose head its author controls (a fork's, often); attest on push, or on pull_request from the repository's own branches", ErrUntrustedEvent)
	}
	return fmt.Errorf("%w: event %s is not one in which taskproof signs with the workflow's identity (push, workflow_dispatch, schedule, merge_group, release; pull_request and workflow_run from the repository itself)", ErrUntrustedEvent, name)
}

// eventRepo is a repository as an event payload names it.
type eventRepo struct {
	ID       int64  `json:"id"`
	FullName string `json:"full_name"`
}

// same reports whether r and o are one repository: by id when both carry
// one, else by name (GitHub's names are case-insensitive); known says
// whether either way applied.
func (r *eventRepo) same(o *eventRepo) (same, known bool) {
	switch {
	case r == nil || o == nil:
		return false, false
	case r.ID != 0 && o.ID != 0:
		return r.ID == o.ID, true
	case r.FullName != "" && o.FullName != "":
		return strings.EqualFold(r.FullName, o.FullName), true
	}
	return false, false
}

func (r *eventRepo) String() string {
	if r == nil {
		return "none (a deleted fork?)"
	}
	if r.FullName != "" {
		return r.FullName
	}
	return fmt.Sprintf("repository id %d", r.ID)
}

// checkEventHead reads a pull_request or workflow_run payload and allows it
// when its head repository is the base repository.
func checkEventHead(name, path string) error {
	if path == "" {
		return fmt.Errorf("%w: event %s without GITHUB_EVENT_PATH: cannot tell whose commits this job works on", ErrUntrustedEvent, name)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: event %s: reading GITHUB_EVENT_PATH: %v", ErrUntrustedEvent, name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEventPayload+1))
	if err != nil {
		return fmt.Errorf("%w: event %s: reading %s: %v", ErrUntrustedEvent, name, path, err)
	}
	if len(b) > maxEventPayload {
		return fmt.Errorf("%w: event %s: %s exceeds %d bytes", ErrUntrustedEvent, name, path, maxEventPayload)
	}
	var ev struct {
		PullRequest *struct {
			Head struct {
				Repo *eventRepo `json:"repo"`
			} `json:"head"`
			Base struct {
				Repo *eventRepo `json:"repo"`
			} `json:"base"`
		} `json:"pull_request"`
		WorkflowRun *struct {
			HeadRepository *eventRepo `json:"head_repository"`
			Repository     *eventRepo `json:"repository"`
		} `json:"workflow_run"`
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return fmt.Errorf("%w: event %s: %s is not an event payload: %v", ErrUntrustedEvent, name, path, err)
	}
	var head, base *eventRepo
	switch {
	case name == "pull_request" && ev.PullRequest != nil:
		head, base = ev.PullRequest.Head.Repo, ev.PullRequest.Base.Repo
	case name == "workflow_run" && ev.WorkflowRun != nil:
		head, base = ev.WorkflowRun.HeadRepository, ev.WorkflowRun.Repository
	default:
		return fmt.Errorf("%w: event %s: the payload in %s has no %s member", ErrUntrustedEvent, name, path, name)
	}
	same, known := head.same(base)
	switch {
	case !known:
		return fmt.Errorf("%w: event %s: the payload does not name both the head repository (%s) and the base repository (%s)", ErrUntrustedEvent, name, head, base)
	case !same:
		return fmt.Errorf("%w: event %s: its head is in %s, not in %s: the workflow's identity would sign commits another repository controls; attest after the merge (on push), or have a maintainer attest", ErrUntrustedEvent, name, head, base)
	}
	return nil
}
