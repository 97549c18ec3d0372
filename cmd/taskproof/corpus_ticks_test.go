package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestTicksCorporaToolReading: on each corpus of the formats taskproof reads
// as its extension, `taskproof ticks` (the real binary) lists every box the
// format's own tool reads as done that was not done at the commit's first
// parent: the oracle reads each commit's tasks files with the real git and
// the tool's documented pattern — spec-workflow-mcp's task parser; for BMAD,
// Agent OS and cc-sdd, whose tools are agents following GitHub's task lists,
// a task item outside code fences — and follows renames as git detects them.
func TestTicksCorporaToolReading(t *testing.T) {
	const (
		jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`
		jsDot   = `[^\n\r\x{2028}\x{2029}]`
	)
	specWorkflowDone := regexp.MustCompile(`^` + jsSpace + `*[-*]` + jsSpace + `+\[x\]` + jsSpace + `+[0-9]+(?:\.[0-9]+)*` + jsSpace + `*\\?\.?` + jsSpace + `+` + jsDot + `+`)
	taskItemDone := regexp.MustCompile(`^[ \t]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]+\[[xX]\](?:[ \t]|$)`)
	fence := regexp.MustCompile("^ {0,3}(```|~~~)")
	agentReading := func(text string) []string {
		var done []string
		inFence := false
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSuffix(l, "\r")
			if fence.MatchString(l) {
				inFence = !inFence
				continue
			}
			if !inFence && taskItemDone.MatchString(l) {
				done = append(done, l)
			}
		}
		return done
	}
	for _, tc := range []struct {
		corpus string
		tasks  *regexp.Regexp
		done   func(string) []string
	}{
		{"specworkflow-statevia-maxspec", regexp.MustCompile(`^\.spec-workflow/(archive/)?specs/[^/]+/tasks\.md$`), func(text string) []string {
			var done []string
			for _, l := range strings.Split(text, "\n") {
				if specWorkflowDone.MatchString(l) {
					done = append(done, strings.TrimSuffix(l, "\r"))
				}
			}
			return done
		}},
		{"agentos-forgejo-mcp", regexp.MustCompile(`^\.agent-os/(specs|recaps)/[^/]+/tasks\.md$`), agentReading},
		{"bmad-etch-maxspec", regexp.MustCompile(`^docs/sprint-artifacts/[0-9]+-[0-9]+-.+\.md$`), agentReading},
		{"ccsdd-evmtools", regexp.MustCompile(`^\.kiro/specs/[^/]+/tasks\.md$`), agentReading},
	} {
		t.Run(tc.corpus, func(t *testing.T) {
			dir := testenv.CloneBundle(t, tc.corpus)
			out, _ := vfRunIn(t, testenv.Binary(t), dir, 0, "ticks", "--format", "json")
			var doc struct {
				Ticks []struct {
					Kind, Commit, Path string
					LineAfter          string `json:"line_after"`
				}
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, r := range doc.Ticks {
				listed[r.Commit+"\x00"+r.Path+"\x00"+r.LineAfter] = true
			}
			show := func(c, p string) string { return testenv.Git(t, dir, "show", c+":"+p) }
			expected, missing := 0, []string{}
			for _, line := range strings.Split(strings.TrimSpace(testenv.Git(t, dir, "rev-list", "--parents", "HEAD")), "\n") {
				f := strings.Fields(line)
				if len(f) < 2 {
					continue // the root commit has no ticks
				}
				c, p := f[0], f[1]
				var deleted []string
				type change struct{ old, new string }
				var changes []change
				for _, ln := range strings.Split(strings.TrimSpace(testenv.Git(t, dir, "diff", "--name-status", "-M", p, c)), "\n") {
					g := strings.Split(ln, "\t")
					switch {
					case len(g) == 2 && g[0] == "D" && tc.tasks.MatchString(g[1]):
						deleted = append(deleted, g[1])
					case len(g) == 2 && (g[0] == "M" || g[0] == "A") && tc.tasks.MatchString(g[1]):
						old := g[1]
						if g[0] == "A" {
							old = ""
						}
						changes = append(changes, change{old, g[1]})
					case len(g) == 3 && strings.HasPrefix(g[0], "R") && tc.tasks.MatchString(g[2]):
						changes = append(changes, change{g[1], g[2]})
					}
				}
				for _, ch := range changes {
					before := map[string]int{}
					olds := []string{ch.old}
					if ch.old == "" {
						olds = deleted // a move git does not pair: any removed tasks file's
					}
					for _, o := range olds {
						if o == "" {
							continue
						}
						for _, l := range tc.done(show(p, o)) {
							before[openForm(l)]++
						}
					}
					for _, l := range tc.done(show(c, ch.new)) {
						if before[openForm(l)] > 0 {
							before[openForm(l)]--
							continue
						}
						expected++
						if !listed[c+"\x00"+ch.new+"\x00"+l] {
							missing = append(missing, fmt.Sprintf("%s %s: %q", c[:12], ch.new, l))
						}
					}
				}
			}
			if expected == 0 || len(missing) != 0 {
				t.Errorf("%d boxes the tool reads as newly done; `ticks` misses %d:\n%s", expected, len(missing), strings.Join(missing, "\n"))
			}
			t.Logf("%s: %d boxes newly done for the tool, all listed among %d records", tc.corpus, expected, len(doc.Ticks))
		})
	}
}

// openForm is a task line with its box read as open, so that a line done before
// and after a commit is the same line.
var openBoxRE = regexp.MustCompile(`\[[xX]\]`)

func openForm(line string) string { return openBoxRE.ReplaceAllString(line, "[ ]") }
