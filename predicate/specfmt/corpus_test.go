package specfmt

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/taskproof/taskproof/internal/testenv"
)

// corpusRepo is a clone of a shared corpus bundle with its blobs read in one batch.
type corpusRepo struct {
	dir     string
	commits []string
	// trees maps commit → path → blob id, for the .md files of units only.
	trees map[string]map[string]string
	blobs map[string][]byte
}

// loadCorpus clones bundle name and reads every .md file under a unit directory at
// every commit of `git rev-list --all`, with the real git.
func loadCorpus(t *testing.T, name string) *corpusRepo {
	t.Helper()
	r := &corpusRepo{dir: testenv.CloneBundle(t, name), trees: map[string]map[string]string{}, blobs: map[string][]byte{}}
	r.commits = strings.Fields(testenv.Git(t, r.dir, "rev-list", "--all"))
	var want []string
	for _, c := range r.commits {
		files := map[string]string{}
		for _, line := range strings.Split(testenv.Git(t, r.dir, "ls-tree", "-r", "-z", c), "\x00") {
			meta, p, ok := strings.Cut(line, "\t")
			if !ok || !strings.HasSuffix(p, ".md") {
				continue
			}
			f := strings.Fields(meta)
			if len(f) != 3 || f[1] != "blob" {
				continue
			}
			files[p] = f[2]
			if _, ok := r.blobs[f[2]]; !ok {
				r.blobs[f[2]] = nil
				want = append(want, f[2])
			}
		}
		r.trees[c] = files
	}
	cmd := exec.Command(testenv.LookPath(t, "git"), "cat-file", "--batch")
	cmd.Dir, cmd.Env = r.dir, testenv.GitEnv()
	cmd.Stdin = strings.NewReader(strings.Join(want, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	br := bufio.NewReader(bytes.NewReader(out))
	for range want {
		hdr, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading cat-file header: %v", err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 {
			t.Fatalf("cat-file header %q", hdr)
		}
		n, _ := strconv.Atoi(f[2])
		b := make([]byte, n+1)
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatalf("reading blob %s: %v", f[0], err)
		}
		r.blobs[f[0]] = b[:n]
	}
	return r
}

// fsAt is the .md files of commit c as an fs.FS rooted at the repository root.
func (r *corpusRepo) fsAt(c string) fstest.MapFS {
	m := fstest.MapFS{}
	for p, id := range r.trees[c] {
		m[p] = &fstest.MapFile{Data: r.blobs[id]}
	}
	return m
}

// show is `git show C:path` with the real git, for hand checks.
func (r *corpusRepo) show(t *testing.T, c, p string) []byte {
	return []byte(testenv.Git(t, r.dir, "show", c+":"+p))
}

// corpusStats counts what parsing every tasks file of every commit found.
type corpusStats struct {
	files, tasks, ticked, sections int
	units                          map[string]bool
}

func (s corpusStats) String() string {
	return fmt.Sprintf("files=%d tasks=%d ticked=%d sections=%d units=%d", s.files, s.tasks, s.ticked, s.sections, len(s.units))
}

// TestCorpora parses every tasks file of a unit at every commit of each shared corpus,
// computes every task's section, and pins the counts.
func TestCorpora(t *testing.T) {
	tests := []struct {
		bundle string
		want   string
		// dups are the tasks files (commit:path) expected to fail with a
		// *DuplicateTaskError, all with dupID on dupLines.
		dups     int
		dupPath  string
		dupID    string
		dupLines [2]int
	}{
		// Checkbox items without a task ID are tasks (derived IDs): the task and
		// ticked counts are every checkbox line of every tasks file at every
		// commit, which a plain line count agrees with (python3 over git ls-tree and
		// git cat-file, regex ^[ \t]*([-*+]|[0-9]+[.)])[ \t]+\[[ xX-]\]([ \t]|$),
		// no checkbox of these corpora lies in a code fence or an HTML comment).
		// youbencha: 1394 checkbox lines, 68 of them without an ID (1326 with).
		{bundle: "speckit-youbencha", want: "files=11 tasks=1394 ticked=887 sections=815 units=3"},
		// openspec-agent-validator: fix-gauntlet-iteration-tracking/tasks.md really has
		// two tasks "5.3" (lines 45 and 49, under different ### headings of
		// "## Task 5"): a subject "<feature>/5.3" would be ambiguous, so it stays an
		// error at every commit holding that file (54 commit:path pairs, counted with
		// git ls-tree and grep). The other 2026 files hold 43482 checkbox lines
		// (37831 ticked), 12503 of them without an ID (30979 with, 26671 ticked);
		// 175 of the ID-less tasks' titles or groups name a requirement (sections
		// 2729 → 2904).
		{
			bundle: "openspec-agent-validator", want: "files=2026 tasks=43482 ticked=37831 sections=2904 units=74",
			dups: 54, dupPath: "fix-gauntlet-iteration-tracking/tasks.md", dupID: "5.3", dupLines: [2]int{45, 49},
		},
		// The Kiro corpora have no ID-less checkbox items: counts as before.
		{bundle: "kiro-task-orchestrator", want: "files=3 tasks=110 ticked=88 sections=73 units=1"},
		{bundle: "kiro-task-orchestrator-maxspec", want: "files=29 tasks=1116 ticked=868 sections=736 units=1"},
	}
	for _, tt := range tests {
		t.Run(tt.bundle, func(t *testing.T) {
			r := loadCorpus(t, tt.bundle)
			st := corpusStats{units: map[string]bool{}}
			dups := 0
			for _, c := range r.commits {
				var paths []string
				for p := range r.trees[c] {
					paths = append(paths, p)
				}
				sort.Strings(paths)
				fsys := r.fsAt(c)
				for _, p := range paths {
					u, ok := UnitForTasksPath(p)
					if !ok {
						continue
					}
					f, err := ParseTasks(u, r.blobs[r.trees[c][p]])
					var de *DuplicateTaskError
					if errors.As(err, &de) && tt.dups > 0 && strings.HasSuffix(p, tt.dupPath) &&
						de.ID == tt.dupID && [2]int{de.FirstLine, de.SecondLine} == tt.dupLines {
						dups++
						continue
					}
					if err != nil {
						t.Errorf("%s:%s: %v", c[:12], p, err)
						continue
					}
					st.files++
					st.units[u.Dir] = true
					for _, tk := range f.Tasks {
						st.tasks++
						if tk.Ticked() {
							st.ticked++
						}
						s, err := Section(fsys, u, tk)
						if err != nil {
							t.Errorf("%s:%s: task %s: %v", c[:12], p, tk.ID, err)
							continue
						}
						if s != nil {
							st.sections++
						}
					}
				}
			}
			if got := st.String(); got != tt.want {
				t.Errorf("counts = %s, want %s", got, tt.want)
			}
			if dups != tt.dups {
				t.Errorf("files with duplicate task %q = %d, want %d", tt.dupID, dups, tt.dups)
			}
		})
	}
}

// TestCorpusHandChecked pins line_hash and section_hash values of real tasks, each
// computed by hand outside Go: `git show C:path | sed -n Np` through a few lines of
// python3 (strip "\n" and "\r", replace the box's inner character with a space,
// sha256) for line_hash, and `sed -n A,Bp` of the spec document, lines joined with
// "\n", for section_hash.
func TestCorpusHandChecked(t *testing.T) {
	tests := []struct {
		bundle, commit, path string
		id                   string
		lineNo               int
		box                  byte
		lineHash             string
		section              string // "" for spec: null
		sectionHash          string
	}{
		{ // CRLF file, [X] tick, labels [US2]
			"speckit-youbencha", "273134822fefdb723123db834248c85a1e5b5fc5", "specs/001-face-framework/tasks.md",
			"T066", 154, 'X', "1bfc0778299c2ac76c5cdb73f5be98844c43ec84dc222656f03b760a635d29a7",
			"US2", "ad455eff5f8cea6759398348879803cd49eadf55fbc783372f3f06b4338115dc", // spec.md lines 26-41
		},
		{ // CRLF, no story label → spec null
			"speckit-youbencha", "273134822fefdb723123db834248c85a1e5b5fc5", "specs/004-agent-file-install/tasks.md",
			"T001", 24, 'X', "27ba3d0ade41d5464ae5ddf3e941ffef2d9fac8b6c64ca720d2b842e82e043ac", "", "",
		},
		{ // group heading names no requirement of the change
			"openspec-agent-validator", "d4794efdef462a32996ee52dea748debba86b8e1",
			"openspec/changes/archive/2026-01-23-add-review-trust-setting/tasks.md",
			"1.1", 4, 'x', "2e594b331639e8a969c44c5ebca2591ccdac989154bb1aa2e57589a9e508bb5c", "", "",
		},
		{ // group "## 3. Log clean process" names "Log Clean Process" (specs/log-management/spec.md lines 28-47)
			"openspec-agent-validator", "d4794efdef462a32996ee52dea748debba86b8e1",
			"openspec/changes/archive/2026-01-23-remove-rerun-unify-logs/tasks.md",
			"3.1", 14, 'x', "9ad4e893b558c9b987b16cb2a0f05ee3be1da23df0bb7fdda8b91c435d5ea4a2",
			"Log Clean Process", "2edc78ba1089e1e802897cd998e1fcbe912c6dc37e2de247ff13e39a9ca540c5",
		},
		{ // Japanese sub-task with its own _Requirements: 4.1, 4.2_ (requirements.md lines 59-70)
			"kiro-task-orchestrator-maxspec", "085ce0b262b85f67af88da3819129eb6776ae947",
			".kiro/specs/task-management-mcp-server/tasks.md",
			"1.1", 8, 'x', "11bb97d517e5e9fa9c9fa361803ddffdb025b98fea1722a104bdfb7caceea4a8",
			"4", "24d281fc9471c5c04b72fc83291dd1bbe612bd2332641fce37470cb73ab319d7",
		},
		{ // "17." → ID 17, _Requirements: Requirement 2, 3_ (requirements.md lines 23-37 and 38-62)
			"kiro-task-orchestrator-maxspec", "769e3a08ac6f4dad940bd107e7962ad6ced7eea9",
			".kiro/specs/task-management-mcp-server/tasks.md",
			"17", 3, ' ', "bc10b13b89ba0b0bdab60e12facbcb75c03d8ea8cdce60cf7fdf6697cbbb54df",
			"2,3", "86c642e6c2e55c73fbbc1cbf18525c2eb7f8ff1736e5d7e8cf291137c54921ab",
		},
		{ // 17.1 has no _Requirements_ and inherits 17's
			"kiro-task-orchestrator-maxspec", "769e3a08ac6f4dad940bd107e7962ad6ced7eea9",
			".kiro/specs/task-management-mcp-server/tasks.md",
			"17.1", 8, ' ', "",
			"2,3", "86c642e6c2e55c73fbbc1cbf18525c2eb7f8ff1736e5d7e8cf291137c54921ab",
		},
		{ // _Requirements: コード品質保証_ is free text: cites no numbered requirement
			"kiro-task-orchestrator-maxspec", "085ce0b262b85f67af88da3819129eb6776ae947",
			".kiro/specs/task-management-mcp-server/tasks.md",
			"1.3", 18, ' ', "", "", "",
		},
	}
	repos := map[string]*corpusRepo{}
	for _, tt := range tests {
		if repos[tt.bundle] == nil {
			repos[tt.bundle] = loadCorpus(t, tt.bundle) // clones live as long as t
		}
	}
	for _, tt := range tests {
		t.Run(tt.bundle+"/"+tt.id, func(t *testing.T) {
			r := repos[tt.bundle]
			u, ok := UnitForTasksPath(tt.path)
			if !ok {
				t.Fatalf("UnitForTasksPath(%q) = false", tt.path)
			}
			f, err := ParseTasks(u, r.show(t, tt.commit, tt.path))
			if err != nil {
				t.Fatal(err)
			}
			tk, ok := f.Find(tt.id)
			if !ok {
				t.Fatalf("task %s not found", tt.id)
			}
			if tk.LineNo != tt.lineNo || tk.Box != tt.box {
				t.Errorf("task %s: line %d box %q, want line %d box %q", tt.id, tk.LineNo, tk.Box, tt.lineNo, tt.box)
			}
			if tt.lineHash != "" {
				if got := sha256Hex(tk.OpenLine()); got != tt.lineHash {
					t.Errorf("line_hash = %s, want %s (open line %q)", got, tt.lineHash, tk.OpenLine())
				}
			}
			s, err := Section(r.fsAt(tt.commit), u, tk)
			if err != nil {
				t.Fatal(err)
			}
			if tt.section == "" {
				if s != nil {
					t.Errorf("section = %q, want spec null", s.Name)
				}
				return
			}
			if s == nil {
				t.Fatalf("section = nil, want %q", tt.section)
			}
			if s.Name != tt.section || sha256Hex(string(s.Text)) != tt.sectionHash {
				t.Errorf("section %q hash %s, want %q %s\n%s", s.Name, sha256Hex(string(s.Text)), tt.section, tt.sectionHash, s.Text)
			}
		})
	}
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
