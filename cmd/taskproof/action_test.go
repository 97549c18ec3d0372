package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/taskproof/taskproof/cmd/taskproof/cli"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/internal/testenv"
)

// The tests of action.yml run it in the simulated runner of
// actionrunner_test.go, with the real bash, git and taskproof, against a bare
// remote standing in for github.com/acme/greet and checkouts made as
// actions/checkout makes them.

// hostileNames are file names a pull request may add to its checkout: shell
// words, flags, globs and patterns that pathname expansion or word splitting
// would turn into arguments, and workflow commands.
var hostileNames = []string{
	"*", "-rf", "--allowed-signers=evil", "--at=x", "$(touch pwned)", "`touch pwned`", "line\nbreak", "~",
	"::warning title=INJECTED::file name", "a,b",
	// What `https://github\.com/acme/greet/\.github/workflows/attest\.yml@refs/heads/.*` matches
	// as a glob: expanded, the pattern became …/.x|.*, which matches every identity.
	"https:/github.com/acme/greet/.github/workflows/attest.yml@refs/heads/.x|.*",
}

// addHostileFiles commits hostileNames in repo.
func addHostileFiles(t *testing.T, repo string) {
	t.Helper()
	for _, name := range hostileNames {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Git(t, repo, "add", "-A")
	testenv.Git(t, repo, "commit", "-q", "-m", "files with awkward names")
}

// checkoutLikeActions makes the job's workspace as actions/checkout does by
// default: a new repository with origin, one commit fetched (--depth=1) into
// the ref's tracking name, checked out (a branch for a push, detached for a
// pull request's merge ref).
func checkoutLikeActions(t *testing.T, remote, ref, sha string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "work space")
	testenv.Git(t, "", "init", "-q", ws)
	testenv.Git(t, ws, "remote", "add", "origin", "file://"+remote)
	local := "refs/remotes/origin/" + strings.TrimPrefix(ref, "refs/heads/")
	if strings.HasPrefix(ref, "refs/pull/") {
		local = "refs/remotes/pull/" + strings.TrimPrefix(ref, "refs/pull/")
	}
	testenv.Git(t, ws, "-c", "protocol.version=2", "fetch", "-q", "--no-tags", "--prune", "--no-recurse-submodules", "--depth=1", "origin", "+"+sha+":"+local)
	if strings.HasPrefix(ref, "refs/heads/") {
		testenv.Git(t, ws, "checkout", "-q", "--force", "-B", strings.TrimPrefix(ref, "refs/heads/"), local)
	} else {
		testenv.Git(t, ws, "checkout", "-q", "--force", local)
	}
	if shallow := strings.TrimSpace(testenv.Git(t, ws, "rev-parse", "--is-shallow-repository")); shallow != "true" {
		t.Fatalf("the checkout is not shallow")
	}
	return ws
}

func rev(t *testing.T, repo, r string) string {
	t.Helper()
	return strings.TrimSpace(testenv.Git(t, repo, "rev-parse", r))
}

var acmeRepo = map[string]any{"id": 700001, "full_name": "acme/greet", "clone_url": "https://github.com/acme/greet.git"}

func pushEvent(ref, before, after string) map[string]any {
	return map[string]any{"ref": ref, "before": before, "after": after, "repository": acmeRepo}
}

func pullRequestEvent(headSHA, baseSHA string) map[string]any {
	return map[string]any{"action": "synchronize", "number": 17, "repository": acmeRepo,
		"pull_request": map[string]any{"number": 17,
			"head": map[string]any{"ref": "feature", "sha": headSHA, "repo": acmeRepo},
			"base": map[string]any{"ref": "main", "sha": baseSHA, "repo": acmeRepo}}}
}

// checkCommands fails the test when the log held a workflow command that
// neither the Action nor taskproof wrote: only annotations and the Action's
// own stop-commands, none carrying the hostile title.
func checkCommands(t *testing.T, res *actionRun) {
	t.Helper()
	token := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, c := range res.commands {
		switch {
		case c.Name == "error" || c.Name == "warning" || c.Name == "notice":
			if c.Props["title"] == "INJECTED" {
				t.Errorf("an injected workflow command ran: %+v\n%s", c, res.log)
			}
		case c.Name == "stop-commands" && token.MatchString(c.Data):
		case token.MatchString(c.Name) && c.Data == "":
		default:
			t.Errorf("unexpected workflow command %+v\n%s", c, res.log)
		}
	}
	if res.githubEnv != "" {
		t.Errorf("$GITHUB_ENV written: %q", res.githubEnv)
	}
}

// TestActionInstallsVerifiesAttestsOffline runs action.yml's steps from the
// Action's own files (as the runner downloads them: no .git, no binary) in
// a network namespace without network (when unshare is available) and with
// the module proxy off: the install step builds taskproof from those files
// with the machine's Go and module cache (as a runner's setup-go cache holds
// it); attest mode attests a push's ticks with a key from the job and pushes
// the notes; verify mode, in a pull request's shallow merge checkout, deepens
// it, reads the trust from the base branch and passes; a second job reuses the
// cached build. The checkout holds files with hostile names throughout.
func TestActionInstallsVerifiesAttestsOffline(t *testing.T) {
	testenv.LookPath(t, "go")
	w := newWorld(t)
	a := w.seed()
	if err := os.MkdirAll(filepath.Join(a, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	signers, err := os.ReadFile(w.signers)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a, ".github", "allowed_signers"), signers, 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, a, "add", "-A")
	testenv.Git(t, a, "commit", "-q", "-m", "trust: allowed signers")
	testenv.Git(t, a, "push", "-q", "origin", "HEAD:main")
	mainSHA := rev(t, a, "HEAD")
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	addHostileFiles(t, a)
	c1 := w.tick(a, "T001")
	if err := os.WriteFile(filepath.Join(a, "NOTES.md"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, a, "add", "-A")
	testenv.Git(t, a, "commit", "-q", "-m", "docs")
	c3 := w.tick(a, "T002")
	testenv.Git(t, a, "push", "-q", "origin", "feature")

	action, cache := actionFiles(t), t.TempDir()
	offline := offlineAvailable()
	if !offline {
		t.Log("unshare --net is not available: the steps run with the module proxy off but in the machine's network")
	}
	// A self-hosted runner that keeps its tool cache, and even its temporary
	// directory, from one job to the next: what a job leaves there, the next
	// finds.
	runner := map[string]string{"RUNNER_TOOL_CACHE": filepath.Join(t.TempDir(), "tool cache"), "RUNNER_TEMP": filepath.Join(t.TempDir(), "runner temp")}
	for _, d := range runner {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// attest mode on the push.
	ws := checkoutLikeActions(t, w.remote, "refs/heads/feature", c3)
	job := &actionJob{t: t, actionDir: action, workspace: ws, eventName: "push", event: pushEvent("refs/heads/feature", mainSHA, c3),
		env: runner, cacheDir: cache, offline: offline}
	res := job.run(map[string]string{"mode": "attest", "signer": "ssh", "signing-key": w.key, "verdict": "regression_only",
		"args": "--regression-reason planning_work"})
	if res.exit != 0 {
		t.Fatalf("attest job: step %s exit %d\n%s", res.failedStep, res.exit, res.log)
	}
	if !strings.Contains(res.log, "building taskproof") {
		t.Errorf("the install step did not build taskproof from the Action's files:\n%s", res.log)
	}
	if got := res.outputs; got["attested"] != "2" || got["already-attested"] != "0" || got["unattested"] != "0" || got["conclusion"] != "success" {
		t.Errorf("attest outputs %v\n%s", got, res.log)
	}
	for _, c := range []string{c1, c3} {
		if !strings.Contains(res.log, "attest tick --commit "+c) {
			t.Errorf("%s not attested:\n%s", c, res.log)
		}
	}
	if !strings.Contains(res.summary, "2 tick commit(s) attested") {
		t.Errorf("job summary %q", res.summary)
	}
	bin := res.outputs["taskproof"]
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil || !strings.Contains(string(out), "+src.") {
		t.Errorf("the built taskproof %s --version: %v %s", bin, err, out)
	}
	checkCommands(t, res)
	if refs := testenv.Git(t, w.remote, "for-each-ref", "refs/notes/speccoder"); refs == "" {
		t.Fatalf("no notes pushed to the remote:\n%s", res.log)
	}

	// An earlier job on the runner (any code a pull request runs there)
	// replaces every taskproof it finds under the runner's directories with
	// one that passes every gate.
	planted := filepath.Join(t.TempDir(), "planted binary ran")
	fake := "#!/bin/sh\necho planted > '" + planted + "'\necho 'taskproof 9.9.9'\nexit 0\n"
	for _, d := range runner {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && e.Name() == "taskproof" {
				if werr := os.WriteFile(p, []byte(fake), 0o755); werr != nil {
					t.Fatal(werr)
				}
			}
			return nil
		})
	}

	// verify mode on the pull request's merge ref, in a second job: it
	// builds taskproof again (Go's build cache makes that a link) and never
	// runs what the earlier job left.
	testenv.Git(t, a, "switch", "-q", "-c", "merge", "main")
	testenv.Git(t, a, "merge", "-q", "--no-ff", "-m", "Merge feature", "feature")
	merge := rev(t, a, "HEAD")
	testenv.Git(t, a, "push", "-q", "origin", "HEAD:refs/pull/17/merge")
	ws = checkoutLikeActions(t, w.remote, "refs/pull/17/merge", merge)
	env := map[string]string{"GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "feature"}
	for k, v := range runner {
		env[k] = v
	}
	job = &actionJob{t: t, actionDir: action, workspace: ws, eventName: "pull_request", event: pullRequestEvent(c3, mainSHA),
		env: env, cacheDir: cache, offline: offline}
	res = job.run(map[string]string{"allowed-signers-rev": "origin/main:.github/allowed_signers"})
	if res.exit != 0 {
		t.Fatalf("verify job: step %s exit %d\n%s", res.failedStep, res.exit, res.log)
	}
	if _, err := os.Stat(planted); err == nil || !strings.Contains(res.log, "building taskproof") || res.outputs["taskproof"] == bin {
		t.Errorf("the second job ran a taskproof an earlier job left (%s), not one it built:\n%s", res.outputs["taskproof"], res.log)
	}
	if !strings.Contains(res.log, "the checkout is shallow") {
		t.Errorf("the shallow checkout was not deepened:\n%s", res.log)
	}
	out := res.outputs
	if out["conclusion"] != "success" || out["ticks"] != "2" || out["failing"] != "0" || out["exit-code"] != "0" {
		t.Errorf("verify outputs %v\n%s", out, res.log)
	}
	var counts map[string]int
	if err := json.Unmarshal([]byte(out["summary"]), &counts); err != nil || counts["evidenced"] != 2 {
		t.Errorf("summary output %q: %v", out["summary"], err)
	}
	var rep struct {
		Conclusion string            `json:"conclusion"`
		Ticks      []json.RawMessage `json:"ticks"`
	}
	b, err := os.ReadFile(out["report"])
	if err != nil || json.Unmarshal(b, &rep) != nil || rep.Conclusion != "success" || len(rep.Ticks) != 2 {
		t.Errorf("report %s: %v %+v", out["report"], err, rep)
	}
	if !strings.Contains(res.summary, "taskproof") {
		t.Errorf("no job summary: %q", res.summary)
	}
	checkCommands(t, res)
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Errorf("a file name ran as a command")
	}

	// A tick in a unit whose directory name holds a workflow command fails
	// the gate; the command is written escaped inside taskproof's annotation.
	testenv.Git(t, a, "switch", "-q", "feature")
	evil := filepath.Join(a, "specs", "002-x\n::warning title=INJECTED::owned")
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	tasks, _ := os.ReadFile(filepath.Join(a, "specs", "001-greeting", "tasks.md"))
	spec, _ := os.ReadFile(filepath.Join(a, "specs", "001-greeting", "spec.md"))
	open := strings.ReplaceAll(string(tasks), "- [x]", "- [ ]")
	if err := os.WriteFile(filepath.Join(evil, "spec.md"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(evil, "tasks.md"), []byte(open), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, a, "add", "-A")
	testenv.Git(t, a, "commit", "-q", "-m", "a unit with an awkward name")
	if err := os.WriteFile(filepath.Join(evil, "tasks.md"), []byte(strings.Replace(open, "- [ ] T004", "- [x] T004", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, a, "commit", "-q", "-am", "an unattested tick")
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	head := rev(t, a, "HEAD")
	ws = checkoutLikeActions(t, w.remote, "refs/heads/feature", head)
	job = &actionJob{t: t, actionDir: action, workspace: ws, eventName: "pull_request", event: pullRequestEvent(head, mainSHA),
		env: map[string]string{"GITHUB_BASE_REF": "main"}, cacheDir: cache, offline: offline}
	res = job.run(map[string]string{"allowed-signers-rev": "origin/main:.github/allowed_signers"})
	if res.exit != 1 || res.outputs["conclusion"] != "failure" || res.outputs["failing"] == "0" || res.outputs["exit-code"] != "1" {
		t.Fatalf("verify job with an unattested tick: exit %d, outputs %v\n%s", res.exit, res.outputs, res.log)
	}
	annotated := false
	for _, c := range res.commands {
		annotated = annotated || (c.Name == "error" && strings.Contains(c.Props["file"]+c.Data, "title=INJECTED"))
	}
	if !annotated {
		t.Errorf("no annotation names the failing unit:\n%s", res.log)
	}
	checkCommands(t, res)
}

// TestActionKeylessTrustInputs: the trust of keyless attestations comes from
// structured inputs, each one argument: with the identity pattern of
// docs/ci.md and a checkout holding the file its glob expansion matched, a
// tick signed by another repository's workflow is untrusted (exit 1) and the
// repository's own passes; the same flags in args are refused (exit 2).
func TestActionKeylessTrustInputs(t *testing.T) {
	const (
		issuer  = "https://token.actions.githubusercontent.com"
		own     = "https://github.com/acme/greet/.github/workflows/attest.yml@refs/heads/feature"
		foreign = "https://github.com/other-owner/greet/.github/workflows/attest.yml@refs/heads/main"
		pattern = `https://github\.com/acme/greet/\.github/workflows/attest\.yml@refs/heads/.*`
	)
	w := newWorld(t)
	a := w.seed()
	mainSHA := rev(t, a, "HEAD")
	env := sigstoretest.New(t)
	root := env.WriteTrustedRoot(t, t.TempDir())
	sign := func(c, identity string) { attestKeylessIn(t, a, env, c, identity, issuer) }
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	addHostileFiles(t, a)
	honest := w.tick(a, "T001")
	sign(honest, own)
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	testenv.Git(t, a, "switch", "-q", "-c", "fork", "feature")
	forged := w.tick(a, "T002")
	sign(forged, foreign)
	testenv.Git(t, a, "push", "-q", "origin", "fork")
	w.run(a, 0, "notes", "push")

	action := actionFiles(t)
	trust := map[string]string{"trusted-root": root, "certificate-identity-regexp": pattern, "certificate-oidc-issuer": issuer}
	for _, tc := range []struct {
		name, head string
		inputs     map[string]string
		exit       int
		conclusion string
		logHas     string
	}{
		{"own workflow", honest, trust, 0, "success", "(applied as `^(?:" + pattern + ")$`)"},
		{"another repository's workflow", forged, trust, 1, "failure", "does not match the regular expression"},
		{"trust flags in args", forged, map[string]string{"args": "--trusted-root " + root + " --certificate-identity-regexp " + pattern + " --certificate-oidc-issuer " + issuer},
			2, "", "--trusted-root is not accepted there"},
		{"a malformed pattern", forged, map[string]string{"trusted-root": root, "certificate-identity-regexp": pattern + `)|(.*`, "certificate-oidc-issuer": issuer},
			3, "error", "does not parse on its own"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := checkoutLikeActions(t, w.remote, "refs/heads/feature", tc.head)
			job := &actionJob{t: t, actionDir: action, workspace: ws, eventName: "pull_request", event: pullRequestEvent(tc.head, mainSHA),
				env: map[string]string{"GITHUB_BASE_REF": "main", "TASKPROOF_BIN": w.bin}, cacheDir: t.TempDir(), offline: offlineAvailable()}
			res := job.run(tc.inputs)
			if res.exit != tc.exit || res.outputs["conclusion"] != tc.conclusion || !strings.Contains(res.log, tc.logHas) {
				t.Fatalf("exit %d (want %d), conclusion %q (want %q), log without %q:\n%s", res.exit, tc.exit, res.outputs["conclusion"], tc.conclusion, tc.logHas, res.log)
			}
			checkCommands(t, res)
		})
	}
}

// recorder writes a stand-in taskproof that records the arguments of the
// commands named in record (one argument a line, a command ending with a
// line "--end--") and runs the real binary for every other command. A
// recorded `attest tick` prints what the real one prints for one tick
// attested (--format json); one with --unsigned, which the Action runs only
// to check what a commit's note holds, writing nothing, runs the real binary
// after it is recorded.
func recorder(t *testing.T, real string, record ...string) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "taskproof"), filepath.Join(dir, "calls.log")
	var cases []string
	for _, r := range record {
		cases = append(cases, "'"+r+"'")
	}
	script := "#!/bin/sh\ncase \"$1 $2\" in\n" + strings.Join(cases, "|") + ")\n" +
		"  for a in \"$@\"; do printf '%s\\n' \"$a\" >> '" + log + "'; done; printf -- '--end--\\n' >> '" + log + "'\n" +
		"  case \" $* \" in *' --unsigned '*) exec '" + real + "' \"$@\" ;; esac\n" +
		"  if [ \"$1 $2\" = 'attest tick' ]; then printf '{\\n  \"written\": [\\n    {\\n      \"signed\": true\\n    }\\n  ]\\n}\\n'; fi\n" +
		"  exit 0 ;;\nesac\n" +
		"exec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// calls reads a recorder's log: each command's arguments.
func calls(t *testing.T, log string) [][]string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out [][]string
	var cur []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		switch l {
		case "":
		case "--end--":
			out = append(out, cur)
			cur = nil
		default:
			cur = append(cur, l)
		}
	}
	return out
}

// TestActionArgumentsAreLiteral: every input reaches taskproof as one
// argument, exactly as given, in a checkout whose file names match the
// inputs' globs; the free-form args are split at blanks and nothing else:
// no pathname expansion, no command substitution, no tilde or brace expansion.
func TestActionArgumentsAreLiteral(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	addHostileFiles(t, a)
	testenv.Git(t, a, "push", "-q", "origin", "HEAD:main")
	head := rev(t, a, "HEAD")
	bin, log := recorder(t, w.bin, "verify --notes-ref")
	ws := checkoutLikeActions(t, w.remote, "refs/heads/main", head)
	job := &actionJob{t: t, actionDir: actionFiles(t), workspace: ws, eventName: "push", event: pushEvent("refs/heads/main", head, head),
		env: map[string]string{"TASKPROOF_BIN": bin}, cacheDir: t.TempDir()}
	identity := `https://github\.com/acme/greet/\.github/workflows/attest\.yml@refs/heads/.*`
	res := job.run(map[string]string{
		"base": "origin/main", "trusted-root": "roots/*.json", "certificate-identity-regexp": identity,
		"certificate-oidc-issuer": "https://token.actions.githubusercontent.com", "keyring": "keys/a,b.gpg\n  *.gpg  ",
		"key": "$(touch pwned).pem", "policy": "~/policy.toml",
		"args": "  --notes-from-remotes\n\t",
	})
	if res.exit != 0 {
		t.Fatalf("exit %d\n%s", res.exit, res.log)
	}
	got := calls(t, log)
	if len(got) != 1 {
		t.Fatalf("%d verify calls, want 1:\n%s", len(got), res.log)
	}
	want := []string{"verify", "--notes-ref", "refs/notes/speccoder", "--branch", "--base", "origin/main", "--format", "github", "--json-report", "REPORT",
		"--keyring", `"keys/a,b.gpg"`, "--keyring", `"*.gpg"`, "--key", `"$(touch pwned).pem"`,
		"--trusted-root", "roots/*.json", "--certificate-identity-regexp", identity, "--certificate-oidc-issuer", "https://token.actions.githubusercontent.com",
		"--policy", "~/policy.toml", "--notes-from-remotes", "--", "HEAD"}
	args := got[0]
	for i := range args {
		if i > 0 && args[i-1] == "--json-report" {
			args[i] = "REPORT"
		}
	}
	if strings.Join(args, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("taskproof got\n%q\nwant\n%q", args, want)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Errorf("an input ran as a command")
	}
	checkCommands(t, res)

	// args takes only the flags that decide neither trust nor the outcome:
	// every other flag of verify, one that moves the time keys are judged at
	// among them, is refused, and so are words that are no flag's value.
	refused := []string{"--at 2019-06-01T00:00:00Z", "--at=2019-06-01T00:00:00Z", "-C /tmp", "-k", "--", "-- HEAD~1", "HEAD~1",
		"--notes-from-remotes=yes", "--notes-from-remotes HEAD"}
	for _, f := range commandFlags(t, "verify") {
		if f != "notes-from-remotes" {
			refused = append(refused, "--"+f+"=x")
		}
	}
	for _, bad := range refused {
		res := job.run(map[string]string{"args": bad})
		if res.exit != 2 || len(calls(t, log)) != 1 {
			t.Errorf("args %q: exit %d, want 2 and no verify call\n%s", bad, res.exit, res.log)
		}
		found := false
		for _, c := range res.commands {
			found = found || c.Name == "error"
		}
		if !found {
			t.Errorf("args %q: no error annotation\n%s", bad, res.log)
		}
	}
}

// commandFlags are the long names of every flag of the subcommand path,
// its own and those it inherits.
func commandFlags(t *testing.T, path ...string) []string {
	t.Helper()
	c, _, err := cli.New().Find(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	add := func(f *pflag.Flag) { names = append(names, f.Name) }
	c.Flags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	if len(names) < 5 {
		t.Fatalf("%v has %d flags", path, len(names))
	}
	return names
}

// TestActionAttestEvents: attest mode in the simulated events of
// testdata/github-events. Where the repository may not own the commits it
// fails with exit 3 before the workflow's OIDC token is requested; in its own
// events the token is requested (and the test's Fulcio refuses it).
func TestActionAttestEvents(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	addHostileFiles(t, a)
	c1 := w.tick(a, "T001")
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	action := actionFiles(t)
	for _, tc := range gitHubEvents {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "github-events", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var event map[string]any
			if err := json.Unmarshal(b, &event); err != nil {
				t.Fatal(err)
			}
			tok := newActionsWorld(t, 200, `{"value":"`+fakeJWT+`"}`)
			ws := checkoutLikeActions(t, w.remote, "refs/heads/feature", c1)
			job := &actionJob{t: t, actionDir: action, workspace: ws, eventName: tc.event, event: event, cacheDir: t.TempDir(),
				env: map[string]string{"TASKPROOF_BIN": w.bin, "ACTIONS_ID_TOKEN_REQUEST_URL": tok.tokenURL, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "REQ-TOKEN"}}
			res := job.run(map[string]string{"mode": "attest", "base": "origin/main", "verdict": "regression_only",
				"args": "--regression-reason planning_work --sigstore-timeout 5s", "fulcio-url": tok.fulcioURL, "rekor-url": closedURL(t)})
			if res.exit != 3 || res.outputs["conclusion"] != "failure" || res.outputs["attested"] != "0" {
				t.Fatalf("exit %d, outputs %v; want exit 3 and nothing attested\n%s", res.exit, res.outputs, res.log)
			}
			if tc.allowed {
				if tok.tokenRequests != 1 || !strings.Contains(res.log, "getting a signing certificate") {
					t.Errorf("%d token requests; want the token fetched and sent to Fulcio\n%s", tok.tokenRequests, res.log)
				}
			} else if tok.tokenRequests != 0 || !strings.Contains(res.log, "signing refused in this GitHub Actions event") {
				t.Errorf("%d token requests; want a refusal before any\n%s", tok.tokenRequests, res.log)
			}
			if refs := testenv.Git(t, w.remote, "for-each-ref", "refs/notes/"); refs != "" {
				t.Errorf("notes pushed: %s", refs)
			}
			checkCommands(t, res)
		})
	}
}

// gitHubEvents are testdata/github-events' payloads with the event name the
// runner sets and whether taskproof signs in them (docs/format.md#signing-in-github-actions).
var gitHubEvents = []struct {
	file, event string
	allowed     bool
}{
	{"push.json", "push", true},
	{"pull_request-same.json", "pull_request", true},
	{"pull_request-fork.json", "pull_request", false},
	{"pull_request-deleted-fork.json", "pull_request", false},
	{"pull_request_target-same.json", "pull_request_target", false},
	{"pull_request_target-fork.json", "pull_request_target", false},
	{"workflow_run-same.json", "workflow_run", true},
	{"workflow_run-fork.json", "workflow_run", false},
	{"issue_comment-fork.json", "issue_comment", false},
}

// TestActionAttestOwnReports: each tick commit of a push is attested with
// its own test reports: the lines PHASE=FILE of test-report go to HEAD's tick,
// the lines REV PHASE=FILE to REV's; a tick commit without reports is left
// unattested with a warning unless the verdict input is given; a report for a
// commit that ticks nothing is named; a second run skips what has a note.
func TestActionAttestOwnReports(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	c1 := w.tick(a, "T001")
	c2 := w.tick(a, "T002")
	if err := os.WriteFile(filepath.Join(a, "NOTES.md"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, a, "add", "-A")
	testenv.Git(t, a, "commit", "-q", "-m", "docs")
	docs := rev(t, a, "HEAD")
	c3 := w.tick(a, "T003")
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	bin, log := recorder(t, w.bin, "attest tick", "notes push")
	action := actionFiles(t)
	job := func() *actionJob {
		return &actionJob{t: t, actionDir: action, workspace: checkoutLikeActions(t, w.remote, "refs/heads/feature", c3), eventName: "push",
			event: pushEvent("refs/heads/feature", "0000000000000000000000000000000000000000", c3), cacheDir: t.TempDir(),
			env: map[string]string{"TASKPROOF_BIN": bin}}
	}
	reports := "green=reports/head green.json\n" + c1[:10] + "  red=reports/c1-red.xml\n\t" + c1 + " green=reports/c1-green.json\n" + docs + " green=reports/docs.json\n"
	res := job().run(map[string]string{"mode": "attest", "base": "origin/main", "test-report": reports})
	if res.exit != 0 {
		t.Fatalf("exit %d\n%s", res.exit, res.log)
	}
	if o := res.outputs; o["attested"] != "2" || o["unattested"] != "1" || o["conclusion"] != "incomplete" {
		t.Errorf("outputs %v\n%s", o, res.log)
	}
	fulcio := []string{"--skip-attested", "--format", "json", "--notes-ref", "refs/notes/speccoder", "--signer", "sigstore", "--fulcio-url", "https://fulcio.sigstore.dev", "--rekor-url", "https://rekor.sigstore.dev"}
	want := [][]string{
		append(append([]string{"attest", "tick", "--commit", c1}, fulcio...), "--test-report", "red=reports/c1-red.xml", "--test-report", "green=reports/c1-green.json"),
		// c2 has no reports: only checked (it ticks a task its note does not hold).
		{"attest", "tick", "--commit", c2, "--skip-attested", "--format", "json", "--notes-ref", "refs/notes/speccoder", "--unsigned"},
		append(append([]string{"attest", "tick", "--commit", c3}, fulcio...), "--test-report", "green=reports/head green.json"),
		{"notes", "push", "--notes-ref", "refs/notes/speccoder", "origin"},
	}
	if got := calls(t, log); !sameCalls(got, want) {
		t.Errorf("calls\n%q\nwant\n%q", got, want)
	}
	var unattested, unused bool
	for _, c := range res.commands {
		unattested = unattested || (c.Name == "warning" && strings.Contains(c.Data, c2) && strings.Contains(c.Data, "not attested"))
		unused = unused || (c.Name == "warning" && strings.Contains(c.Data, docs) && strings.Contains(c.Data, "not used"))
	}
	if !unattested || !unused {
		t.Errorf("warnings: unattested commit %v, unused report %v\n%s", unattested, unused, res.log)
	}
	checkCommands(t, res)

	// With a verdict, the commit without reports of its own is attested
	// with it alone.
	os.Remove(log)
	res = job().run(map[string]string{"mode": "attest", "base": "origin/main", "test-report": "green=g.json", "verdict": "regression_only",
		"args": "--regression-reason planning_work"})
	if res.exit != 0 || res.outputs["attested"] != "3" || res.outputs["conclusion"] != "success" {
		t.Fatalf("exit %d, outputs %v\n%s", res.exit, res.outputs, res.log)
	}
	tail := []string{"--verdict", "regression_only", "--regression-reason", "planning_work"}
	want = [][]string{
		append(append([]string{"attest", "tick", "--commit", c1}, fulcio...), tail...),
		append(append([]string{"attest", "tick", "--commit", c2}, fulcio...), tail...),
		append(append(append([]string{"attest", "tick", "--commit", c3}, fulcio...), tail...), "--test-report", "green=g.json"),
		{"notes", "push", "--notes-ref", "refs/notes/speccoder", "origin"},
	}
	if got := calls(t, log); !sameCalls(got, want) {
		t.Errorf("calls\n%q\nwant\n%q", got, want)
	}

	// A line naming something that is no commit is refused before anything runs.
	os.Remove(log)
	res = job().run(map[string]string{"mode": "attest", "base": "origin/main", "test-report": "no-such-rev green=g.json"})
	if res.exit != 2 || len(calls(t, log)) != 0 {
		t.Errorf("exit %d, calls %q; want exit 2 and none\n%s", res.exit, calls(t, log), res.log)
	}
}

func sameCalls(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}

// TestActionAttestAndVerifyWithKeys is the Action's attest then verify with
// a pre-built binary: a re-run skips the commits already attested.
func TestActionAttestAndVerifyWithKeys(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	before := rev(t, a, "HEAD")
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	w.tick(a, "T001")
	c2 := w.tick(a, "T002")
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	action := actionFiles(t)
	attestJob := func() *actionRun {
		job := &actionJob{t: t, actionDir: action, workspace: checkoutLikeActions(t, w.remote, "refs/heads/feature", c2), eventName: "push",
			event: pushEvent("refs/heads/feature", before, c2), cacheDir: t.TempDir(), env: map[string]string{"TASKPROOF_BIN": w.bin}}
		return job.run(map[string]string{"mode": "attest", "signer": "ssh", "signing-key": w.key, "verdict": "regression_only", "args": "--regression-reason planning_work"})
	}
	if res := attestJob(); res.exit != 0 || res.outputs["attested"] != "2" {
		t.Fatalf("attest: exit %d outputs %v\n%s", res.exit, res.outputs, res.log)
	}
	if res := attestJob(); res.exit != 0 || res.outputs["attested"] != "0" || res.outputs["already-attested"] != "2" {
		t.Fatalf("re-run: exit %d outputs %v\n%s", res.exit, res.outputs, res.log)
	}
	job := &actionJob{t: t, actionDir: action, workspace: checkoutLikeActions(t, w.remote, "refs/heads/feature", c2), eventName: "pull_request",
		event: pullRequestEvent(c2, before), cacheDir: t.TempDir(), env: map[string]string{"TASKPROOF_BIN": w.bin, "GITHUB_BASE_REF": "main"}}
	for _, format := range []string{"github", "json", "text"} {
		res := job.run(map[string]string{"allowed-signers": w.signers, "format": format})
		if res.exit != 0 || res.outputs["conclusion"] != "success" || res.outputs["ticks"] != "2" {
			t.Errorf("verify --format %s: exit %d outputs %v\n%s", format, res.exit, res.outputs, res.log)
		}
		checkCommands(t, res)
	}
	// No trust at all: exit 3, and the outputs say error.
	res := job.run(nil)
	if res.exit != 3 || res.outputs["conclusion"] != "error" || res.outputs["exit-code"] != "3" {
		t.Errorf("no trust: exit %d outputs %v\n%s", res.exit, res.outputs, res.log)
	}
	// An unknown mode or format is refused.
	if res := job.run(map[string]string{"mode": "sign"}); res.exit != 2 {
		t.Errorf("mode sign: exit %d", res.exit)
	}
	if res := job.run(map[string]string{"allowed-signers": w.signers, "format": "xml"}); res.exit != 2 {
		t.Errorf("format xml: exit %d", res.exit)
	}
}

// TestActionVerifyMergesNotes: verify mode brings the remote's notes into
// the checkout's own and never replaces them, so the notes of a pull
// request's fork — fetched by a step before the Action, as docs/ci.md's fork
// recipe does, or named in the notes-from input — stay; without them the
// fork's tick has no evidence and the gate fails.
func TestActionVerifyMergesNotes(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	mainSHA := rev(t, a, "HEAD")
	fork := filepath.Join(w.dir, "fork.git")
	testenv.Git(t, w.dir, "clone", "-q", "--bare", w.remote, fork)
	testenv.Git(t, a, "remote", "add", "fork", fork)
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	w.attest(a, w.tick(a, "T001"))
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	w.run(a, 0, "notes", "push", "origin")
	// The contributor's next tick is attested in the fork only.
	head := w.tick(a, "T002")
	w.attest(a, head)
	testenv.Git(t, a, "push", "-q", "fork", "feature")
	w.run(a, 0, "notes", "push", "fork")
	testenv.Git(t, a, "push", "-q", "origin", "HEAD:refs/pull/2/head")
	action := actionFiles(t)
	for _, tc := range []struct {
		name    string
		before  bool // the workflow fetches the fork's notes before the Action
		inputs  map[string]string
		exit    int
		failing string
	}{
		{"fork notes fetched before the Action", true, nil, 0, "0"},
		{"fork notes named in notes-from", false, map[string]string{"notes-from": "file://" + fork}, 0, "0"},
		{"no fork notes", false, nil, 1, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := checkoutLikeActions(t, w.remote, "refs/pull/2/head", head)
			if tc.before {
				testenv.Git(t, ws, "fetch", "-q", "--unshallow", "origin")
				w.run(ws, 0, "notes", "fetch", "file://"+fork)
			}
			job := &actionJob{t: t, actionDir: action, workspace: ws, eventName: "pull_request", event: pullRequestEvent(head, mainSHA),
				env: map[string]string{"GITHUB_BASE_REF": "main", "TASKPROOF_BIN": w.bin}, cacheDir: t.TempDir()}
			inputs := map[string]string{"allowed-signers": w.signers}
			for k, v := range tc.inputs {
				inputs[k] = v
			}
			res := job.run(inputs)
			if res.exit != tc.exit || res.outputs["ticks"] != "2" || res.outputs["failing"] != tc.failing {
				t.Fatalf("exit %d (want %d), outputs %v\n%s", res.exit, tc.exit, res.outputs, res.log)
			}
			checkCommands(t, res)
		})
	}
}

// TestActionAttestPerTick: attest mode decides tick by tick whether a
// commit's note holds statements: a commit that ticks two tasks, one of them
// attested by hand, gets the other attested; another tool's line in a note
// attests nothing; a commit whose every tick is attested is left as it is;
// and, with no reports and no verdict, a commit with a tick left unattested
// is named. The gate then passes every tick.
func TestActionAttestPerTick(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	before := rev(t, a, "HEAD")
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	p := filepath.Join(a, "specs/001-greeting/tasks.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	two := strings.Replace(strings.Replace(string(b), "- [ ] T001 ", "- [x] T001 ", 1), "- [ ] T002 ", "- [x] T002 ", 1)
	if err := os.WriteFile(p, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, a, "commit", "-q", "-am", "T001 and T002 done")
	both := rev(t, a, "HEAD")
	w.run(a, 0, "attest", "tick", "--commit", both, "--task", "T001", "--verdict", "regression_only",
		"--regression-reason", "planning_work", "--key", w.key)
	foreign := w.tick(a, "T003")
	// Another tool's statement (a build provenance) in T003's note.
	provenance := base64.StdEncoding.EncodeToString([]byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"greet","digest":{"sha256":"` +
		strings.Repeat("ab", 32) + `"}}],"predicateType":"https://slsa.dev/provenance/v1","predicate":{}}`))
	testenv.Git(t, a, "notes", "--ref", "refs/notes/speccoder", "add", "-m", `{"payload":"`+provenance+`","payloadType":"application/vnd.in-toto+json","signatures":[]}`, foreign)
	done := w.tick(a, "T004")
	w.attest(a, done)
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	w.run(a, 0, "notes", "push", "origin")
	action := actionFiles(t)
	attest := func(inputs map[string]string) *actionRun {
		job := &actionJob{t: t, actionDir: action, workspace: checkoutLikeActions(t, w.remote, "refs/heads/feature", done), eventName: "push",
			event: pushEvent("refs/heads/feature", before, done), cacheDir: t.TempDir(), env: map[string]string{"TASKPROOF_BIN": w.bin}}
		in := map[string]string{"mode": "attest", "signer": "ssh", "signing-key": w.key}
		for k, v := range inputs {
			in[k] = v
		}
		return job.run(in)
	}

	// Without reports or a verdict nothing is attested: the commits with an
	// unattested tick are named.
	res := attest(nil)
	if o := res.outputs; res.exit != 0 || o["attested"] != "0" || o["already-attested"] != "1" || o["unattested"] != "2" || o["conclusion"] != "incomplete" {
		t.Fatalf("exit %d, outputs %v\n%s", res.exit, o, res.log)
	}
	named := map[string]bool{}
	for _, c := range res.commands {
		if c.Name == "warning" && strings.Contains(c.Data, "not attested") {
			for _, id := range []string{both, foreign, done} {
				named[id] = named[id] || strings.Contains(c.Data, id)
			}
		}
	}
	if !named[both] || !named[foreign] || named[done] {
		t.Errorf("warnings name %v, want %s and %s\n%s", named, both[:12], foreign[:12], res.log)
	}
	checkCommands(t, res)

	res = attest(map[string]string{"verdict": "regression_only", "args": "--regression-reason planning_work"})
	if o := res.outputs; res.exit != 0 || o["attested"] != "2" || o["already-attested"] != "1" || o["unattested"] != "0" || o["conclusion"] != "success" {
		t.Fatalf("exit %d, outputs %v\n%s", res.exit, o, res.log)
	}
	checkCommands(t, res)
	// The hand-made statement of T001 is kept as it was, beside the
	// Action's of T002.
	c := w.clone("check")
	w.run(c, 0, "notes", "fetch", "origin")
	testenv.Git(t, c, "switch", "-q", "feature")
	out, _ := w.run(c, 0, "verify", "--branch", "--base", "origin/main", "--allowed-signers", w.signers)
	if !strings.Contains(out, "summary: 4 evidenced") {
		t.Errorf("gate after the Action:\n%s", out)
	}
	if res := attest(map[string]string{"verdict": "regression_only", "args": "--regression-reason planning_work"}); res.outputs["attested"] != "0" || res.outputs["already-attested"] != "3" {
		t.Errorf("a second run: outputs %v\n%s", res.outputs, res.log)
	}

	// args takes the flags that shape a statement, none that chooses what
	// signs, which commit, or whether statements are replaced.
	shaping := map[string]bool{"task": true, "unit": true, "evidence": true, "red-output": true, "red-kind": true, "regression-reason": true,
		"test-files": true, "policy": true, "key-passphrase-env": true, "rsa-scheme": true, "sigstore-timeout": true}
	for _, f := range commandFlags(t, "attest", "tick") {
		if shaping[f] {
			continue
		}
		if res := attest(map[string]string{"verdict": "regression_only", "args": "--" + f + "=x"}); res.exit != 2 || res.outputs["attested"] != "" {
			t.Errorf("args --%s=x: exit %d, outputs %v; want exit 2 before anything runs", f, res.exit, res.outputs)
		}
	}
}

// TestActionInsecureIgnoreTlog: the Action's insecure-ignore-tlog input
// passes --insecure-ignore-tlog, as the deprecated sigstore-tlog-threshold:
// "0" still does, with a ::warning:: naming the new input; both given, or a
// threshold with insecure-ignore-tlog "true", are refused before taskproof
// runs; a threshold of 1 or more is passed as it is, and a negative one is
// taskproof's usage error. The arguments verify gets are recorded; then the
// real binary runs the deprecated spelling.
func TestActionInsecureIgnoreTlog(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	testenv.Git(t, a, "push", "-q", "origin", "HEAD:main")
	head := rev(t, a, "HEAD")
	bin, log := recorder(t, w.bin, "verify --notes-ref")
	ws := checkoutLikeActions(t, w.remote, "refs/heads/main", head)
	job := &actionJob{t: t, actionDir: actionFiles(t), workspace: ws, eventName: "push", event: pushEvent("refs/heads/main", head, head),
		env: map[string]string{"TASKPROOF_BIN": bin}, cacheDir: t.TempDir()}
	const (
		deprecated = `the input sigstore-tlog-threshold: "0" is deprecated: use insecure-ignore-tlog: "true" instead`
		both       = `give one: insecure-ignore-tlog (sigstore-tlog-threshold "0" is its deprecated spelling)`
	)
	for _, tc := range []struct {
		inputs  map[string]string
		exit    int
		flags   []string // verify's tlog flags; nil when verify must not run
		warning string
	}{
		{nil, 0, []string{}, ""},
		{map[string]string{"insecure-ignore-tlog": "false"}, 0, []string{}, ""},
		{map[string]string{"insecure-ignore-tlog": "true"}, 0, []string{"--insecure-ignore-tlog"}, ""},
		{map[string]string{"sigstore-tlog-threshold": "0"}, 0, []string{"--insecure-ignore-tlog"}, deprecated},
		{map[string]string{"sigstore-tlog-threshold": "2"}, 0, []string{"--sigstore-tlog-threshold", "2"}, ""},
		{map[string]string{"sigstore-tlog-threshold": "2", "insecure-ignore-tlog": "false"}, 0, []string{"--sigstore-tlog-threshold", "2"}, ""},
		{map[string]string{"sigstore-tlog-threshold": "0", "insecure-ignore-tlog": "true"}, 2, nil, both},
		{map[string]string{"sigstore-tlog-threshold": "0", "insecure-ignore-tlog": "false"}, 2, nil, both},
		{map[string]string{"sigstore-tlog-threshold": "2", "insecure-ignore-tlog": "true"}, 2, nil, `insecure-ignore-tlog "true" accepts bundles without a transparency log entry, a sigstore-tlog-threshold requires some: give one`},
		{map[string]string{"insecure-ignore-tlog": "maybe"}, 2, nil, "insecure-ignore-tlog: want true or false, not maybe"},
	} {
		if err := os.Remove(log); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		res := job.run(tc.inputs)
		got := calls(t, log)
		var warnings, errs []string
		for _, c := range res.commands {
			switch c.Name {
			case "warning":
				warnings = append(warnings, c.Data)
			case "error":
				errs = append(errs, c.Data)
			}
		}
		switch {
		case res.exit != tc.exit:
			t.Errorf("inputs %v: exit %d, want %d\n%s", tc.inputs, res.exit, tc.exit, res.log)
		case tc.flags == nil:
			if len(got) != 0 || !slices.Contains(errs, tc.warning) {
				t.Errorf("inputs %v: verify ran %q, errors %q; want none run and %q", tc.inputs, got, errs, tc.warning)
			}
		case len(got) != 1:
			t.Errorf("inputs %v: %d verify calls\n%s", tc.inputs, len(got), res.log)
		default:
			var flags []string
			for i, arg := range got[0] {
				switch {
				case arg == "--insecure-ignore-tlog":
					flags = append(flags, arg)
				case arg == "--sigstore-tlog-threshold" && i+1 < len(got[0]):
					flags = append(flags, arg, got[0][i+1])
				}
			}
			if strings.Join(flags, " ") != strings.Join(tc.flags, " ") {
				t.Errorf("inputs %v: verify's tlog flags %q, want %q", tc.inputs, flags, tc.flags)
			}
			if (tc.warning == "") != (len(warnings) == 0) || tc.warning != "" && !slices.Contains(warnings, tc.warning) {
				t.Errorf("inputs %v: warnings %q, want %q", tc.inputs, warnings, tc.warning)
			}
		}
		checkCommands(t, res)
	}

	// The real binary: a negative threshold is its usage error (exit 2,
	// naming the flag and the value); "0" reaches it as --insecure-ignore-tlog,
	// whose own warning it writes (without a trusted root, exit 3).
	job.env["TASKPROOF_BIN"] = w.bin
	res := job.run(map[string]string{"allowed-signers": w.signers, "sigstore-tlog-threshold": "-1"})
	if res.exit != 2 || !strings.Contains(res.log, "--sigstore-tlog-threshold -1: want a count") || res.outputs["conclusion"] != "error" {
		t.Errorf("sigstore-tlog-threshold -1: exit %d, outputs %v\n%s", res.exit, res.outputs, res.log)
	}
	res = job.run(map[string]string{"allowed-signers": w.signers, "sigstore-tlog-threshold": "0"})
	if res.exit != 3 || !strings.Contains(res.log, "WARNING: --insecure-ignore-tlog") || strings.Contains(res.log, "Flag --sigstore-tlog-threshold 0 has been deprecated") || !strings.Contains(res.log, deprecated) {
		t.Errorf("sigstore-tlog-threshold 0: exit %d\n%s", res.exit, res.log)
	}
	checkCommands(t, res)
}

// TestActionInsecureAllowUnsigned: the Action's insecure-allow-unsigned
// input accepts unsigned statements, as the deprecated require-signed:
// "false" still does (with a warning naming the new input); giving both is
// refused whatever their values, before taskproof runs; with neither,
// unsigned statements fail the gate.
func TestActionInsecureAllowUnsigned(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	before := rev(t, a, "HEAD")
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	head := w.tick(a, "T001")
	w.run(a, 0, "attest", "tick", "--commit", head, "--verdict", "verified", "--unsigned")
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	w.run(a, 0, "notes", "push", "origin")
	job := &actionJob{t: t, actionDir: actionFiles(t), workspace: checkoutLikeActions(t, w.remote, "refs/heads/feature", head), eventName: "pull_request",
		event: pullRequestEvent(head, before), cacheDir: t.TempDir(), env: map[string]string{"TASKPROOF_BIN": w.bin, "GITHUB_BASE_REF": "main"}}
	const both = "give one: insecure-allow-unsigned (require-signed is its deprecated spelling)"
	for _, tc := range []struct {
		inputs     map[string]string
		exit       int
		conclusion string
		log        string
	}{
		{nil, 1, "failure", ""},
		{map[string]string{"insecure-allow-unsigned": "false"}, 1, "failure", ""},
		{map[string]string{"insecure-allow-unsigned": "true"}, 0, "success", "WARNING: --insecure-allow-unsigned: unsigned statements are accepted"},
		{map[string]string{"require-signed": "false"}, 0, "success", "the input require-signed is deprecated: use insecure-allow-unsigned"},
		{map[string]string{"require-signed": "true"}, 1, "failure", "the input require-signed is deprecated"},
		{map[string]string{"insecure-allow-unsigned": "false", "require-signed": "false"}, 2, "", both},
		{map[string]string{"insecure-allow-unsigned": "true", "require-signed": "true"}, 2, "", both},
		{map[string]string{"insecure-allow-unsigned": "maybe"}, 2, "", "insecure-allow-unsigned: want true or false, not maybe"},
	} {
		inputs := map[string]string{"allowed-signers": w.signers}
		for k, v := range tc.inputs {
			inputs[k] = v
		}
		res := job.run(inputs)
		if res.exit != tc.exit || res.outputs["conclusion"] != tc.conclusion || !strings.Contains(res.log, tc.log) {
			t.Errorf("inputs %v: exit %d (want %d), outputs %v, want %q in the log\n%s", tc.inputs, res.exit, tc.exit, res.outputs, tc.log, res.log)
		}
		if tc.exit == 2 && strings.Contains(res.log, "taskproof verify") {
			t.Errorf("inputs %v: taskproof ran\n%s", tc.inputs, res.log)
		}
		checkCommands(t, res)
	}
}
