package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTitlesOfIDLessTasks: an OpenSpec change whose tasks have no written
// ID. Every output format of the gate names the failing tick by its title
// (its derived h-… ID says nothing), and attest tick and attest decide find
// a task by its title or the start of it — refusing a start that several
// titles share.
func TestTitlesOfIDLessTasks(t *testing.T) {
	const tasks = "## 1. Tracking\n\n- [ ] 1.1 Add the tracking table\n- [ ] Add the tracking index\n- [ ] Wire the tracker into the CLI\n- [ ] Wire the tracker into the API, with retries\n- [ ] Document the tracker\n"
	path := "openspec/changes/better-git-tracking/tasks.md"
	r := newGateRepo(t, map[string]string{path: tasks})
	c1 := r.commit(t, "tick", map[string]string{path: strings.NewReplacer(
		"- [ ] Add the tracking index", "- [x] Add the tracking index",
		"- [ ] Wire the tracker into the CLI", "- [x] Wire the tracker into the CLI", "- [ ] Wire the tracker into the API, with retries", "- [x] Wire the tracker into the API, with retries").Replace(tasks)})
	titles := []string{"Add the tracking index", "Wire the tracker into the CLI", "Wire the tracker into the API, with retries"}

	for _, f := range []string{"text", "json", "github", "junit", "sarif"} {
		out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", f)
		for _, title := range titles {
			if !strings.Contains(out, title) {
				t.Errorf("verify --format %s does not name the ID-less task %q:\n%s", f, title, out)
			}
		}
	}

	// A start two ticked tasks' titles share is refused, naming both.
	_, stderr := r.run(t, 2, "attest", "tick", "--commit", c1, "--signer", "ssh", "--key", r.key,
		"--verdict", "regression_only", "--regression-reason", "planning_work", "--task", "wire the tracker")
	if !strings.Contains(stderr, "matches 2 tasks") || !strings.Contains(stderr, `"Wire the tracker into the CLI"`) || !strings.Contains(stderr, `"Wire the tracker into the API, with retries"`) {
		t.Errorf("an ambiguous start of a title: %s", stderr)
	}
	// The start of a title (case folded), an exact title, and a title with
	// a comma that --task takes whole.
	out, _ := r.run(t, 0, "attest", "tick", "--commit", c1, "--signer", "ssh", "--key", r.key,
		"--verdict", "regression_only", "--regression-reason", "planning_work",
		"--task", "add the tracking i", "--task", "Wire the tracker into the CLI", "--task", "Wire the tracker into the API, with retries")
	for _, title := range titles {
		if !strings.Contains(out, "\""+title+"\"") {
			t.Errorf("attest tick does not name %q: %s", title, out)
		}
	}
	rep := r.gate(t, 0)
	if rep.Conclusion != "success" {
		t.Fatalf("after attesting by title: %s", rep.rows())
	}
	var raw struct {
		Ticks []struct {
			TaskID string `json:"task_id"`
			Title  string `json:"title"`
		} `json:"ticks"`
	}
	out, _ = r.run(t, 0, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", "json")
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, tk := range raw.Ticks {
		if !strings.HasPrefix(tk.TaskID, "h-") || tk.Title == "" {
			t.Errorf("tick %+v: want a derived ID and its title", tk)
		}
	}

	// attest decide --verdict skipped finds an open task by the start of its title.
	out, _ = r.run(t, 0, "attest", "decide", "--commit", c1, "--task", "Document", "--verdict", "skipped",
		"--by", "dev@example.invalid", "--reason", "not needed", "--signer", "ssh", "--key", r.key, "--format", "json")
	if !strings.Contains(out, "better-git-tracking/h-") {
		t.Errorf("attest decide by title: %s", out)
	}
}
