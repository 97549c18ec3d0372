package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A project's own tool may read tasks from files its configuration names:
// an OpenSpec schema's apply.tracks, a BMAD story folder. A box ticked there
// fails the gate as unrecognized_tasks_file, naming the configuration
// (docs/format.md#tasks-files-a-tool-configures); the honest counterparts pass.

const (
	osTeamSchema = "name: team\nversion: 1\nartifacts:\n  - id: proposal\n    generates: proposal.md\n    description: |\n      apply:\n        tracks: tasks.md\n  - id: todo\n    generates: %s\n    requires: [proposal]\napply:\n  requires: [todo]\n  tracks: %s\n"
	osChange     = "## 1. Impl\n\n- [ ] 1.1 Add the payment endpoint\n- [ ] 1.2 Charge the card\n"
)

func osSchema(tracks string) string {
	return strings.ReplaceAll(osTeamSchema, "%s", tracks)
}

func TestGateOpenSpecTrackedFile(t *testing.T) {
	const todo = "openspec/changes/add-x/todo.md"
	cases := []struct {
		name  string
		files map[string]string
		why   string
	}{
		{"project schema tracks todo.md", map[string]string{
			"openspec/config.yaml":              "schema: team\n",
			"openspec/schemas/team/schema.yaml": osSchema("todo.md"),
		}, `tracks "todo.md"`},
		{"the change's .openspec.yaml names it", map[string]string{
			"openspec/changes/add-x/.openspec.yaml": "schema: 'team'   # ours\ncreated: 2026-01-01\n",
			"openspec/schemas/team/schema.yaml":     osSchema("todo.md"),
		}, `tracks "todo.md"`},
		{"the project overrides spec-driven", map[string]string{
			"openspec/schemas/spec-driven/schema.yaml": osSchema("todo.md"),
		}, `tracks "todo.md"`},
		{"a schema not in the repository", map[string]string{
			"openspec/config.yaml": "schema: mine\n",
		}, "not in the repository"},
		{"a schema taskproof cannot read", map[string]string{
			"openspec/config.yaml":              "schema: team\n",
			"openspec/schemas/team/schema.yaml": "apply: {tracks: todo.md}\n",
		}, "cannot be read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{todo: osChange, "openspec/changes/add-x/proposal.md": "# Proposal\n"}
			for p, s := range c.files {
				files[p] = s
			}
			r := newGateRepo(t, files)
			r.tick(t, []string{todo}, "1.1", "1.2")
			rep := r.gate(t, 1)
			checkFails(t, rep, todo+" unrecognized_tasks_file")
			for _, tk := range rep.Ticks {
				if tk.Failing && !strings.Contains(tk.Message, c.why) {
					t.Errorf("message %q does not say %q", tk.Message, c.why)
				}
			}
			out, _ := r.run(t, 0, "ticks", "main..HEAD")
			if !strings.Contains(out, todo) || !strings.Contains(out, "unrecognized_tasks_file") {
				t.Errorf("ticks does not list the tick with its reason:\n%s", out)
			}
		})
	}
	t.Run("honest counterpart: the schema tracks tasks.md", func(t *testing.T) {
		const tasks = "openspec/changes/add-x/tasks.md"
		r := newGateRepo(t, map[string]string{
			"openspec/config.yaml":              "schema: team\n",
			"openspec/schemas/team/schema.yaml": osSchema("tasks.md"),
			tasks:                               osChange,
			"openspec/changes/add-x/notes.md":   "- [ ] 1.1 a scratch list\n",
		})
		c := r.tick(t, []string{tasks, "openspec/changes/add-x/notes.md"}, "1.1")
		r.attest(t, c)
		checkRows(t, r.gate(t, 0), "success", tasks+":1.1 evidenced/")
	})
	t.Run("honest counterpart: the verifier ignores the file", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{
			"openspec/config.yaml":              "schema: team\n",
			"openspec/schemas/team/schema.yaml": osSchema("todo.md"),
			todo:                                osChange,
		})
		r.tick(t, []string{todo}, "1.1")
		pol := filepath.Join(t.TempDir(), "policy.toml")
		vfWrite(t, pol, "version = 1\n\n[unit_paths]\nignore = [\"openspec/changes/*/todo.md\"]\n")
		r.gate(t, 0, "--policy", pol)
	})
}

func TestGateBMADConfiguredStoryFolder(t *testing.T) {
	const story = "bmad-output/implementation-artifacts/1-2-user-login.md"
	const storyText = "# Story 1.2: User login\n\nStatus: in-progress\n\n## Tasks / Subtasks\n\n- [ ] Task 1: Login endpoint (AC: 1)\n  - [ ] Subtask 1.1: Write the handler\n"
	const cfg = "project_name: shop\noutput_folder: \"{project-root}/bmad-output\"\nimplementation_artifacts: \"{output_folder}/implementation-artifacts\"\n"
	tickStory := func(r *gateRepo) string {
		return r.commit(t, "story 1.2 done", map[string]string{story: strings.ReplaceAll(storyText, "- [ ]", "- [x]")})
	}
	for _, c := range []struct{ name, cfg, why string }{
		{"implementation_artifacts", cfg, "puts stories in bmad-output/implementation-artifacts"},
		{"output_folder alone", "output_folder: bmad-output\n", "puts stories in bmad-output/implementation-artifacts"},
		{"older sprint_artifacts", "sprint_artifacts: '{project-root}/bmad-output/implementation-artifacts'\n", "puts stories in"},
		{"a config taskproof cannot read", "output_folder: &o bmad-output\nimplementation_artifacts: *o\n", "cannot be read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{"_bmad/bmm/config.yaml": c.cfg, story: storyText})
			tickStory(r)
			rep := r.gate(t, 1)
			checkFails(t, rep, story+" unrecognized_tasks_file")
			for _, tk := range rep.Ticks {
				if tk.Failing && !strings.Contains(tk.Message, c.why) {
					t.Errorf("message %q does not say %q", tk.Message, c.why)
				}
			}
		})
	}
	t.Run("honest counterpart: the policy adds the layout", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{"_bmad/bmm/config.yaml": cfg, story: storyText})
		c := tickStory(r)
		pol := filepath.Join(t.TempDir(), "policy.toml")
		vfWrite(t, pol, "version = 1\n\n[[units]]\nformat = \"bmad\"\ntasks = \"bmad-output/implementation-artifacts/*.md\"\n")
		checkFails(t, r.gate(t, 1, "--policy", pol), story+" ticked_without_evidence")
		r.attest(t, c, "--policy", pol)
		checkRows(t, r.gate(t, 0, "--policy", pol), "success", story+":1 evidenced/", story+":1.1 evidenced/")
	})
	t.Run("honest counterpart: stories elsewhere are no concern", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{"_bmad/bmm/config.yaml": cfg, "notes/1-2-user-login.md": storyText})
		r.commit(t, "notes", map[string]string{"notes/1-2-user-login.md": strings.ReplaceAll(storyText, "- [ ]", "- [x]")})
		r.gate(t, 0)
	})
}

// TestGateSpecKitRawDone: an open spec-kit task rewritten so that its line
// reads "[x] T002 …" where GitHub shows no task (a lazy continuation, a
// paragraph, an HTML comment, a code block) is read done by an agent
// following spec-kit's prompts: the gate judges it as a tick of T002 and
// fails without evidence. The honest counterparts pass: the tick attested,
// and a documentation example of a done task whose ID the file already has.
func TestGateSpecKitRawDone(t *testing.T) {
	const tasks = gateTasks + "- [ ] T003 Wire it up\n"
	for name, line := range map[string]string{
		"lazy continuation": "  [x] T002 Write the test",
		"paragraph":         "\n[X] T002 Write the test",
		"HTML comment":      "<!-- - [x] T002 Write the test -->",
		"fenced code":       "```\n- [x] T002 Write the test\n```",
	} {
		t.Run(name, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{gateUnit: tasks})
			c := r.commit(t, "T002 done", map[string]string{gateUnit: strings.Replace(tasks, "- [ ] T002 Write the test", line, 1)})
			checkFails(t, r.gate(t, 1), gateUnit+" ticked_without_evidence")
			out, _ := r.run(t, 0, "ticks", "main..HEAD")
			if !strings.Contains(out, "T002") || !strings.Contains(out, "raw line") {
				t.Errorf("ticks does not list T002 read from the raw line:\n%s", out)
			}
			r.attest(t, c, "--task", "T002")
			checkRows(t, r.gate(t, 0), "success", gateUnit+":T002 evidenced/")
		})
	}
	t.Run("honest counterpart: an example of a task the file has", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{gateUnit: tasks})
		r.commit(t, "document the format", map[string]string{gateUnit: tasks + "\nExample:\n\n```\n- [x] T001 Create the skeleton\n```\n"})
		c := r.tick(t, []string{gateUnit}, "T003")
		r.attest(t, c)
		checkRows(t, r.gate(t, 0), "success", gateUnit+":T003 evidenced/")
	})
}
