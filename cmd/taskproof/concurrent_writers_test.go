package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// writersTries is how many times each race below is run: a lost race is
// only seen when the processes interleave, which a few tries may miss.
const writersTries = 25

// raceResult is one process of a race: its exit code and output.
type raceResult struct {
	stdout, stderr string
	code           int
}

// race runs the binary once per argument list, all at once, in r.
func (r *cliRepo) race(t *testing.T, argLists ...[]string) []raceResult {
	t.Helper()
	out := make([]raceResult, len(argLists))
	cmds := make([]*exec.Cmd, len(argLists))
	errs := make([]error, len(argLists))
	stdout, stderr := make([]bytes.Buffer, len(argLists)), make([]bytes.Buffer, len(argLists))
	for i, args := range argLists {
		cmds[i] = exec.Command(testenv.Binary(t), args...)
		cmds[i].Dir, cmds[i].Env = r.dir, testenv.GitEnv()
		cmds[i].Stdout, cmds[i].Stderr = &stdout[i], &stderr[i]
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, cmd := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = cmd.Run()
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		out[i].stdout, out[i].stderr = stdout[i].String(), stderr[i].String()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			out[i].code = ee.ExitCode()
		case err != nil:
			t.Fatalf("running %v: %v", argLists[i], err)
		}
	}
	return out
}

// payloadDigests are the SHA-256 digests of the statements a note holds, and
// how many of its envelopes are signed.
func payloadDigests(t *testing.T, note string) (map[string]bool, int) {
	t.Helper()
	out, signed := map[string]bool{}, 0
	for _, e := range envelopes(t, note) {
		sum := sha256.Sum256(e.Payload)
		out[hex.EncodeToString(sum[:])] = true
		if len(e.Signatures) > 0 {
			signed++
		}
	}
	return out, signed
}

// writtenDigests are the statement digests an `attest tick --format json`
// report says it wrote.
func writtenDigests(t *testing.T, stdout string) []string {
	t.Helper()
	var rep struct {
		Written []struct {
			Statements []struct {
				SHA256 string `json:"sha256"`
			} `json:"statements"`
		} `json:"written"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("attest tick report: %v\n%s", err, stdout)
	}
	var out []string
	for _, w := range rep.Written {
		for _, s := range w.Statements {
			out = append(out, s.SHA256)
		}
	}
	return out
}

// TestConcurrentWritersOfOneTask: writers of one task that race (three `attest
// tick` runs with different statements, no --force) never both succeed with
// one's statements silently replaced: exactly one exits 0 and its statements
// are in the note; every other exits 2 naming the statements that are there.
// The "already attested" check holds on the note each one actually merges
// into, under the notes ref's lock.
func TestConcurrentWritersOfOneTask(t *testing.T) {
	r := newCLIRepo(t)
	writers := [][]string{
		{"--verdict", "verified"},
		{"--verdict", "regression_only", "--regression-reason", "planning_work"},
		{"--verdict", "regression_only", "--regression-reason", "author_wrote_none"},
	}
	for try := range writersTries {
		testenv.Git(t, r.dir, "update-ref", "-d", "refs/notes/speccoder")
		var args [][]string
		for _, w := range writers {
			args = append(args, append([]string{"attest", "tick", "--commit", r.c1, "--task", "T001", "--unsigned", "--format", "json"}, w...))
		}
		res := r.race(t, args...)
		have, _ := payloadDigests(t, r.note(t, r.c1))
		won := 0
		for i, p := range res {
			switch p.code {
			case 0:
				won++
				for _, d := range writtenDigests(t, p.stdout) {
					if !have[d] {
						t.Errorf("try %d: writer %d exited 0 but its statement %s is not in the note (replaced silently)", try, i, d[:12])
					}
				}
			case 2:
				if !strings.Contains(p.stderr, "already attested") || !strings.Contains(p.stderr, "001-cli/T001") {
					t.Errorf("try %d: writer %d exit 2 does not name what is there: %s", try, i, p.stderr)
				}
			default:
				t.Errorf("try %d: writer %d exit %d: %s", try, i, p.code, p.stderr)
			}
		}
		if won != 1 {
			t.Errorf("try %d: %d writers exited 0, want exactly 1", try, won)
		}
		if t.Failed() {
			return
		}
	}
}

// TestConcurrentSignCountsKept: `attest sign` racing with two writers of one
// task (no --force) reports exactly the signatures the note keeps: the
// writer that loses the race is refused (exit 2) rather than replacing lines
// sign has just signed, and the winner's lines are signed too when they land
// first, or left unsigned when they land after — never counted and then
// dropped.
func TestConcurrentSignCountsKept(t *testing.T) {
	r := newCLIRepo(t)
	key, _ := sshKeyFile(t, "")
	for try := range writersTries {
		testenv.Git(t, r.dir, "update-ref", "-d", "refs/notes/speccoder")
		if _, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--task", "T002", "--verdict", "verified", "--unsigned"); code != 0 {
			t.Fatalf("attest tick: exit %d: %s", code, stderr)
		}
		res := r.race(t,
			[]string{"attest", "sign", "--signer", "ssh", "--key", key, "--format", "json", r.c1},
			[]string{"attest", "tick", "--commit", r.c1, "--task", "T001", "--verdict", "verified", "--unsigned"},
			[]string{"attest", "tick", "--commit", r.c1, "--task", "T001", "--verdict", "regression_only", "--regression-reason", "planning_work", "--unsigned"},
		)
		if res[0].code != 0 {
			t.Fatalf("try %d: attest sign: exit %d: %s", try, res[0].code, res[0].stderr)
		}
		var rep struct {
			Signed []struct {
				Signed int `json:"signed"`
			} `json:"signed"`
		}
		if err := json.Unmarshal([]byte(res[0].stdout), &rep); err != nil || len(rep.Signed) != 1 {
			t.Fatalf("try %d: attest sign report %q: %v", try, res[0].stdout, err)
		}
		if _, signed := payloadDigests(t, r.note(t, r.c1)); rep.Signed[0].Signed != signed {
			t.Errorf("try %d: attest sign reported %d envelopes signed; the note keeps %d signed", try, rep.Signed[0].Signed, signed)
		}
		if res[1].code+res[2].code != 2 || res[1].code*res[2].code != 0 {
			t.Errorf("try %d: the two ticks of T001 exit %d and %d; want one 0 and one 2\n%s\n%s", try, res[1].code, res[2].code, res[1].stderr, res[2].stderr)
		}
		if t.Failed() {
			return
		}
	}
}

// TestConcurrentSkipDecisions: two skip decisions of one task at once never
// both exit 0 with the first record's ref moved off it: the ref moves by
// compare-and-swap from the value each checked, so one exits 0 and the other
// exits 2 naming the record the ref points at.
func TestConcurrentSkipDecisions(t *testing.T) {
	r := newCLIRepo(t)
	ref := "refs/speccoder/skipped/001-cli/T004"
	for try := range writersTries {
		testenv.Git(t, r.dir, "update-ref", "-d", ref)
		var args [][]string
		for _, reason := range []string{"later", "never"} {
			args = append(args, []string{"attest", "decide", "--commit", r.c3, "--task", "T004", "--verdict", "skipped",
				"--by", "dev@example.invalid", "--reason", reason, "--unsigned"})
		}
		res := r.race(t, args...)
		if res[0].code+res[1].code != 2 || res[0].code*res[1].code != 0 {
			t.Fatalf("try %d: the two decisions exit %d and %d; want one 0 and one 2\n%s\n%s", try, res[0].code, res[1].code, res[0].stderr, res[1].stderr)
		}
		loser := res[0]
		if loser.code == 0 {
			loser = res[1]
		}
		record := strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", ref))
		if !strings.Contains(loser.stderr, "already attested") || !strings.Contains(loser.stderr, record) {
			t.Fatalf("try %d: the refused decision does not name the record %s:\n%s", try, record, loser.stderr)
		}
	}
}
