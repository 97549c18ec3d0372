package attest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// tickRecord is the part of `taskproof ticks --format json` the corpus test reads.
type tickRecord struct {
	Kind     string       `json:"kind"`
	Commit   gitref.Hash  `json:"commit"`
	Parent   gitref.Hash  `json:"parent"`
	Path     string       `json:"path"`
	OldPath  string       `json:"old_path"`
	TaskID   string       `json:"task_id"`
	Unit     specfmt.Unit `json:"unit"`
	LineHash string       `json:"line_hash"`
	// TextChanged: the tick also edits the task's text; line_hash covers the
	// text as ticked, so verify reports ok (attest tick notes it).
	TextChanged bool `json:"text_changed"`
	// Born: the task is new in the commit, added already ticked to a tasks file
	// the parent has; it is attested like any tick.
	Born bool `json:"born"`
}

// runBinary runs the taskproof binary in dir and returns stdout, stderr and the
// exit code.
func runBinary(t testing.TB, bin, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = testenv.GitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%s %v: %v", bin, args, err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

// maxTasksPerNote is how many regression_only ticks fit in one note with every
// statement (task-verification + VSA: two lines each; docs/format.md#limits: 64 lines). Beyond
// it, attest writes the task-verification statements alone.
const maxTasksPerNote = noteline.MaxNoteLines / 2

// TestCorpusAttestTick attests every tick commit of three real projects' histories
// and checks every written statement: it decodes strictly, its predicate
// validates against the schema, its subject is <feature>/<task> at the commit, and
// its line_hash, tree and section_hash are the ones `taskproof ticks`, `git
// rev-parse C^{tree}` and specfmt.Section + predicate.SectionHash give; every
// envelope carries one SSH signature that verifies against the test's allowed
// signers.
//
// CI has two cores: the taskproof binary runs for every tick commit of
// speckit-youbencha (three commits) and for every third tick commit of the
// bigger corpora; their other commits call attest.Tick in-process.
//
// A tick of a task ID that its tasks file repeats (openspec-agent-validator's
// fix-gauntlet-iteration-tracking writes 5.3 under two headings, and 400b361f
// ticks both lines) is a tick of its line: each line's statements bind it (its
// own line_hash and section) and verify ok, side by side in one note
// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also
// when its task ID repeats"). Only a line that another line with its ID reads
// the same as would be refused (exit code 2, the lines named; none of the
// corpora has one); the test requires agent-validator's two 5.3 ticks to be
// attested.
//
// A commit ticking more than 32 tasks cannot hold their statements in one note
// (64 lines, docs/format.md#limits): the test checks that attesting all of them is refused with
// exit code 2 and writes nothing, then attests the first 32 with --task.
//
// Every attested tick verifies ok (verify.Verifier.Object), including the ticks
// that also rewrite the task's text (agent-validator 05e24301 ticks 4.2 and 5.1
// and rewords them: line_hash covers the line as ticked) and the Born ticks
// (tasks added already ticked to an existing tasks file: agent-validator has 18
// in 1010b573, 2e401a21 and 1e5bc668); the test requires both kinds to occur in
// agent-validator.
func TestCorpusAttestTick(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	bin := testenv.Binary(t)
	for _, tc := range []struct {
		bundle      string
		binaryEvery int
	}{
		{"speckit-youbencha", 1},
		{"openspec-agent-validator", 3},
		{"kiro-task-orchestrator-maxspec", 3},
	} {
		t.Run(tc.bundle, func(t *testing.T) {
			dir := testenv.CloneBundle(t, tc.bundle)
			key, allowed := sshKey(t, "")
			testenv.Git(t, dir, "config", "gpg.format", "ssh")
			testenv.Git(t, dir, "config", "user.signingKey", key)

			out, stderr, code := runBinary(t, bin, dir, "ticks", "--format", "json")
			if code != 0 {
				t.Fatalf("ticks: exit %d: %s", code, stderr)
			}
			var listed struct {
				SchemaVersion int          `json:"schema_version"`
				Ticks         []tickRecord `json:"ticks"`
			}
			if err := json.Unmarshal([]byte(out), &listed); err != nil {
				t.Fatal(err)
			}
			var commits []gitref.Hash
			byCommit := map[gitref.Hash][]tickRecord{}
			for _, r := range listed.Ticks {
				if r.Kind != "tick" {
					continue
				}
				if _, seen := byCommit[r.Commit]; !seen {
					commits = append(commits, r.Commit)
				}
				byCommit[r.Commit] = append(byCommit[r.Commit], r)
			}
			if len(commits) == 0 {
				t.Fatal("ticks lists no tick commit")
			}

			repo, err := gitref.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()
			notes, err := repo.Notes("")
			if err != nil {
				t.Fatal(err)
			}
			sg := sshSigner(t, key)
			as, err := trust.LoadAllowedSigners(allowed)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := trust.NewTrust(trust.WithAllowedSigners(as))
			if err != nil {
				t.Fatal(err)
			}

			binaryRuns, statementsChecked, refused := 0, 0, 0
			textChanged, born, repeated := 0, 0, 0
			for i, c := range commits {
				ticks := byCommit[c]
				useBinary := i%tc.binaryEvery == 0
				// A tick whose line another line with its task ID reads the same as
				// (at the commit) is refused: no statement could say which of the
				// two it binds. Only that ID: the file's other ticks attest
				// normally, and so do the lines of an ID repeated with other text.
				dup := map[string]bool{} // path + "\x00" + task ID → a ticked line read the same twice
				for _, r := range ticks {
					k := r.Path + "\x00" + r.TaskID
					n := taskLines(t, repo, c, r.Path, r.Unit, r.TaskID, r.LineHash)
					dup[k] = dup[k] || n > 1
					if taskLines(t, repo, c, r.Path, r.Unit, r.TaskID, "") > 1 {
						repeated++
					}
				}
				var want []tickRecord
				var ids []string
				seen := map[string]bool{}
				for _, r := range ticks {
					if dup[r.Path+"\x00"+r.TaskID] {
						refused++
						continue
					}
					if !seen[r.TaskID] && len(ids) < noteline.MaxNoteLines {
						seen[r.TaskID] = true
						ids = append(ids, r.TaskID)
					}
					if seen[r.TaskID] {
						want = append(want, r)
					}
				}
				attestTasks := func(tasks []string) error {
					if useBinary {
						binaryRuns++
						args := []string{"attest", "tick", "--commit", string(c), "--verdict", "regression_only",
							"--regression-reason", "planning_work", "--format", "json"}
						for _, id := range tasks {
							args = append(args, "--task", id)
						}
						out, stderr, code := runBinary(t, bin, dir, args...)
						switch {
						case code == 2 && strings.Contains(stderr, "note exceeds limits"):
							return notemerge.ErrNoteLimit
						case code == 2 && strings.Contains(stderr, "duplicate task id"):
							return specfmt.ErrDuplicateTask
						case code != 0:
							t.Fatalf("attest tick %s: exit %d: %s", c, code, stderr)
						}
						var res struct {
							SchemaVersion int              `json:"schema_version"`
							Written       []attest.Written `json:"written"`
						}
						if err := json.Unmarshal([]byte(out), &res); err != nil || res.SchemaVersion != 1 || len(res.Written) == 0 {
							t.Fatalf("attest tick %s --format json: %v\n%s", c, err, out)
						}
						return nil
					}
					_, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{
						Commit: c, Tasks: tasks, Verdict: predicate.RegressionOnly,
						Regression: map[string]any{"reason": "planning_work"}, Signers: []signer.Signer{sg},
					})
					if err != nil && !errors.Is(err, notemerge.ErrNoteLimit) && !errors.Is(err, specfmt.ErrDuplicateTask) {
						t.Fatalf("attest.Tick %s: %v", c, err)
					}
					return err
				}

				// All the commit's ticks at once: written whole (with the
				// task-verification statements alone when the whole set does not
				// fit, docs/format.md#limits), or refused with nothing written.
				var wantErr error
				switch {
				case anyTrue(dup):
					wantErr = specfmt.ErrDuplicateTask
				case len(ticks) > noteline.MaxNoteLines:
					wantErr = notemerge.ErrNoteLimit
				}
				err := attestTasks(nil)
				if !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
					t.Fatalf("%s (%d ticks): err = %v, want %v", c, len(ticks), err, wantErr)
				}
				if wantErr != nil {
					if n := note(t, dir, c); n != "" {
						t.Fatalf("%s: a refused tick wrote a note", c)
					}
					if len(ids) == 0 {
						continue
					}
					if err := attestTasks(ids); err != nil {
						t.Fatalf("%s: tasks %v: %v", c, ids, err)
					}
				}
				statementsChecked += checkCorpusNote(t, repo, tr, dir, c, want)
				// verify.Verifier.Object agrees: ok for every attested tick, also
				// one that edits the task's text, and a Born one.
				res, err := (&verify.Verifier{Repo: repo, Notes: notes, Trust: tr}).Object(c)
				if err != nil {
					t.Fatalf("verify %s: %v", c, err)
				}
				outcomes := map[[2]string]verify.Outcome{} // subject, line hash
				for _, o := range res {
					outcomes[[2]string{o.Task, o.LineHash}] = o.Outcome
				}
				for _, r := range want {
					if got := outcomes[[2]string{r.Unit.Feature + "/" + r.TaskID, r.LineHash}]; got != verify.OK {
						t.Errorf("verify %s %s/%s (text changed %v, born %v): %s, want ok", c, r.Unit.Feature, r.TaskID, r.TextChanged, r.Born, got)
					}
					if r.TextChanged {
						textChanged++
					}
					if r.Born {
						born++
					}
				}
			}
			if tc.bundle == "openspec-agent-validator" && (textChanged == 0 || born != 18 || repeated != 2 || refused != 0) {
				t.Errorf("%s: %d attested ticks that rewrite their text (want some), %d Born (want 18), %d ticks of a repeated task ID (want 2: 400b361f's 5.3), %d refused (want 0)", tc.bundle, textChanged, born, repeated, refused)
			}
			t.Logf("%s: %d tick commits, %d records, %d binary runs, %d task-verification statements checked, %d ticks of a repeated task ID, %d refused for lines read the same, %d text changed, %d born",
				tc.bundle, len(commits), len(listed.Ticks), binaryRuns, statementsChecked, repeated, refused, textChanged, born)
		})
	}
}

func anyTrue(m map[string]bool) bool {
	for _, v := range m {
		if v {
			return true
		}
	}
	return false
}

// taskLines counts the task lines with task ID id of the tasks file at path in
// commit, and, when lineHash is not "", whose line read as open has that
// line_hash (counted over the lenient parse's task lines, not with
// TasksFile.Lookup or LookupLine, which are under test).
func taskLines(t *testing.T, repo *gitref.Repo, commit gitref.Hash, path string, u specfmt.Unit, id, lineHash string) int {
	t.Helper()
	b, err := repo.File(commit, path)
	if err != nil {
		t.Fatalf("%s:%s: %v", commit, path, err)
	}
	f, err := specfmt.ParseTasks(u, b, specfmt.AllowDuplicateIDs())
	if err != nil {
		t.Fatalf("%s:%s: %v", commit, path, err)
	}
	n := 0
	for _, tk := range f.Tasks {
		if tk.ID == id && (lineHash == "" || predicate.LineHash(tk.OpenLine()) == lineHash) {
			n++
		}
	}
	return n
}

// checkCorpusNote checks the note of tick commit c holds, for each of ticks, a
// task-verification statement and a VSA with the facts of docs/format.md#hash-recipes recomputed
// independently; it returns the number of task-verification statements checked.
func checkCorpusNote(t *testing.T, repo *gitref.Repo, tr *trust.Trust, dir string, c gitref.Hash, ticks []tickRecord) int {
	t.Helper()
	n := note(t, dir, c)
	stmts, foreign := statements(t, n)
	if len(foreign) != 0 {
		t.Errorf("%s: %d unreadable note lines", c, len(foreign))
	}
	perTick := 2
	if len(ticks) > maxTasksPerNote {
		perTick = 1 // the task-verification statements alone (attest's fallback for bulk ticks, docs/format.md#statements)
	}
	if len(stmts) != perTick*len(ticks) {
		t.Errorf("%s: %d statements for %d ticks, want %d each", c, len(stmts), len(ticks), perTick)
	}
	tree := gitref.Hash(strings.TrimSpace(testenv.Git(t, dir, "rev-parse", string(c)+"^{tree}")))
	fsys, err := repo.FS(c)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*specfmt.TasksFile{}
	for _, s := range stmts {
		sr, err := trust.VerifySignatures(s.env, tr, fixedTime)
		if err != nil || len(s.env.Signatures) != 1 || sr.Status != verify.OK || len(sr.Signers) != 1 {
			t.Errorf("%s %s: signatures do not verify: %+v %v", c, s.st.Subjects[0].Name, sr, err)
		}
	}
	checked := 0
	for _, r := range ticks {
		// The tick's statements: its subject's task-verification statement
		// binding its line, and the VSA naming that statement (a tasks file
		// that repeats an ID has a tick per line under one subject name).
		subject := r.Unit.Feature + "/" + r.TaskID
		var tv, vsa *noteStatement
		for i := range stmts {
			s := &stmts[i]
			if s.st.Subjects[0].Name != subject {
				continue
			}
			if s.st.Subjects[0].Digest["gitCommit"] != string(c) || len(s.st.Subjects) != 1 {
				t.Errorf("%s: subject %+v", subject, s.st.Subjects)
			}
			if s.st.PredicateType == predicate.PredicateType && lineHashOf(s.st) == r.LineHash {
				tv = s
			}
		}
		for i := range stmts {
			s := &stmts[i]
			if tv != nil && s.st.Subjects[0].Name == subject && s.st.PredicateType == statement.VSAType && strings.Contains(string(s.env.Payload), statement.SHA256Hex(tv.env.Payload)) {
				vsa = s
			}
		}
		if tv == nil || (vsa == nil) != (perTick == 1) {
			t.Errorf("%s %s: task-verification statement missing, or VSA present=%v with %d statements per tick", c, subject, vsa != nil, perTick)
			continue
		}
		b, err := strictjson.Canonical(tv.st.Predicate)
		if err != nil {
			t.Fatal(err)
		}
		p, err := predicate.Decode(b)
		if err != nil {
			t.Errorf("%s %s: predicate does not validate: %v", c, subject, err)
			continue
		}
		checked++
		if p.Task.ID != r.TaskID || p.Task.LineHash != r.LineHash || p.Tree != string(tree) || p.Unit.Dir != r.Unit.Dir || string(p.Unit.Format) != string(r.Unit.Format) {
			t.Errorf("%s %s: task %s line_hash %s tree %s unit %s/%s; want %s %s %s %s/%s", c, subject,
				p.Task.ID, p.Task.LineHash, p.Tree, p.Unit.Format, p.Unit.Dir, r.TaskID, r.LineHash, tree, r.Unit.Format, r.Unit.Dir)
		}
		// section_hash recomputed from the tick commit's tasks file and spec documents.
		tf := files[r.Path]
		if tf == nil {
			content, err := repo.File(c, r.Path)
			if err != nil {
				t.Fatal(err)
			}
			if tf, err = specfmt.ParseTasks(r.Unit, content, specfmt.AllowDuplicateIDs()); err != nil {
				t.Fatalf("%s %s: %v", c, r.Path, err)
			}
			files[r.Path] = tf
		}
		var task specfmt.Task
		n := 0
		for _, tk := range tf.Tasks {
			if tk.ID == r.TaskID && predicate.LineHash(tk.OpenLine()) == r.LineHash {
				task, n = tk, n+1
			}
		}
		if n != 1 {
			t.Fatalf("%s %s: %d lines of task %s in %s read as line_hash %s, want 1", c, subject, n, r.TaskID, r.Path, r.LineHash)
		}
		sec, err := specfmt.Section(fsys, r.Unit, task)
		if err != nil {
			t.Fatalf("%s %s: section: %v", c, subject, err)
		}
		sp, hasSpec := p.Spec.Get()
		switch {
		case sec == nil && hasSpec:
			t.Errorf("%s %s: spec %+v, want null", c, subject, sp)
		case sec != nil && !hasSpec:
			t.Errorf("%s %s: spec null, want section %s", c, subject, sec.Name)
		case sec != nil:
			name, _ := sp.Section.Get()
			if name != sec.Name || sp.SectionHash != predicate.SectionHash(sec.Text) {
				t.Errorf("%s %s: spec %s %s, want %s %s", c, subject, name, sp.SectionHash, sec.Name, predicate.SectionHash(sec.Text))
			}
		}
		// The VSA names the task-verification statement by its payload's SHA-256.
		if vsa == nil {
			continue
		}
		var v struct {
			InputAttestations []struct {
				Name   string            `json:"name"`
				Digest map[string]string `json:"digest"`
			} `json:"inputAttestations"`
			ResourceURI string `json:"resourceUri"`
		}
		vb, _ := strictjson.Canonical(vsa.st.Predicate)
		if err := json.Unmarshal(vb, &v); err != nil {
			t.Fatal(err)
		}
		if len(v.InputAttestations) != 1 || v.InputAttestations[0].Name != predicate.PredicateType ||
			v.InputAttestations[0].Digest["sha256"] != statement.SHA256Hex(tv.env.Payload) || v.ResourceURI != fmt.Sprintf("git:%s", c) {
			t.Errorf("%s %s: VSA %s", c, subject, vb)
		}
	}
	return checked
}

// lineHashOf is a task-verification statement's task.line_hash, read from its
// predicate tree.
func lineHashOf(st *statement.Statement) string {
	p, _ := st.Predicate.(map[string]any)
	task, _ := p["task"].(map[string]any)
	h, _ := task["line_hash"].(string)
	return h
}
