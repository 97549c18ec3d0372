package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/evidence"
	"github.com/taskproof/taskproof/internal/testenv"
)

// TestMain builds the taskproof binary once for the package's tests when the
// Makefile did not ($TASKPROOF_BIN), instead of once per test.
func TestMain(m *testing.M) {
	if os.Getenv("TASKPROOF_BIN") != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "taskproof-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin := filepath.Join(dir, "taskproof")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building taskproof: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	os.Setenv("TASKPROOF_BIN", bin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cliRepo is a spec-kit repository made with the real git: c0 plans four tasks,
// c1 ticks T001 and T002, c2 ticks nothing, c3 ticks T003.
type cliRepo struct {
	dir            string
	c0, c1, c2, c3 string
}

const cliTasks = "# Tasks\n\n- [ ] T001 [US1] Write the failing test\n- [ ] T002 [US1] Implement it\n- [ ] T003 Document it\n- [ ] T004 Release it\n"

func newCLIRepo(t *testing.T) *cliRepo {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string { return strings.TrimSpace(testenv.Git(t, dir, args...)) }
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) string {
		git("add", "-A")
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	tick := func(ids ...string) string {
		s := cliTasks
		for _, id := range ids {
			s = strings.Replace(s, "- [ ] "+id, "- [x] "+id, 1)
		}
		return s
	}
	git("init", "-q", "-b", "main")
	r := &cliRepo{dir: dir}
	write("specs/001-cli/spec.md", "# Spec\n\n### User Story 1 - Use it\n\nText.\n")
	write("specs/001-cli/tasks.md", cliTasks)
	r.c0 = commit("plan")
	write("specs/001-cli/tasks.md", tick("T001", "T002"))
	r.c1 = commit("implement")
	write("README", "x\n")
	r.c2 = commit("readme")
	write("specs/001-cli/tasks.md", tick("T001", "T002", "T003"))
	r.c3 = commit("docs")
	return r
}

// taskproof runs the binary in the repository with extra environment and
// returns stdout, stderr and the exit code.
func (r *cliRepo) taskproof(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(testenv.Binary(t), args...)
	cmd.Dir = r.dir
	cmd.Env = append(testenv.GitEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatal(err)
	return "", "", 0
}

// note returns commit's note under refs/notes/speccoder ("" when none).
func (r *cliRepo) note(t *testing.T, commit string) string {
	t.Helper()
	cmd := exec.Command("git", "notes", "--ref", "refs/notes/speccoder", "show", commit)
	cmd.Dir, cmd.Env = r.dir, testenv.GitEnv()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func (r *cliRepo) notesRef(t *testing.T) string {
	t.Helper()
	return strings.TrimSpace(testenv.Git(t, r.dir, "for-each-ref", "refs/notes/"))
}

// withVerdict adds `--verdict verified` to attest tick arguments that name no
// verdict (attest tick requires one).
func withVerdict(args []string) []string {
	for _, a := range args {
		if a == "--verdict" || strings.HasPrefix(a, "--verdict=") {
			return args
		}
	}
	return append(args, "--verdict", "verified")
}

// sshKeyFile makes an ed25519 key with the real ssh-keygen and returns its path
// and SHA256 fingerprint.
func sshKeyFile(t *testing.T, passphrase string) (string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "id_ed25519")
	if out, err := exec.Command(testenv.LookPath(t, "ssh-keygen"), "-q", "-t", "ed25519", "-N", passphrase, "-C", "t", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	out, err := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f", path+".pub").Output()
	if err != nil {
		t.Fatal(err)
	}
	return path, strings.Fields(string(out))[1]
}

// envelope is a note line.
type envelope struct {
	PayloadType string `json:"payloadType"`
	Payload     []byte `json:"payload"`
	Signatures  []struct {
		KeyID string `json:"keyid"`
		Sig   []byte `json:"sig"`
	} `json:"signatures"`
}

func envelopes(t *testing.T, note string) []envelope {
	t.Helper()
	var out []envelope
	for _, l := range strings.Split(strings.TrimSuffix(note, "\n"), "\n") {
		if l == "" {
			continue
		}
		var e envelope
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("note line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

func TestAttestTickRefusals(t *testing.T) {
	r := newCLIRepo(t)
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrongType := file("wrong-type.json", `{"collection":{"files":[{"path":"a_test.go","state":"collected","tests":"two","test_ids":[]}]}}`)
	computed := file("computed.json", `{"tree":"`+strings.Repeat("0", 40)+`"}`)
	noReason := file("no-reason.json", `{"run":{"id":"r1"}}`)
	notJSON := file("not-json.json", `{"run":`)
	red := file("red.log", "FAIL\n")
	// An evidence file one byte over the limit (sparse: costs no disk).
	bigEvidence := file("big.json", "")
	if err := os.Truncate(bigEvidence, evidence.MaxEvidenceFile+1); err != nil {
		t.Fatal(err)
	}
	// Known members of the wrong type, each refused naming the member and
	// the type it takes.
	wrongTypes := []struct{ evidence, msg string }{
		{`{"trace":"x"}`, "evidence.trace: want an array of objects or null, got string"},
		{`{"trace":[1]}`, "evidence.trace[0]: want an object, got number"},
		{`{"trace":{"a":1}}`, "evidence.trace: want an array of objects or null, got object"},
		{`{"run":5}`, "evidence.run: want an object or null, got number"},
		{`{"decisions":"x"}`, "evidence.decisions: want an array of objects or null, got string"},
		{`{"instructions":{"AGENTS.md":true}}`, "evidence.instructions: want an array or null, got object"},
		{`{"model":7}`, "evidence.model: want an object or null, got number"},
	}

	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"commit ticks no task", []string{"--commit", r.c2}, 2, "commit ticks no task"},
		{"root commit", []string{"--commit", r.c0}, 2, "commit ticks no task"},
		{"task not ticked", []string{"--commit", r.c1, "--task", "T003"}, 2, "does not tick task T003 (it ticks T001, T002)"},
		{"regression_only without reason", []string{"--commit", r.c1, "--verdict", "regression_only"}, 2, "needs --regression-reason"},
		{"regression_only evidence without reason", []string{"--commit", r.c1, "--verdict", "regression_only", "--evidence", noReason}, 2, "regression"},
		{"reason on verified", []string{"--commit", r.c1, "--regression-reason", "planning_work"}, 2, "goes with --verdict regression_only"},
		{"unknown reason", []string{"--commit", r.c1, "--verdict", "regression_only", "--regression-reason", "because"}, 2, "unknown regression reason"},
		{"reason without its key", []string{"--commit", r.c1, "--verdict", "regression_only", "--regression-reason", "not_red"}, 2, "needs red_class="},
		{"evidence with a wrong type", []string{"--commit", r.c1, "--evidence", wrongType}, 2, "collection"},
		{"evidence with a computed field", []string{"--commit", r.c1, "--evidence", computed}, 2, "tree"},
		{"evidence not JSON", []string{"--commit", r.c1, "--evidence", notJSON}, 2, "malformed"},
		{"evidence over its limit", []string{"--commit", r.c1, "--evidence", bigEvidence}, 1, "big.json: over its size limit: more than 1048576 bytes"},
		{"evidence never ending", []string{"--commit", r.c1, "--evidence", "/dev/zero"}, 1, "/dev/zero: over its size limit"},
		{"evidence file missing", []string{"--commit", r.c1, "--evidence", filepath.Join(dir, "absent.json")}, 2, "--evidence"},
		{"bad verdict", []string{"--commit", r.c1, "--verdict", "attested"}, 2, "attest decide"},
		{"bad red kind", []string{"--commit", r.c1, "--red-output", red, "--red-kind", "crash"}, 2, "--red-kind"},
		{"bad format", []string{"--commit", r.c1, "--format", "yaml"}, 2, "unknown --format"},
		{"bad signer", []string{"--commit", r.c1, "--signer", "x509"}, 2, "--signer"},
		{"unknown flag", []string{"--commmit", r.c1}, 2, "unknown flag"},
		{"unknown revision", []string{"--commit", "no-such-rev"}, 4, "no-such-rev"},
		{"missing key file", []string{"--commit", r.c1, "--signer", "ssh", "--key", filepath.Join(dir, "absent")}, 3, "absent"},
	}
	for i, w := range wrongTypes {
		tests = append(tests, struct {
			name string
			args []string
			code int
			msg  string
		}{"evidence " + w.evidence, []string{"--commit", r.c1, "--evidence", file(fmt.Sprintf("wrong-type-%d.json", i), w.evidence)}, 2, w.msg})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := withVerdict(append([]string{"attest", "tick"}, tt.args...))
			if !strings.Contains(strings.Join(tt.args, " "), "--signer") {
				args = append(args, "--unsigned")
			}
			stdout, stderr, code := r.taskproof(t, nil, args...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tt.code, tt.msg)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
	if ref := r.notesRef(t); ref != "" {
		t.Errorf("refused ticks wrote notes: %s", ref)
	}
}

// TestAttestTickUnsignedThenSign: with no key anywhere attest tick refuses
// (exit 3, naming how to configure a key or --unsigned); with --unsigned the
// statements are written unsigned with a warning on stderr; `attest sign` signs
// them in place later without changing their payloads.
func TestAttestTickUnsignedThenSign(t *testing.T) {
	r := newCLIRepo(t)
	_, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--verdict", "verified")
	if code != 3 || !strings.Contains(stderr, "no signing key") || !strings.Contains(stderr, "user.signingKey") || !strings.Contains(stderr, "--unsigned") {
		t.Fatalf("no key: exit %d, stderr %q; want exit 3 naming user.signingKey and --unsigned", code, stderr)
	}
	if n := r.note(t, r.c1); n != "" {
		t.Fatalf("no key wrote a note: %s", n)
	}
	stdout, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--verdict", "verified", "--unsigned")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: writing unsigned statements (--unsigned)") || !strings.Contains(stderr, "taskproof attest sign") {
		t.Errorf("stderr = %q, want the unsigned warning", stderr)
	}
	if !strings.Contains(stdout, "attested 001-cli/T001 verified on "+r.c1[:12]) || !strings.Contains(stdout, "unsigned") {
		t.Errorf("stdout = %q", stdout)
	}
	before := envelopes(t, r.note(t, r.c1))
	if len(before) != 4 {
		t.Fatalf("%d envelopes, want 4", len(before))
	}
	for _, e := range before {
		if len(e.Signatures) != 0 {
			t.Fatal("an envelope was signed")
		}
	}

	key, fp := sshKeyFile(t, "")
	stdout, stderr, code = r.taskproof(t, nil, "attest", "sign", "--signer", "ssh", "--key", key, "--format", "json", r.c1)
	if code != 0 {
		t.Fatalf("sign: exit %d: %s", code, stderr)
	}
	var res struct {
		SchemaVersion int  `json:"schema_version"`
		DryRun        bool `json:"dry_run"`
		Signed        []struct {
			Commit   string   `json:"commit"`
			Signed   int      `json:"signed"`
			Subjects []string `json:"subjects"`
		} `json:"signed"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.SchemaVersion != 1 || res.DryRun || len(res.Signed) != 1 || res.Signed[0].Commit != r.c1 || res.Signed[0].Signed != 4 {
		t.Errorf("sign output = %+v", res)
	}
	after := envelopes(t, r.note(t, r.c1))
	for i, e := range after {
		if !bytes.Equal(e.Payload, before[i].Payload) {
			t.Errorf("envelope %d: payload changed by signing", i)
		}
		if len(e.Signatures) != 1 || e.Signatures[0].KeyID != fp || !bytes.HasPrefix(e.Signatures[0].Sig, []byte("-----BEGIN SSH SIGNATURE-----")) {
			t.Errorf("envelope %d: signatures %+v", i, e.Signatures)
		}
	}

	// attest show of a commit without a note is a git precondition, not a bug.
	if _, stderr, code := r.taskproof(t, nil, "attest", "show", r.c2); code != ExitGit || !strings.Contains(stderr, "no note for commit") {
		t.Errorf("attest show (no note): exit %d: %s", code, stderr)
	}
	// attest show summarises the signatures.
	stdout, _, code = r.taskproof(t, nil, "attest", "show", "--format", "json", r.c1)
	var shown struct {
		SchemaVersion int    `json:"schema_version"`
		Commit        string `json:"commit"`
		NotesRef      string `json:"notes_ref"`
		Lines         []struct {
			Line          int    `json:"line"`
			PredicateType string `json:"predicateType"`
			Signatures    []struct {
				Kind  string `json:"kind"`
				KeyID string `json:"keyid"`
			} `json:"signatures"`
		} `json:"lines"`
	}
	if err := json.Unmarshal([]byte(stdout), &shown); err != nil || code != 0 {
		t.Fatalf("show: exit %d: %v\n%s", code, err, stdout)
	}
	if shown.SchemaVersion != 1 || shown.Commit != r.c1 || shown.NotesRef != "refs/notes/speccoder" || len(shown.Lines) != 4 ||
		shown.Lines[0].PredicateType != "https://speccoder.dev/task-verification/v0" || shown.Lines[1].PredicateType != "https://slsa.dev/verification_summary/v1" ||
		len(shown.Lines[3].Signatures) != 1 || shown.Lines[3].Signatures[0].Kind != "ssh" || shown.Lines[3].Signatures[0].KeyID != fp {
		t.Errorf("show = %+v", shown)
	}

	// Signing a commit without a note fails; signing without a key is exit 3.
	if _, stderr, code := r.taskproof(t, nil, "attest", "sign", "--signer", "ssh", "--key", key, r.c2); code == 0 || !strings.Contains(stderr, "no note") {
		t.Errorf("sign without note: exit %d %q", code, stderr)
	}
	if _, stderr, code := r.taskproof(t, nil, "attest", "sign", r.c1); code != 3 || !strings.Contains(stderr, "no signing key") {
		t.Errorf("sign without key: exit %d %q", code, stderr)
	}
}

func TestAttestTickDryRun(t *testing.T) {
	r := newCLIRepo(t)
	key, _ := sshKeyFile(t, "")
	stdout, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--verdict", "verified", "--dry-run", "--signer", "ssh", "--key", key)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "would attest 001-cli/T001") || !strings.Contains(stdout, `{"_type":"https://in-toto.io/Statement/v1"`) {
		t.Errorf("stdout = %q", stdout)
	}
	if ref := r.notesRef(t); ref != "" {
		t.Errorf("dry run wrote %s", ref)
	}
	// decide --dry-run writes neither a note nor a skip record.
	if _, stderr, code := r.taskproof(t, nil, "attest", "decide", "--commit", r.c1, "--task", "T004", "--verdict", "skipped", "--by", "a", "--reason", "r", "--dry-run", "--unsigned"); code != 0 {
		t.Fatalf("decide dry run: exit %d: %s", code, stderr)
	}
	if refs := strings.TrimSpace(testenv.Git(t, r.dir, "for-each-ref", "refs/notes/", "refs/speccoder/")); refs != "" {
		t.Errorf("decide dry run wrote %s", refs)
	}
}

// TestAttestTickJSON checks the --format json shape of attest tick.
func TestAttestTickJSON(t *testing.T) {
	r := newCLIRepo(t)
	key, fp := sshKeyFile(t, "")
	stdout, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--task", "T002", "--verdict", "regression_only",
		"--regression-reason", "no_scenarios:story=US1", "--signer", "ssh", "--key", key, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		SchemaVersion int  `json:"schema_version"`
		DryRun        bool `json:"dry_run"`
		Written       []struct {
			Commit  string `json:"commit"`
			Subject string `json:"subject"`
			Task    string `json:"task"`
			Title   string `json:"title"`
			Unit    struct {
				Format, Feature, Dir string
			} `json:"unit"`
			Verdict    string `json:"verdict"`
			Statements []struct {
				PredicateType string          `json:"predicateType"`
				SHA256        string          `json:"sha256"`
				Statement     json.RawMessage `json:"statement"`
			} `json:"statements"`
			Signed  bool `json:"signed"`
			Signers []struct {
				Kind  string `json:"kind"`
				KeyID string `json:"keyid"`
			} `json:"signers"`
			NotesCommit string `json:"notes_commit"`
		} `json:"written"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if out.SchemaVersion != 1 || out.DryRun || len(out.Written) != 1 {
		t.Fatalf("output = %+v", out)
	}
	w := out.Written[0]
	notesHead := strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", "refs/notes/speccoder"))
	if w.Commit != r.c1 || w.Subject != "001-cli/T002" || w.Task != "T002" || w.Title != "Implement it" || w.Unit.Format != "speckit" || w.Unit.Feature != "001-cli" ||
		w.Unit.Dir != "specs/001-cli" || w.Verdict != "regression_only" || !w.Signed || len(w.Signers) != 1 ||
		w.Signers[0].Kind != "ssh" || w.Signers[0].KeyID != fp || w.NotesCommit != notesHead {
		t.Errorf("written = %+v", w)
	}
	envs := envelopes(t, r.note(t, r.c1))
	if len(w.Statements) != 2 || len(envs) != 2 || w.Statements[0].PredicateType != "https://speccoder.dev/task-verification/v0" || w.Statements[1].PredicateType != "https://slsa.dev/verification_summary/v1" {
		t.Fatalf("statements = %+v", w.Statements)
	}
	for i, s := range w.Statements {
		// The statement is printed indented; compacted, it is the signed payload.
		var compact bytes.Buffer
		if err := json.Compact(&compact, s.Statement); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(compact.Bytes())
		if !bytes.Equal(compact.Bytes(), envs[i].Payload) || hex.EncodeToString(sum[:]) != s.SHA256 {
			t.Errorf("statement %d: sha256 %s does not name the note's payload", i, s.SHA256)
		}
	}
	if !strings.Contains(string(envs[0].Payload), `"regression":{"reason":"no_scenarios","story":"US1"}`) {
		t.Errorf("payload %s lacks the regression reason", envs[0].Payload)
	}
}

// TestAttestSignerFromConfig checks the signer choice of
// docs/format.md#signing-with-gits-configuration through the CLI.
func TestAttestSignerFromConfig(t *testing.T) {
	keyA, fpA := sshKeyFile(t, "")
	keyB, fpB := sshKeyFile(t, "")
	enc, fpEnc := sshKeyFile(t, "correct horse")
	tests := []struct {
		name   string
		config map[string]string
		args   []string
		env    []string
		code   int
		keyid  string // "" = unsigned
		stderr string
	}{
		{"gpg.format=ssh and user.signingKey", map[string]string{"gpg.format": "ssh", "user.signingKey": keyA}, nil, nil, 0, fpA, ""},
		{"user.signingKey names a key gpg does not hold", map[string]string{"user.signingKey": "0xDEADBEEFCAFEF00D"}, nil, []string{"GNUPGHOME=" + t.TempDir()}, 3, "", "gpg has no secret key"},
		{"no key: exit 3", map[string]string{"gpg.format": "ssh"}, nil, nil, 3, "", "--unsigned"},
		{"flags override config", map[string]string{"gpg.format": "ssh", "user.signingKey": keyA}, []string{"--signer", "ssh", "--key", keyB}, nil, 0, fpB, ""},
		{"--key overrides a keyring id", map[string]string{"user.signingKey": "0xDEADBEEF"}, []string{"--signer", "ssh", "--key", keyB}, nil, 0, fpB, ""},
		{"encrypted key with --key-passphrase-env", nil, []string{"--signer", "ssh", "--key", enc, "--key-passphrase-env", "TP_PASS"}, []string{"TP_PASS=correct horse"}, 0, fpEnc, ""},
		{"encrypted key from config with --key-passphrase-env", map[string]string{"gpg.format": "ssh", "user.signingKey": enc}, []string{"--key-passphrase-env", "TP_PASS"}, []string{"TP_PASS=correct horse"}, 0, fpEnc, ""},
		{"encrypted key without a passphrase", nil, []string{"--signer", "ssh", "--key", enc}, nil, 3, "", "--key-passphrase-env"},
		{"encrypted key, wrong passphrase", nil, []string{"--signer", "ssh", "--key", enc, "--key-passphrase-env", "TP_PASS"}, []string{"TP_PASS=wrong"}, 3, "", "passphrase"},
		{"--key-passphrase-env names an unset variable", nil, []string{"--signer", "ssh", "--key", enc, "--key-passphrase-env", "TP_UNSET_VAR"}, nil, 3, "", "TP_UNSET_VAR is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newCLIRepo(t)
			for k, v := range tt.config {
				testenv.Git(t, r.dir, "config", k, v)
			}
			_, stderr, code := r.taskproof(t, tt.env, withVerdict(append([]string{"attest", "tick", "--commit", r.c1, "--task", "T001"}, tt.args...))...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tt.code, tt.stderr)
			}
			if code != 0 {
				if n := r.note(t, r.c1); n != "" {
					t.Errorf("a refused tick wrote a note")
				}
				return
			}
			for _, e := range envelopes(t, r.note(t, r.c1)) {
				switch {
				case tt.keyid == "" && len(e.Signatures) != 0:
					t.Errorf("signed, want unsigned")
				case tt.keyid != "" && (len(e.Signatures) != 1 || e.Signatures[0].KeyID != tt.keyid):
					t.Errorf("signatures %+v, want one by %s", e.Signatures, tt.keyid)
				}
			}
		})
	}
}

func TestAttestDecideCLI(t *testing.T) {
	r := newCLIRepo(t)
	key, fp := sshKeyFile(t, "")
	stdout, stderr, code := r.taskproof(t, nil, "attest", "decide", "--commit", r.c3, "--task", "T003", "--verdict", "attested",
		"--by", "Ada", "--reason", "read it", "--signer", "ssh", "--key", key, "--format", "json")
	if code != 0 {
		t.Fatalf("attested: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"verdict": "attested"`) || !strings.Contains(stdout, fp) {
		t.Errorf("stdout = %s", stdout)
	}
	if envs := envelopes(t, r.note(t, r.c3)); len(envs) != 1 || !strings.Contains(string(envs[0].Payload), `"decider":{"by":"Ada","reason":"read it"}`) {
		t.Errorf("attested note = %+v", envs)
	}
	_, stderr, code = r.taskproof(t, nil, "attest", "decide", "--commit", r.c1, "--task", "T004", "--verdict", "skipped",
		"--by", "Ada", "--reason", "not needed", "--signer", "ssh", "--key", key)
	if code != 0 || !strings.Contains(stderr, "refs/speccoder/skipped/001-cli/T004") {
		t.Fatalf("skipped: exit %d: %s", code, stderr)
	}
	record := strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", "refs/speccoder/skipped/001-cli/T004"))
	if envs := envelopes(t, r.note(t, record)); len(envs) != 1 || !strings.Contains(string(envs[0].Payload), `"verdict":"skipped"`) {
		t.Errorf("skip record note = %+v", envs)
	}
	testenv.Git(t, r.dir, "fsck", "--strict", "--no-progress")

	for _, tt := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no --by", []string{"--task", "T004", "--verdict", "skipped", "--reason", "r"}, 2, "--by is required"},
		{"skip a ticked task", []string{"--commit", r.c1, "--task", "T001", "--verdict", "skipped", "--by", "a", "--reason", "r"}, 2, "not open"},
		{"attested where not ticked", []string{"--commit", r.c2, "--task", "T003", "--verdict", "attested", "--by", "a", "--reason", "r"}, 2, "ticks no task"},
		{"bad verdict", []string{"--task", "T004", "--verdict", "verified", "--by", "a", "--reason", "r"}, 2, "attested or skipped"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := r.taskproof(t, nil, append([]string{"attest", "decide", "--unsigned"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, stderr, tt.code, tt.msg)
			}
		})
	}
}
