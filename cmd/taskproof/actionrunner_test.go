package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/taskproof/taskproof/internal/testenv"
)

// This file is a small GitHub Actions runner for the tests of action.yml: it
// reads the composite action, evaluates the expressions it uses, runs each
// `run:` step with the real bash as the runner does (`bash --noprofile
// --norc -eo pipefail FILE`, the step's env, $GITHUB_OUTPUT, $GITHUB_ENV,
// $GITHUB_STEP_SUMMARY, $GITHUB_ACTION_PATH), reads the step outputs back in
// the runner's two syntaxes, stands in for actions/cache with a directory,
// and parses the step logs for workflow commands as the runner would
// (stop-commands included). An expression or context it does not know fails
// the test: action.yml may only use what is simulated here.

// actionDef is action.yml.
type actionDef struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
	Env   map[string]string `yaml:"env"`
}

func readActionDef(t *testing.T, dir string) *actionDef {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var def actionDef
	if err := yaml.Unmarshal(b, &def); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if def.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, want composite", def.Runs.Using)
	}
	return &def
}

// actionJob is one job running the Action once: the runner's environment,
// the event, the checkout it runs in.
type actionJob struct {
	t         *testing.T
	actionDir string            // $GITHUB_ACTION_PATH: the Action's files
	workspace string            // $GITHUB_WORKSPACE: the checkout, the steps' directory
	eventName string            // $GITHUB_EVENT_NAME
	event     map[string]any    // the payload at $GITHUB_EVENT_PATH (github.event)
	env       map[string]string // the job's environment beyond the runner's own variables
	cacheDir  string            // actions/cache's store (shared by the jobs of a test)
	offline   bool              // run each step in a network namespace with no network
}

// wfCommand is a workflow command the runner would execute.
type wfCommand struct {
	Name  string
	Props map[string]string
	Data  string
}

// actionRun is what a job's run of the Action left.
type actionRun struct {
	exit       int               // the failing step's exit code; 0 when every step passed
	failedStep string            // its id or index
	outputs    map[string]string // the Action's outputs
	stepOut    map[string]map[string]string
	log        string // every step's output, in order
	commands   []wfCommand
	summary    string // $GITHUB_STEP_SUMMARY, all steps'
	githubEnv  string // $GITHUB_ENV, all steps' (the Action writes none)
}

// runnerEnv is the environment every step starts from: the machine's tools,
// a home of the job's own (no git identity, no global git config), the
// runner's variables, and the Go caches of the machine (a runner's setup-go
// cache) with the module proxy switched off.
func (j *actionJob) runnerEnv(temp string) map[string]string {
	j.t.Helper()
	home := filepath.Join(temp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		j.t.Fatal(err)
	}
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			j.t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	eventPath := filepath.Join(temp, "event.json")
	b, err := json.Marshal(j.event)
	if err != nil {
		j.t.Fatal(err)
	}
	if err := os.WriteFile(eventPath, b, 0o644); err != nil {
		j.t.Fatal(err)
	}
	env := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": home, "LANG": "C.UTF-8",
		"GIT_CONFIG_NOSYSTEM": "1",
		"GOMODCACHE":          goEnv("GOMODCACHE"), "GOCACHE": goEnv("GOCACHE"), "GOPATH": goEnv("GOPATH"),
		"GOPROXY": "off", "GOSUMDB": "off", "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod",
		"CI": "true", "GITHUB_ACTIONS": "true",
		"GITHUB_WORKSPACE": j.workspace, "GITHUB_EVENT_NAME": j.eventName, "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_REPOSITORY": "acme/greet", "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_RUN_ID": "1", "GITHUB_JOB": "taskproof",
		"RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "RUNNER_TEMP": filepath.Join(temp, "runner temp"),
		"RUNNER_TOOL_CACHE": filepath.Join(temp, "tool cache"),
	}
	for _, d := range []string{env["RUNNER_TEMP"], env["RUNNER_TOOL_CACHE"]} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			j.t.Fatal(err)
		}
	}
	for k, v := range j.env {
		env[k] = v
	}
	return env
}

// run runs the Action with inputs (those not given take their defaults).
func (j *actionJob) run(inputs map[string]string) *actionRun {
	t := j.t
	t.Helper()
	def := readActionDef(t, j.actionDir)
	in := map[string]any{}
	for name, i := range def.Inputs {
		in[name] = i.Default
	}
	for name, v := range inputs {
		if _, ok := def.Inputs[name]; !ok {
			t.Fatalf("input %q is not one of action.yml's", name)
		}
		in[name] = v
	}
	temp := t.TempDir()
	env := j.runnerEnv(temp)
	ctx := exprContext{"inputs": in, "github": map[string]any{"event_name": j.eventName, "event": j.event, "action_ref": "", "action_path": j.actionDir},
		"runner": map[string]any{"os": env["RUNNER_OS"], "arch": env["RUNNER_ARCH"], "temp": env["RUNNER_TEMP"], "tool_cache": env["RUNNER_TOOL_CACHE"]},
		"steps":  map[string]any{}, "env": map[string]any{}}
	for k, v := range env {
		ctx["env"].(map[string]any)[k] = v
	}
	res := &actionRun{outputs: map[string]string{}, stepOut: map[string]map[string]string{}}
	var logs strings.Builder
	summaryPath, envPath := filepath.Join(temp, "summary.md"), filepath.Join(temp, "github_env")
	for _, p := range []string{summaryPath, envPath} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var saves []func()
	for i, st := range def.Runs.Steps {
		name := st.ID
		if name == "" {
			name = strconv.Itoa(i)
		}
		cond := st.If
		if cond == "" {
			cond = "success()"
		}
		ok, err := ctx.truthy(cond, res.exit != 0)
		if err != nil {
			t.Fatalf("step %s: if: %v", name, err)
		}
		if !ok {
			continue
		}
		outputs := map[string]string{}
		switch {
		case st.Uses != "":
			if !strings.HasPrefix(st.Uses, "actions/cache@") {
				t.Fatalf("step %s uses %s: only actions/cache is simulated", name, st.Uses)
			}
			path, key := ctx.interpolate(t, st.With["path"]), ctx.interpolate(t, st.With["key"])
			if path == "" || key == "" {
				t.Fatalf("step %s: actions/cache with path %q key %q", name, path, key)
			}
			sum := sha256.Sum256([]byte(key))
			store := filepath.Join(j.cacheDir, hex.EncodeToString(sum[:]))
			if _, err := os.Stat(store); err == nil {
				copyTree(t, store, path)
				outputs["cache-hit"] = "true"
				fmt.Fprintf(&logs, "[cache] restored %s\n", key)
			} else {
				outputs["cache-hit"] = "false"
				saves = append(saves, func() {
					if _, err := os.Stat(path); err == nil {
						copyTree(t, path, store)
					}
				})
			}
		case st.Run != "":
			if st.Shell != "bash" {
				t.Fatalf("step %s: shell %q, want bash", name, st.Shell)
			}
			if strings.Contains(st.Run, "${{") {
				t.Fatalf("step %s: an expression in run: %q (inputs reach scripts through env only)", name, st.Run)
			}
			code, out := j.runStep(temp, name, st, ctx, env, summaryPath, envPath, outputs)
			logs.WriteString(out)
			if code != 0 {
				res.exit, res.failedStep = code, name
			}
		default:
			t.Fatalf("step %s: neither run nor uses", name)
		}
		if st.ID != "" {
			res.stepOut[st.ID] = outputs
			m := map[string]any{}
			for k, v := range outputs {
				m[k] = v
			}
			ctx["steps"].(map[string]any)[st.ID] = map[string]any{"outputs": m}
		}
	}
	if res.exit == 0 {
		for _, save := range saves {
			save()
		}
	}
	for name, o := range def.Outputs {
		res.outputs[name] = ctx.interpolate(t, o.Value)
	}
	res.log = logs.String()
	res.commands = parseWorkflowCommands(res.log)
	s, _ := os.ReadFile(summaryPath)
	e, _ := os.ReadFile(envPath)
	res.summary, res.githubEnv = string(s), string(e)
	return res
}

// runStep runs one `run:` step and reads its outputs into outputs.
func (j *actionJob) runStep(temp, name string, st actionStep, ctx exprContext, env map[string]string, summaryPath, envPath string, outputs map[string]string) (int, string) {
	t := j.t
	script := filepath.Join(temp, "step-"+name+".sh")
	if err := os.WriteFile(script, []byte(st.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(temp, "output-"+name)
	if err := os.WriteFile(outFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for k, v := range env {
		vars[k] = v
	}
	for k, v := range st.Env {
		vars[k] = ctx.interpolate(t, v)
	}
	vars["GITHUB_OUTPUT"], vars["GITHUB_STEP_SUMMARY"], vars["GITHUB_ENV"] = outFile, summaryPath, envPath
	vars["GITHUB_ACTION_PATH"] = j.actionDir
	var environ []string
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	sort.Strings(environ)
	argv := []string{"bash", "--noprofile", "--norc", "-eo", "pipefail", script}
	if j.offline {
		argv = append([]string{"unshare", "--net", "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = j.workspace, environ
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("step %s: %v", name, err)
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := parseOutputFile(b, outputs); err != nil {
		t.Fatalf("step %s: $GITHUB_OUTPUT: %v\n%q", name, err, b)
	}
	return code, fmt.Sprintf("[step %s]\n%s", name, out.String())
}

// parseOutputFile reads $GITHUB_OUTPUT as the runner does: NAME=VALUE lines
// and NAME<<DELIMITER blocks; anything else is an error (the runner fails
// the step).
func parseOutputFile(b []byte, into map[string]string) error {
	lines := strings.Split(string(b), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		eq, heredoc := strings.Index(l, "="), strings.Index(l, "<<")
		switch {
		case l == "":
		case heredoc > 0 && (eq < 0 || heredoc < eq):
			name, delim := l[:heredoc], l[heredoc+2:]
			var val []string
			j := i + 1
			for ; j < len(lines) && lines[j] != delim; j++ {
				val = append(val, lines[j])
			}
			if j == len(lines) {
				return fmt.Errorf("line %d: %s has no closing %s", i+1, name, delim)
			}
			into[name] = strings.Join(val, "\n")
			i = j
		case eq > 0:
			into[l[:eq]] = l[eq+1:]
		default:
			return fmt.Errorf("line %d: %q is no output", i+1, l)
		}
	}
	return nil
}

// parseWorkflowCommands reads a log as the runner reads step output: a line
// whose text after leading blanks starts with "::" is a command, unless
// commands are stopped (::stop-commands::TOKEN until ::TOKEN::).
func parseWorkflowCommands(log string) []wfCommand {
	var cmds []wfCommand
	stopped := ""
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	unescape := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
	for sc.Scan() {
		l := strings.TrimLeft(strings.TrimRight(sc.Text(), "\r"), " \t")
		if !strings.HasPrefix(l, "::") {
			continue
		}
		if stopped != "" {
			if l == "::"+stopped+"::" {
				stopped = ""
			}
			continue
		}
		rest := l[2:]
		end := strings.Index(rest, "::")
		if end < 0 {
			continue
		}
		head, data := rest[:end], rest[end+2:]
		name, props, _ := strings.Cut(head, " ")
		c := wfCommand{Name: name, Props: map[string]string{}, Data: unescape.Replace(data)}
		for _, p := range strings.Split(props, ",") {
			if k, v, ok := strings.Cut(p, "="); ok {
				c.Props[k] = unescape.Replace(v)
			}
		}
		if name == "stop-commands" {
			stopped = data
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// copyTree copies the directory tree src to dst (files with their modes).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// actionFiles makes the Action's files as the runner downloads them for
// `uses: taskproof/taskproof@REF`: the repository's files at that ref,
// without .git — here the files of this checkout (tracked, and new ones not
// ignored), uncommitted changes included.
func actionFiles(t *testing.T) string {
	t.Helper()
	root := testenv.RepoRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := filepath.Join(t.TempDir(), "taskproof action")
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or a symbolic link
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, b, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// offlineAvailable reports whether steps can run in a network namespace of
// their own (unshare --net), where nothing but the file system is reachable.
func offlineAvailable() bool {
	if runtime.GOOS != "linux" {
		return false
	}
	return exec.Command("unshare", "--net", "--", "true").Run() == nil
}

// exprContext holds the contexts expressions read: inputs, github, runner,
// steps, env.
type exprContext map[string]any

var exprRE = regexp.MustCompile(`\$\{\{(.*?)\}\}`)

// interpolate replaces each ${{ expr }} of s with its value as a string.
func (c exprContext) interpolate(t *testing.T, s string) string {
	t.Helper()
	var ferr error
	out := exprRE.ReplaceAllStringFunc(s, func(m string) string {
		v, err := c.eval(exprRE.FindStringSubmatch(m)[1], false)
		if err != nil {
			ferr = err
		}
		return exprString(v)
	})
	if ferr != nil {
		t.Fatalf("%s: %v", s, ferr)
	}
	return out
}

// truthy evaluates an if: condition (with or without ${{ }}).
func (c exprContext) truthy(cond string, failed bool) (bool, error) {
	cond = strings.TrimSpace(cond)
	if m := exprRE.FindStringSubmatch(cond); m != nil && m[0] == cond {
		cond = m[1]
	}
	v, err := c.eval(cond, failed)
	if err != nil {
		return false, err
	}
	// A condition without a status function runs only while no step failed.
	if failed && !strings.Contains(cond, "always()") && !strings.Contains(cond, "failure()") {
		return false, nil
	}
	return exprTruthy(v), nil
}

func exprString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func exprTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case bool:
		return x
	case float64:
		return x != 0
	}
	return true
}

// eval evaluates the subset of GitHub's expression syntax action.yml may
// use: string literals, context property paths, ==, !=, !, &&, || (which
// return an operand, as GitHub's do), parentheses, success(), failure(),
// always(). Strings compare case-insensitively and null equals the empty
// string.
func (c exprContext) eval(src string, failed bool) (any, error) {
	p := &exprParser{src: src, ctx: c, failed: failed}
	p.next()
	v, err := p.or()
	if err == nil && p.tok != "" {
		err = fmt.Errorf("unexpected %q in %q", p.tok, src)
	}
	return v, err
}

type exprParser struct {
	src    string
	pos    int
	tok    string
	ctx    exprContext
	failed bool
}

var exprTokenRE = regexp.MustCompile(`^\s*(==|!=|&&|\|\||!|\(|\)|'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_.\-]*(?:\(\))?)`)

func (p *exprParser) next() {
	rest := p.src[p.pos:]
	if strings.TrimSpace(rest) == "" {
		p.tok = ""
		return
	}
	m := exprTokenRE.FindStringSubmatchIndex(rest)
	if m == nil {
		p.tok = "\x00" + rest
		return
	}
	p.tok = rest[m[2]:m[3]]
	p.pos += m[1]
}

func (p *exprParser) or() (any, error) {
	v, err := p.and()
	for err == nil && p.tok == "||" {
		p.next()
		var w any
		w, err = p.and()
		if !exprTruthy(v) {
			v = w
		}
	}
	return v, err
}

func (p *exprParser) and() (any, error) {
	v, err := p.cmp()
	for err == nil && p.tok == "&&" {
		p.next()
		var w any
		w, err = p.cmp()
		if exprTruthy(v) {
			v = w
		}
	}
	return v, err
}

func (p *exprParser) cmp() (any, error) {
	v, err := p.unary()
	if err != nil || (p.tok != "==" && p.tok != "!=") {
		return v, err
	}
	op := p.tok
	p.next()
	w, err := p.unary()
	if err != nil {
		return nil, err
	}
	eq := strings.EqualFold(exprString(v), exprString(w))
	return eq == (op == "=="), nil
}

func (p *exprParser) unary() (any, error) {
	switch tok := p.tok; {
	case tok == "!":
		p.next()
		v, err := p.unary()
		return !exprTruthy(v), err
	case tok == "(":
		p.next()
		v, err := p.or()
		if err == nil && p.tok != ")" {
			err = fmt.Errorf("missing ) in %q", p.src)
		}
		p.next()
		return v, err
	case strings.HasPrefix(tok, "'"):
		p.next()
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"), nil
	case tok == "success()":
		p.next()
		return !p.failed, nil
	case tok == "failure()":
		p.next()
		return p.failed, nil
	case tok == "always()":
		p.next()
		return true, nil
	case tok == "true" || tok == "false":
		p.next()
		return tok == "true", nil
	case tok != "" && (tok[0] == '_' || tok[0] >= 'A' && tok[0] <= 'Z' || tok[0] >= 'a' && tok[0] <= 'z'):
		p.next()
		return p.ctx.lookup(tok)
	}
	return nil, fmt.Errorf("unsupported expression at %q in %q", p.tok, p.src)
}

// lookup reads a property path (inputs.mode, steps.install.outputs.bin,
// github.event.before); a missing property is null, a context that is not
// simulated an error.
func (c exprContext) lookup(path string) (any, error) {
	parts := strings.Split(path, ".")
	v, ok := c[parts[0]]
	if !ok {
		return nil, fmt.Errorf("context %q is not simulated", parts[0])
	}
	for _, part := range parts[1:] {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil
		}
		v = m[part]
	}
	return v, nil
}
