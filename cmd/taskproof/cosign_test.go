package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// person is an SSH key of its own and its allowed signers line.
type person struct {
	key, line string
}

func newPerson(t *testing.T, principal string) person {
	t.Helper()
	key := filepath.Join(t.TempDir(), "id_ed25519")
	testenv.Run(t, nil, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", key)
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return person{key: key, line: principal + ` namespaces="in-toto" ` + string(pub)}
}

// trustFile writes an allowed signers file of people and a [signers] policy.
func trustFile(t *testing.T, people ...person) string {
	t.Helper()
	var b strings.Builder
	for _, p := range people {
		b.WriteString(p.line)
	}
	path := filepath.Join(t.TempDir(), "allowed_signers")
	vfWrite(t, path, b.String())
	return path
}

func policyFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.toml")
	vfWrite(t, path, "version = 1\n"+body)
	return path
}

// TestCoSigning: two people meet a two-person rule, each with their own key
// in their own clone: alice attests, bob adds his signature with attest sign
// (which says why when it signs nothing), and signatures added in two clones
// at once are joined by the notes merge; with [signers] count = "principals"
// one person's two keys are one signer.
func TestCoSigning(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	alice, bob, carol := newPerson(t, "alice@example.com"), newPerson(t, "bob@example.com"), newPerson(t, "carol@example.com")
	trust := trustFile(t, alice, bob, carol)
	min2, min3 := policyFile(t, "[signers]\nmin = 2\n"), policyFile(t, "[signers]\nmin = 3\n")
	gate := func(repo string, want int, policy, has string) {
		t.Helper()
		out, _ := w.run(repo, want, "verify", "--branch", "--base", "origin/main", "--allowed-signers", trust, "--policy", policy)
		if !strings.Contains(out, has) {
			t.Errorf("gate: want %q in\n%s", has, out)
		}
	}

	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	c := w.tick(a, "T001")
	w.run(a, 0, "attest", "tick", "--commit", c, "--verdict", "regression_only", "--regression-reason", "planning_work", "--key", alice.key)
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	w.run(a, 0, "notes", "push")
	gate(a, 1, min2, "1 distinct trusted key(s) signed, at least 2 required")

	// bob and carol each co-sign in a clone of their own, from the same notes.
	b, cc := w.clone("b"), w.clone("c")
	for _, clone := range []string{b, cc} {
		testenv.Git(t, clone, "switch", "-q", "feature")
		w.run(clone, 0, "notes", "fetch")
	}
	out, _ := w.run(b, 0, "attest", "sign", "--key", bob.key, c)
	if !strings.Contains(out, "signed 2 envelope(s)") {
		t.Errorf("bob's attest sign: %s", out)
	}
	out, _ = w.run(b, 0, "attest", "sign", "--key", bob.key, c)
	if !strings.Contains(out, "signed 0 envelope(s) (2 envelope(s) already carry this key's signature)") {
		t.Errorf("bob signing again says nothing of why: %s", out)
	}
	w.run(b, 0, "notes", "push")
	gate(b, 0, min2, "conclusion: success")
	w.run(cc, 0, "attest", "sign", "--key", carol.key, c)
	w.run(cc, 0, "notes", "push") // merges with bob's push
	w.run(a, 0, "notes", "fetch")
	gate(a, 0, min3, "conclusion: success")

	// One person with two keys: two keys, one principal.
	alice2 := newPerson(t, "alice@example.com")
	twoKeys := trustFile(t, alice, alice2, bob)
	principals := policyFile(t, "[signers]\nmin = 2\ncount = \"principals\"\n")
	d := w.tick(a, "T002")
	w.run(a, 0, "attest", "tick", "--commit", d, "--verdict", "regression_only", "--regression-reason", "planning_work", "--key", alice.key, "--key", alice2.key)
	out, _ = w.run(a, 1, "verify", d, "--allowed-signers", twoKeys, "--policy", principals)
	if !strings.Contains(out, `1 distinct principal(s) signed with trusted keys, at least 2 required ("alice@example.com")`) {
		t.Errorf("one person with two keys:\n%s", out)
	}
	w.run(a, 0, "verify", d, "--allowed-signers", twoKeys, "--policy", min2) // counted by key, as documented
	w.run(a, 0, "attest", "sign", "--key", bob.key, d)
	w.run(a, 0, "verify", d, "--allowed-signers", twoKeys, "--policy", principals)
}

// TestTickCoSignsHeldStatements: attest tick run again with another key over
// the statements the note holds — a second later, which changes nothing but
// their time of issue — adds its signature beside theirs instead of calling
// them "already held"; a run that would add no signature is a retry. Two
// people co-signing so in clones of their own have their signatures joined
// by the notes merge, the same statement signed by all three.
func TestTickCoSignsHeldStatements(t *testing.T) {
	r := newVFRepo(t)
	bob := newPerson(t, "bob@example.com")
	trust := trustFile(t, person{key: r.key, line: mustRead(t, r.allowed)}, bob)
	min2 := policyFile(t, "[signers]\nmin = 2\n")
	tick := []string{"attest", "tick", "--verdict", "regression_only", "--regression-reason", "planning_work"}
	for _, c := range []struct {
		name        string
		first, then []string
		want        string
	}{
		{"unsigned, then a key", []string{"--unsigned"}, []string{"--key", r.key}, "co-signed"},
		{"a key, then another", []string{"--key", r.key}, []string{"--key", bob.key}, "co-signed"},
		{"a key, then unsigned", []string{"--key", r.key}, []string{"--unsigned"}, "already held"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.git(t, "notes", "--ref", "refs/notes/speccoder", "remove", "--ignore-missing", "HEAD")
			r.run(t, 0, append(tick, c.first...)...)
			nextSecond()
			out, _ := r.run(t, 0, append(tick, c.then...)...)
			if !strings.HasPrefix(out, c.want) {
				t.Fatalf("second run: %s; want %q", out, c.want)
			}
			switch c.name {
			case "a key, then another":
				r.run(t, 0, "verify", "HEAD", "--allowed-signers", trust, "--policy", min2)
			case "unsigned, then a key":
				r.run(t, 0, "verify", "HEAD", "--allowed-signers", r.allowed)
			}
		})
	}
}

// TestCoSignedInTwoClonesMerge: bob and carol each add their signature with
// attest tick to the statement alice pushed, in clones of their own; the
// second push merges the two notes into one envelope per statement carrying
// all three signatures (each once), with nothing displaced to the conflicts
// ref, and a three-person rule holds.
func TestCoSignedInTwoClonesMerge(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	alice, bob, carol := newPerson(t, "alice@example.com"), newPerson(t, "bob@example.com"), newPerson(t, "carol@example.com")
	trust := trustFile(t, alice, bob, carol)
	min3 := policyFile(t, "[signers]\nmin = 3\n")
	tick := []string{"attest", "tick", "--verdict", "regression_only", "--regression-reason", "planning_work"}
	c := w.tick(a, "T001")
	testenv.Git(t, a, "push", "-q", "origin", "HEAD")
	w.run(a, 0, append(tick, "--commit", c, "--key", alice.key)...)
	w.run(a, 0, "notes", "push")
	b, cc := w.clone("b"), w.clone("c")
	nextSecond()
	for _, s := range []struct{ repo, key string }{{b, bob.key}, {cc, carol.key}} {
		w.run(s.repo, 0, "notes", "fetch")
		out, _ := w.run(s.repo, 0, append(tick, "--commit", c, "--key", s.key)...)
		if !strings.HasPrefix(out, "co-signed") {
			t.Fatalf("co-signing with attest tick: %s", out)
		}
	}
	w.run(b, 0, "notes", "push")
	w.run(cc, 0, "notes", "push") // merges bob's signatures with carol's
	w.run(a, 0, "notes", "fetch")
	note := testenv.Git(t, a, "notes", "--ref=refs/notes/speccoder", "show", c)
	lines := strings.Split(strings.TrimSpace(note), "\n")
	for _, l := range lines {
		if n := strings.Count(l, `"keyid"`); n != 3 {
			t.Errorf("a statement with %d signatures, want 3: %s", n, l)
		}
	}
	if out := testenv.Git(t, a, "for-each-ref", "refs/notes/"); strings.Contains(out, "conflicts") {
		t.Errorf("signatures of one statement displaced as a conflict:\n%s\n%s", out, testenv.Git(t, a, "log", "-p", "refs/notes/speccoder-conflicts"))
	}
	w.run(a, 0, "verify", c, "--allowed-signers", trust, "--policy", min3)
}

// runCode runs the binary in dir and returns its output and exit code.
func runCode(t *testing.T, bin, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = testenv.GitEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}
