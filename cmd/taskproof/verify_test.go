package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// vfRepo is a spec-kit repository built with the real git: main holds the spec,
// the open tasks and the project's allowed signers file; branch feature ticks
// T002 (attested by the taskproof binary, signed with an ed25519 key from the
// real ssh-keygen) and T003 (attested unsigned).
type vfRepo struct {
	bin, dir, key, allowed string
	root, base, t2, t3     string
}

const vfTasks = `# Tasks: Greeting CLI

## Phase 1: User Story 1 - Greet a person by name (Priority: P1)

- [ ] T001 [US1] Create the greet command
- [ ] T002 [US1] Write the acceptance test for greet Ada
- [ ] T003 [US1] Print Hello, <name>!
- [ ] T004 [US1] Default the name to world
`

const vfSpec = `# Feature Specification: Greeting CLI

### User Story 1 - Greet a person by name (Priority: P1)

1. **Given** the CLI, **When** the user runs greet Ada, **Then** it prints Hello, Ada!
`

func newVFRepo(t *testing.T) *vfRepo {
	t.Helper()
	r := &vfRepo{bin: testenv.Binary(t), dir: filepath.Join(t.TempDir(), "repo")}
	keys := t.TempDir()
	r.key = filepath.Join(keys, "id_ed25519")
	cmd := exec.Command(testenv.LookPath(t, "ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", "dev", "-f", r.key)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(r.key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	signers := `dev@example.invalid namespaces="in-toto" ` + string(pub)
	r.allowed = filepath.Join(keys, "allowed_signers")
	vfWrite(t, r.allowed, signers)

	testenv.Git(t, "", "init", "-q", "-b", "main", r.dir)
	vfWrite(t, filepath.Join(r.dir, "specs/001-greeting/tasks.md"), vfTasks)
	vfWrite(t, filepath.Join(r.dir, "specs/001-greeting/spec.md"), vfSpec)
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "-m", "spec")
	r.root = r.git(t, "rev-parse", "HEAD")
	vfWrite(t, filepath.Join(r.dir, ".github/allowed_signers"), signers)
	vfWrite(t, filepath.Join(r.dir, "p.toml"), "version = 1\n")
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "-m", "trust the team's key")
	r.base = r.git(t, "rev-parse", "HEAD")
	r.git(t, "switch", "-q", "-c", "feature")
	r.t2 = r.tick(t, "T002")
	r.run(t, 0, "attest", "tick", "--signer", "ssh", "--key", r.key, "--verdict", "regression_only", "--regression-reason", "planning_work")
	r.t3 = r.tick(t, "T003")
	r.run(t, 0, "attest", "tick", "--verdict", "verified", "--unsigned")
	return r
}

func vfWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (r *vfRepo) git(t *testing.T, args ...string) string {
	t.Helper()
	return strings.TrimSpace(testenv.Git(t, r.dir, args...))
}

func (r *vfRepo) tick(t *testing.T, id string) string {
	t.Helper()
	p := filepath.Join(r.dir, "specs/001-greeting/tasks.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	vfWrite(t, p, strings.Replace(string(b), "- [ ] "+id+" ", "- [x] "+id+" ", 1))
	r.git(t, "commit", "-q", "-am", id+" done")
	return r.git(t, "rev-parse", "HEAD")
}

// run runs the taskproof binary in the repository and checks its exit code.
func (r *vfRepo) run(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	return vfRunIn(t, r.bin, r.dir, want, args...)
}

func vfRunIn(t *testing.T, bin, dir string, want int, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = testenv.GitEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		t.Fatalf("taskproof %v: %v", args, err)
	}
	if got != want {
		t.Fatalf("taskproof %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, want, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// report is the part of `verify --format json` the tests read.
type vfReport struct {
	SchemaVersion int    `json:"schema_version"`
	Mode          string `json:"mode"`
	Conclusion    string `json:"conclusion"`
	Ticks         []struct {
		Commit  string `json:"commit"`
		TaskID  string `json:"task_id"`
		Status  string `json:"status"`
		Reason  string `json:"reason"`
		Outcome string `json:"outcome"`
		Reasons []struct {
			Code string `json:"code"`
		} `json:"reasons"`
	} `json:"ticks"`
	Objects []struct {
		Object  string `json:"object"`
		Task    string `json:"task"`
		Outcome string `json:"outcome"`
		Reasons []struct {
			Code string `json:"code"`
		} `json:"reasons"`
		Signers []struct {
			Kind      string `json:"kind"`
			Principal string `json:"principal"`
		} `json:"signers"`
	} `json:"objects"`
}

func vfParse(t *testing.T, stdout string) vfReport {
	t.Helper()
	var rep vfReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("verify --format json: %v\n%s", err, stdout)
	}
	if rep.SchemaVersion != 1 {
		t.Fatalf("schema_version %d", rep.SchemaVersion)
	}
	return rep
}

// ticks renders the ticks as "TASK status/reason".
func (rep vfReport) ticks() []string {
	var out []string
	for _, tk := range rep.Ticks {
		out = append(out, tk.TaskID+" "+tk.Status+"/"+tk.Reason)
	}
	return out
}

func TestVerifyCLI(t *testing.T) {
	r := newVFRepo(t)
	trust := []string{"--allowed-signers", r.allowed}
	jsonArgs := func(args ...string) []string { return append(append(args, trust...), "--format", "json") }

	t.Run("object ok", func(t *testing.T) {
		out, _ := r.run(t, 0, jsonArgs("verify", r.t2)...)
		rep := vfParse(t, out)
		if rep.Mode != "objects" || rep.Conclusion != "success" || len(rep.Objects) != 1 {
			t.Fatalf("report %+v", rep)
		}
		o := rep.Objects[0]
		if o.Object != r.t2 || o.Task != "001-greeting/T002" || o.Outcome != "ok" || len(o.Signers) != 1 || o.Signers[0].Principal != "dev@example.invalid" {
			t.Errorf("object %+v", o)
		}
	})
	t.Run("object unsigned fails", func(t *testing.T) {
		out, _ := r.run(t, 1, jsonArgs("verify", r.t3)...)
		if rep := vfParse(t, out); rep.Conclusion != "failure" || rep.Objects[0].Outcome != "unsigned" {
			t.Errorf("report %+v", rep)
		}
		if _, errOut := r.run(t, 0, append(jsonArgs("verify", r.t3), "--insecure-allow-unsigned")...); strings.Contains(errOut, "deprecated") {
			t.Errorf("--insecure-allow-unsigned: stderr %q", errOut)
		}
		// The old spelling still accepts them, and says which name to use.
		_, errOut := r.run(t, 0, append(jsonArgs("verify", r.t3), "--require-signed=false")...)
		if !strings.Contains(errOut, "Flag --require-signed has been deprecated, --require-signed=true is the default: drop it; for --require-signed=false use --insecure-allow-unsigned") {
			t.Errorf("--require-signed=false: stderr %q, want a deprecation note", errOut)
		}
		// The plain --require-signed asks for what is the default: unsigned fails.
		r.run(t, 1, append(jsonArgs("verify", r.t3), "--require-signed")...)
	})
	t.Run("insecure switches", func(t *testing.T) {
		// --sigstore-tlog-threshold 0 is the old spelling of
		// --insecure-ignore-tlog: still read, with a note; asking for none
		// and for some is a usage error. (Either needs Sigstore trust: exit 3
		// without a trusted root.)
		_, errOut := r.run(t, 3, append(jsonArgs("verify", r.t2), "--sigstore-tlog-threshold", "0")...)
		if !strings.Contains(errOut, "--sigstore-tlog-threshold 0 has been deprecated, use --insecure-ignore-tlog") {
			t.Errorf("--sigstore-tlog-threshold 0: stderr %q, want a deprecation note", errOut)
		}
		if _, errOut := r.run(t, 3, append(jsonArgs("verify", r.t2), "--insecure-ignore-tlog")...); strings.Contains(errOut, "deprecated") || !strings.Contains(errOut, "threshold needs a trusted root") {
			t.Errorf("--insecure-ignore-tlog: stderr %q", errOut)
		}
		r.run(t, 2, append(jsonArgs("verify", r.t2), "--insecure-ignore-tlog", "--sigstore-tlog-threshold", "2")...)
		// attest carry's --unverified-from-insecure is --insecure-skip-verify.
		_, errOut = r.run(t, 4, "attest", "carry", "no-such-rev", "HEAD", "--unverified-from-insecure", "--unsigned")
		if !strings.Contains(errOut, "Flag --unverified-from-insecure has been deprecated, use --insecure-skip-verify") {
			t.Errorf("--unverified-from-insecure: stderr %q, want a deprecation note", errOut)
		}
		// Deprecated names are left out of the help.
		help, _ := r.run(t, 0, "verify", "--help")
		if strings.Contains(help, "--require-signed") || !strings.Contains(help, "--insecure-allow-unsigned") || !strings.Contains(help, "--insecure-ignore-tlog") {
			t.Errorf("verify --help:\n%s", help)
		}
	})
	t.Run("branch", func(t *testing.T) {
		out, _ := r.run(t, 1, jsonArgs("verify", "--branch")...)
		rep := vfParse(t, out)
		want := []string{"T002 evidenced/", "T003 unverifiable/unsigned"}
		if got := rep.ticks(); strings.Join(got, ",") != strings.Join(want, ",") || rep.Conclusion != "failure" {
			t.Errorf("ticks %v (%s), want %v failure", got, rep.Conclusion, want)
		}
		if strings.Contains(out, ": null") {
			t.Errorf("JSON report has a null list:\n%s", out)
		}
		out, _ = r.run(t, 0, append(jsonArgs("verify", "--branch", "--base", "main"), "--insecure-allow-unsigned")...)
		if got := vfParse(t, out).ticks(); strings.Join(got, ",") != "T002 evidenced/,T003 evidenced/" {
			t.Errorf("--insecure-allow-unsigned: ticks %v", got)
		}
	})
	t.Run("empty range", func(t *testing.T) {
		// On the base branch itself (head = base): nothing to check, neutral
		// and exit 0 (docs/format.md#exit-codes), with a warning saying nothing was verified.
		out, errOut := r.run(t, 0, append(jsonArgs("verify", "--branch", "--base", r.t3), r.t3)...)
		if rep := vfParse(t, out); rep.Conclusion != "neutral" || !strings.Contains(errOut, "warning: the range") || !strings.Contains(errOut, "nothing is verified") {
			t.Errorf("conclusion %s, stderr %q", rep.Conclusion, errOut)
		}
		if _, errOut := r.run(t, 1, jsonArgs("verify", "--branch")...); strings.Contains(errOut, "warning: the range") {
			t.Errorf("a non-empty range warned: %s", errOut)
		}
	})
	t.Run("require verified", func(t *testing.T) {
		out, _ := r.run(t, 1, append(jsonArgs("verify", "--branch"), "--require-verified", "--insecure-allow-unsigned")...)
		// T002 is regression_only; T003 is verified (unsigned, allowed here).
		if got := vfParse(t, out).ticks(); strings.Join(got, ",") != "T002 unverifiable/not_verified,T003 evidenced/" {
			t.Errorf("ticks %v", got)
		}
	})
	t.Run("range from the root", func(t *testing.T) {
		out, _ := r.run(t, 1, jsonArgs("verify", r.root+"..HEAD")...)
		if got := vfParse(t, out).ticks(); strings.Join(got, ",") != "T002 evidenced/,T003 unverifiable/unsigned" {
			t.Errorf("ticks %v", got)
		}
	})
	t.Run("text output", func(t *testing.T) {
		out, errOut := r.run(t, 0, append([]string{"verify", "--branch", "--insecure-allow-unsigned"}, trust...)...)
		if !strings.Contains(out, "summary: 2 evidenced\nconclusion: success") || !strings.Contains(errOut, "trust: allowed signers "+r.allowed) {
			t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
		}
	})

	// Trust (docs/format.md#choices-where-the-brief-leaves-room, "Trust and
	// policy come from outside what is verified", exit 3).
	t.Run("no trust input", func(t *testing.T) {
		_, errOut := r.run(t, 3, "verify", "--branch")
		for _, flag := range []string{"--allowed-signers", "--allowed-signers-rev", "--keyring", "--key"} {
			if !strings.Contains(errOut, flag) {
				t.Errorf("stderr does not name %s:\n%s", flag, errOut)
			}
		}
	})
	t.Run("allowed signers from the base revision", func(t *testing.T) {
		out, errOut := r.run(t, 0, "verify", r.t2, "--allowed-signers-rev", "main:.github/allowed_signers", "--format", "json")
		if rep := vfParse(t, out); rep.Objects[0].Outcome != "ok" || !strings.Contains(errOut, "main:.github/allowed_signers (refs/heads/main at "+r.base+")") {
			t.Errorf("report %+v\nstderr %s", rep, errOut)
		}
		r.run(t, 3, "verify", r.t2, "--allowed-signers-rev", "main:.github/none")
		r.run(t, 3, "verify", r.t2, "--allowed-signers-rev", "main")
		r.run(t, 3, "verify", r.t2, "--allowed-signers", r.allowed, "--allowed-signers-rev", "main:.github/allowed_signers")
		r.run(t, 3, "verify", r.t2, "--allowed-signers", filepath.Join(t.TempDir(), "absent"))
		// Never from the commit being verified, by any name.
		for _, args := range [][]string{
			{"verify", r.t2, "--allowed-signers-rev", r.t2 + ":.github/allowed_signers"},
			{"verify", "--branch", "--base", "main", r.t2, "--allowed-signers-rev", r.t2 + ":.github/allowed_signers"},
			{"verify", r.t2, "--allowed-signers-rev", "main:.github/allowed_signers", "--policy-rev", r.t2 + ":p.toml"},
		} {
			if _, errOut := r.run(t, 3, args...); !strings.Contains(errOut, "the commit being verified") {
				t.Errorf("%v: stderr %s", args, errOut)
			}
		}
		// Nor from another commit of the range a branch gate verifies (T002's,
		// under T003's head), by a range or by --branch; from the base it is fine.
		for _, args := range [][]string{
			{"verify", "--branch", "--base", "main", r.t3, "--allowed-signers-rev", r.t2 + ":.github/allowed_signers"},
			{"verify", "main.." + r.t3, "--allowed-signers-rev", r.t2 + ":.github/allowed_signers"},
			{"verify", "--branch", "--base", "main", r.t3, "--allowed-signers-rev", "main:.github/allowed_signers", "--policy-rev", r.t2 + ":p.toml"},
		} {
			if _, errOut := r.run(t, 3, args...); !strings.Contains(errOut, "a commit of the range being verified") {
				t.Errorf("%v: stderr %s", args, errOut)
			}
		}
		r.run(t, 1, "verify", "--branch", "--base", "main", r.t3, "--allowed-signers-rev", "main:.github/allowed_signers")
	})
	t.Run("gpg.ssh.allowedSignersFile", func(t *testing.T) {
		defer r.git(t, "config", "--unset", "gpg.ssh.allowedSignersFile")
		r.git(t, "config", "gpg.ssh.allowedSignersFile", filepath.Join(r.dir, ".github/allowed_signers"))
		_, errOut := r.run(t, 3, "verify", r.t2)
		if !strings.Contains(errOut, "inside the work tree") {
			t.Errorf("stderr: %s", errOut)
		}
		r.git(t, "config", "gpg.ssh.allowedSignersFile", ".github/allowed_signers")
		_, errOut = r.run(t, 3, "verify", r.t2)
		if !strings.Contains(errOut, "relative") {
			t.Errorf("stderr: %s", errOut)
		}
		r.git(t, "config", "gpg.ssh.allowedSignersFile", r.allowed)
		_, errOut = r.run(t, 0, "verify", r.t2)
		if !strings.Contains(errOut, "(gpg.ssh.allowedSignersFile)") {
			t.Errorf("stderr: %s", errOut)
		}
	})

	// Git preconditions (exit 4).
	t.Run("notes ref absent", func(t *testing.T) {
		_, errOut := r.run(t, 4, append([]string{"verify", "--branch", "--notes-ref", "refs/notes/absent"}, trust...)...)
		if !strings.Contains(errOut, "git fetch origin refs/notes/absent:refs/notes/absent") {
			t.Errorf("stderr does not give the fetch command: %s", errOut)
		}
		r.run(t, 4, append([]string{"verify", r.t2, "--notes-ref", "refs/notes/absent"}, trust...)...)
	})
	// A trust file that never ends is refused at its limit, quickly; one
	// that can be read only once (a pipe) is read once, though both the
	// notes merge's preference and the verifier load the trust.
	t.Run("trust file from a device or a pipe", func(t *testing.T) {
		_, errOut := r.run(t, 3, "verify", "--branch", "--allowed-signers", "/dev/zero")
		if !strings.Contains(errOut, "over its size limit") {
			t.Errorf("stderr: %s", errOut)
		}
		r.run(t, 3, "verify", "--branch", "--allowed-signers", r.allowed, "--policy", "/dev/zero")
		signers, err := os.ReadFile(r.allowed)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(r.bin, "verify", r.t2, "--allowed-signers", "/dev/stdin")
		cmd.Dir, cmd.Env, cmd.Stdin = r.dir, testenv.GitEnv(), bytes.NewReader(signers)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("allowed signers piped on stdin: %v\n%s", err, out)
		}
	})
	// -C DIR runs as if started in DIR (git's -C): relative paths on the
	// command line are DIR's.
	t.Run("-C makes relative paths the directory's", func(t *testing.T) {
		rel, err := filepath.Rel(r.dir, r.allowed)
		if err != nil {
			t.Fatal(err)
		}
		parent := filepath.Dir(r.dir)
		vfRunIn(t, r.bin, parent, 0, "-C", filepath.Base(r.dir), "verify", r.t2, "--allowed-signers", rel, "--json-report", "c-report.json")
		if _, err := os.Stat(filepath.Join(r.dir, "c-report.json")); err != nil {
			t.Errorf("--json-report under -C: %v", err)
		}
		os.Remove(filepath.Join(r.dir, "c-report.json"))
		_, errOut := vfRunIn(t, r.bin, parent, 4, "-C", "no-such-dir", "verify", "--branch")
		if !strings.Contains(errOut, "cannot change to no-such-dir") {
			t.Errorf("stderr: %s", errOut)
		}
	})
	// A notes ref is named as `git notes --ref` names it; a branch is no
	// notes ref (read as one, its tree would hold no notes).
	t.Run("notes ref outside refs/notes", func(t *testing.T) {
		for _, ref := range []string{"refs/heads/main", "refs/tags/x"} {
			_, errOut := r.run(t, 4, append([]string{"verify", "--branch", "--notes-ref", ref}, trust...)...)
			if !strings.Contains(errOut, "outside refs/notes/") {
				t.Errorf("--notes-ref %s: stderr %s", ref, errOut)
			}
		}
		for _, ref := range []string{"speccoder", "notes/speccoder", "refs/notes/speccoder"} {
			r.run(t, 0, append([]string{"verify", r.t2, "--notes-ref", ref}, trust...)...)
		}
	})
	t.Run("unknown revision", func(t *testing.T) {
		r.run(t, 4, append([]string{"verify", "no-such-rev"}, trust...)...)
		r.run(t, 4, append([]string{"verify", "--branch", "--base", "no-such-base"}, trust...)...)
		r.run(t, 4, append([]string{"verify", "main..no-such-rev"}, trust...)...)
	})
	t.Run("not a repository", func(t *testing.T) {
		vfRunIn(t, r.bin, t.TempDir(), 4, append([]string{"verify", "--branch"}, trust...)...)
	})

	// Usage (exit 2).
	t.Run("usage", func(t *testing.T) {
		r.run(t, 2, append([]string{"verify", "--base", "main"}, trust...)...)
		r.run(t, 2, append([]string{"verify", "--branch", "main..HEAD"}, trust...)...)
		r.run(t, 2, append([]string{"verify", "--format", "yaml"}, trust...)...)
		r.run(t, 2, append([]string{"verify", "--at", "yesterday"}, trust...)...)
	})

	// The key's validity window is judged at --at.
	t.Run("at", func(t *testing.T) {
		pub, err := os.ReadFile(r.key + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		windowed := filepath.Join(t.TempDir(), "allowed_signers")
		vfWrite(t, windowed, `dev@example.invalid namespaces="in-toto",valid-before="20260101" `+string(pub))
		out, _ := r.run(t, 1, "verify", r.t2, "--allowed-signers", windowed, "--at", "2026-06-01T00:00:00Z", "--format", "json")
		if o := vfParse(t, out).Objects[0]; o.Outcome != "untrusted_signer" {
			t.Errorf("after valid-before: %+v", o)
		}
		r.run(t, 0, "verify", r.t2, "--allowed-signers", windowed, "--at", "2025-06-01T00:00:00Z")
	})

	// A task ticked by hand, with no evidence, fails the gate.
	t.Run("hand tick", func(t *testing.T) {
		r.tick(t, "T004")
		out, _ := r.run(t, 1, append(jsonArgs("verify", "--branch"), "--insecure-allow-unsigned")...)
		if got := vfParse(t, out).ticks(); strings.Join(got, ",") != "T002 evidenced/,T003 evidenced/,T004 unverifiable/ticked_without_evidence" {
			t.Errorf("ticks %v", got)
		}
	})
}
