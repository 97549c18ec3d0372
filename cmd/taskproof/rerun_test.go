package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nextSecond waits until a second begins: a statement issued after it has
// another time than one issued before.
func nextSecond() {
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
}

// TestRunAgainLaterIsHeld: a command run again a second later (after an
// interruption) over statements the note holds but for their time of issue
// reports them "already held" and changes nothing — attest tick, attest
// decide attested and attest decide skipped (no second skip record) — while
// a run that would say something else is refused as before.
func TestRunAgainLaterIsHeld(t *testing.T) {
	r := newVFRepo(t)
	note := func(rev string) string {
		t.Helper()
		return r.git(t, "notes", "--ref=refs/notes/speccoder", "show", rev)
	}
	again := func(want string, args ...string) {
		t.Helper()
		nextSecond()
		out, _ := r.run(t, 0, args...)
		if !strings.HasPrefix(out, want) {
			t.Errorf("%v run again a second later: %q, want %q", args, out, want)
		}
	}

	tick := []string{"attest", "tick", "--verdict", "regression_only", "--regression-reason", "planning_work", "--key", r.key}
	c := r.tick(t, "T004")
	r.run(t, 0, tick...)
	before := note(c)
	again("already held", tick...)
	if got := note(c); got != before {
		t.Errorf("attest tick run again changed the note:\n%s\nwas\n%s", got, before)
	}
	_, errOut := r.run(t, 2, "attest", "tick", "--verdict", "verified", "--key", r.key)
	if !strings.Contains(errOut, "already attested") {
		t.Errorf("another verdict: %s", errOut)
	}

	skip := []string{"attest", "decide", "--task", "T001", "--verdict", "skipped", "--by", "dev", "--reason", "superseded", "--key", r.key}
	r.run(t, 0, skip...)
	ref := "refs/speccoder/skipped/001-greeting/T001"
	record := r.git(t, "rev-parse", ref)
	again("already held", skip...)
	if got := r.git(t, "rev-parse", ref); got != record {
		t.Errorf("attest decide skipped run again moved %s from %s to %s", ref, record, got)
	}
	r.run(t, 2, "attest", "decide", "--task", "T001", "--verdict", "skipped", "--by", "dev", "--reason", "another reason", "--key", r.key)

	p := filepath.Join(r.dir, "specs/001-greeting/tasks.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	vfWrite(t, p, string(b)+"- [ ] T005 [US1] Greet in French\n")
	r.git(t, "commit", "-q", "-am", "T005")
	d := r.tick(t, "T005")
	decide := []string{"attest", "decide", "--task", "T005", "--verdict", "attested", "--by", "dev", "--reason", "checked by hand", "--key", r.key}
	r.run(t, 0, decide...)
	before = note(d)
	again("already held", decide...)
	if got := note(d); got != before {
		t.Errorf("attest decide attested run again changed the note:\n%s\nwas\n%s", got, before)
	}
}
