package testreport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
)

// -record runs the real toolchains over testdata/red and writes each case's
// report and the tools' versions (testdata/red/VERSIONS) for the machines
// that lack them:
//
//	go test ./testreport -run TestRedCorpus -args -record
var record = flag.Bool("record", false, "record the red corpus' reports from the real toolchains (testdata/red)")

// redCorpus is the classification corpus: testdata/red/<toolchain>/<case>/
// holds red/, the project as the red run saw it, green/, the files the
// task's change writes, args, extra arguments for the runner (one a line),
// and the recorded report (red.json, red.xml or red.log).
const redCorpus = "testdata/red"

// redRow is one row of the table in docs/format.md#how-a-red-run-is-classified.
type redRow struct {
	toolchain, name string
	want            predicate.RedClass
}

// docRows reads the corpus table from docs/format.md: the expected class of
// each case is the documented one.
func docRows(t *testing.T) []redRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "format.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### How a red run is classified\n")
	if !ok {
		t.Fatal(`docs/format.md has no "### How a red run is classified"`)
	}
	if i := strings.Index(sec, "\n### "); i >= 0 {
		sec = sec[:i]
	}
	row := regexp.MustCompile("(?m)^\\| (go|pytest|vitest|jest|cargo) \\| `([a-z0-9-]+)` \\|[^|]*\\| `([a-z_]+)` \\|")
	var rows []redRow
	for _, m := range row.FindAllStringSubmatch(sec, -1) {
		rows = append(rows, redRow{m[1], m[2], predicate.RedClass(m[3])})
	}
	if len(rows) == 0 {
		t.Fatal("docs/format.md#how-a-red-run-is-classified: no case rows")
	}
	return rows
}

// TestRedCorpus classifies every case of the corpus as docs/format.md's table
// says: from the recorded report always, and from the real toolchain's run
// where the toolchain is installed.
func TestRedCorpus(t *testing.T) {
	rows := docRows(t)
	documented := map[string]bool{}
	for _, r := range rows {
		documented[r.toolchain+"/"+r.name] = true
	}
	dirs, _ := filepath.Glob(filepath.Join(redCorpus, "*", "*", "red"))
	for _, d := range dirs {
		c := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(d, redCorpus+string(filepath.Separator))))
		if !documented[c] {
			t.Errorf("testdata/red/%s is not in docs/format.md's table", c)
		}
	}
	var versions []string
	var vmu sync.Mutex
	for _, row := range rows {
		row := row
		t.Run(row.toolchain+"/"+row.name, func(t *testing.T) {
			dir := filepath.Join(redCorpus, row.toolchain, row.name)
			if _, err := os.Stat(filepath.Join(dir, "red")); err != nil {
				t.Fatalf("docs/format.md names %s/%s, which testdata/red does not hold", row.toolchain, row.name)
			}
			change := caseChange(t, dir)
			rn := runners[row.toolchain]
			t.Run("recorded", func(t *testing.T) {
				name := filepath.Join(dir, "red."+rn.ext)
				b, err := os.ReadFile(name)
				if err != nil {
					if *record {
						t.Skip("recording")
					}
					t.Fatalf("no recorded report (record it: go test ./testreport -run TestRedCorpus -args -record): %v", err)
				}
				checkClass(t, name, b, change, row.want)
			})
			t.Run("real", func(t *testing.T) {
				if rn.serial == nil {
					t.Parallel()
				} else {
					rn.serial.Lock()
					defer rn.serial.Unlock()
				}
				tool, version, missing := rn.find(t)
				if missing != "" {
					t.Skipf("%s; the recorded report was read instead", missing)
				}
				report := runCase(t, rn, tool, dir)
				checkClass(t, "red."+rn.ext, report, change, row.want)
				if *record {
					if err := os.WriteFile(filepath.Join(dir, "red."+rn.ext), report, 0o644); err != nil {
						t.Fatal(err)
					}
					vmu.Lock()
					versions = append(versions, row.toolchain+": "+version)
					vmu.Unlock()
				}
			})
		})
	}
	t.Cleanup(func() {
		if !*record || len(versions) == 0 {
			return
		}
		// A run that recorded some toolchains keeps the others' lines.
		recorded := map[string]bool{}
		for _, v := range versions {
			tc, _, _ := strings.Cut(v, ": ")
			recorded[tc] = true
		}
		if b, err := os.ReadFile(filepath.Join(redCorpus, "VERSIONS")); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				tc, _, ok := strings.Cut(l, ": ")
				if ok && !strings.HasPrefix(l, "#") && !recorded[tc] {
					versions = append(versions, l)
				}
			}
		}
		sort.Strings(versions)
		var out []string
		for i, v := range versions {
			if i == 0 || v != versions[i-1] {
				out = append(out, v)
			}
		}
		text := "# The tools that recorded testdata/red's reports (go test ./testreport -run TestRedCorpus -args -record).\n" + strings.Join(out, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(redCorpus, "VERSIONS"), []byte(text), 0o644); err != nil {
			t.Error(err)
		}
	})
}

func checkClass(t *testing.T, name string, report []byte, change *Change, want predicate.RedClass) {
	t.Helper()
	r, err := Parse(name, report)
	if err != nil {
		t.Fatal(err)
	}
	got := r.Classify(change)
	if got.Class != want {
		t.Errorf("class %s (line %d: %s), want %s\nreport:\n%s", got.Class, got.Line, got.Detail, want, truncate(report, 4000))
		return
	}
	if got.Class != predicate.ClassPassed && got.Class != predicate.ClassNoTests && got.Detail == "" {
		t.Errorf("class %s without the failure that decided it", got.Class)
	}
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n:n], "…"...)
	}
	return b
}

// caseChange is the change from the case's red/ to its green/ files.
func caseChange(t *testing.T, dir string) *Change {
	t.Helper()
	ch := NewChange()
	green := filepath.Join(dir, "green")
	err := filepath.WalkDir(green, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(green, p)
		rel = filepath.ToSlash(rel)
		newb, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var old []byte
		for _, cand := range []string{rel, rel + ".in"} {
			if b, err := os.ReadFile(filepath.Join(dir, "red", filepath.FromSlash(cand))); err == nil {
				old = b
				break
			}
		}
		ch.AddFile(rel, old, newb)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return ch
}

// runner runs one toolchain's red run.
type runner struct {
	ext string
	// find returns the tool to run and its version, or what is missing.
	find func(t *testing.T) (tool, version, missing string)
	// run runs the tool in dir, the case's red project, with the case's
	// extra args, and returns the report.
	run func(ctx context.Context, tool, dir, out string, args []string) ([]byte, error)
	// serial, when set, runs the toolchain's cases one at a time.
	serial *sync.Mutex
}

var runners = map[string]runner{
	"go":     {ext: "json", find: findGo, run: runGo},
	"pytest": {ext: "xml", find: findPytest, run: runPytest},
	"vitest": {ext: "xml", find: findNode("vitest"), run: runVitest, serial: &sync.Mutex{}},
	"jest":   {ext: "xml", find: findNode("jest"), run: runJest, serial: &sync.Mutex{}},
	"cargo":  {ext: "log", find: findCargo, run: runCargo},
}

// runCase copies the case's red project into a new directory (a file named
// *.in loses the suffix: a Go file that does not parse is kept from gofmt)
// and runs the toolchain there.
func runCase(t *testing.T, rn runner, tool, dir string) []byte {
	t.Helper()
	work := filepath.Join(t.TempDir(), "red")
	src := filepath.Join(dir, "red")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(work, strings.TrimSuffix(rel, ".in"))
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	if b, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
		args = strings.Fields(string(b))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := filepath.Join(filepath.Dir(work), "report")
	report, err := rn.run(ctx, tool, work, out, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return report
}

// command runs name in dir; a run that fails is what a red run does, so only
// a run that could not start or was killed is an error.
func command(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && ctx.Err() == nil {
		err = nil
	}
	if err != nil {
		return out.Bytes(), fmt.Errorf("%v\n%s", err, out.Bytes())
	}
	return out.Bytes(), nil
}

func findGo(*testing.T) (string, string, string) {
	out, err := exec.Command("go", "version").Output()
	if err != nil {
		return "", "", "go is not installed"
	}
	return "go", strings.TrimSpace(string(out)), ""
}

var goEnv = []string{"GOTOOLCHAIN=local", "GOFLAGS=-count=1", "GOPROXY=off", "GOWORK=off"}

func runGo(ctx context.Context, tool, dir, _ string, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, tool, append(append([]string{"test", "-json"}, args...), "./...")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), goEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || ctx.Err() != nil) {
		return nil, fmt.Errorf("%v\n%s", err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

func findPytest(*testing.T) (string, string, string) {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if out, err := exec.Command(py, "-m", "pytest", "--version").CombinedOutput(); err == nil {
			return py, strings.TrimSpace(string(out)), ""
		}
	}
	return "", "", "pytest is not installed (apt-get install python3-pytest)"
}

func runPytest(ctx context.Context, py, dir, out string, args []string) ([]byte, error) {
	xml := out + ".xml"
	if _, err := command(ctx, dir, []string{"PYTHONDONTWRITEBYTECODE=1"}, py, append([]string{"-m", "pytest", "-p", "no:cacheprovider", "--junitxml=" + xml}, args...)...); err != nil {
		return nil, err
	}
	return os.ReadFile(xml)
}

// nodeDir is the shared npm install of vitest and jest
// (testenv.NodeTools), once a case found it.
var nodeDir string

func findNode(tool string) func(t *testing.T) (string, string, string) {
	return func(t *testing.T) (string, string, string) {
		dir, missing := testenv.NodeTools(t)
		if missing != "" {
			return "", "", missing
		}
		nodeDir = dir
		bin := filepath.Join(dir, "node_modules", ".bin", tool)
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", tool, "package.json"))
		if err != nil {
			return "", "", err.Error()
		}
		var pkg struct{ Version string }
		if err := json.Unmarshal(b, &pkg); err != nil {
			return "", "", tool + "'s package.json: " + err.Error()
		}
		node, _ := exec.Command("node", "--version").Output()
		return bin, tool + " " + pkg.Version + " (node " + strings.TrimSpace(string(node)) + ")", ""
	}
}

// linkNodeModules makes the shared install the project's node_modules.
func linkNodeModules(dir string) error {
	return os.Symlink(filepath.Join(nodeDir, "node_modules"), filepath.Join(dir, "node_modules"))
}

var nodeEnv = []string{"CI=true", "NO_COLOR=1", "FORCE_COLOR=0"}

func runVitest(ctx context.Context, bin, dir, out string, args []string) ([]byte, error) {
	if err := linkNodeModules(dir); err != nil {
		return nil, err
	}
	xml := out + ".xml"
	if _, err := command(ctx, dir, nodeEnv, bin, append([]string{"run", "--reporter=junit", "--outputFile=" + xml}, args...)...); err != nil {
		return nil, err
	}
	return os.ReadFile(xml)
}

func runJest(ctx context.Context, bin, dir, out string, args []string) ([]byte, error) {
	if err := linkNodeModules(dir); err != nil {
		return nil, err
	}
	xml := out + ".xml"
	env := append([]string{"JEST_JUNIT_OUTPUT_FILE=" + xml, "JEST_JUNIT_ADD_FILE_ATTRIBUTE=true", "JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true"}, nodeEnv...)
	if _, err := command(ctx, dir, env, bin, append([]string{"--ci", "--reporters=default", "--reporters=jest-junit",
		"--cacheDirectory=" + filepath.Join(nodeDir, "jest-cache")}, args...)...); err != nil {
		return nil, err
	}
	return os.ReadFile(xml)
}

func findCargo(*testing.T) (string, string, string) {
	out, err := exec.Command("cargo", "--version").Output()
	if err != nil {
		return "", "", "cargo is not installed (apt-get install cargo)"
	}
	return "cargo", strings.TrimSpace(string(out)), ""
}

func runCargo(ctx context.Context, cargo, dir, out string, args []string) ([]byte, error) {
	env := []string{"CARGO_TARGET_DIR=" + out + "-target", "RUST_BACKTRACE=0", "CARGO_TERM_COLOR=never", "CARGO_NET_OFFLINE=true"}
	return command(ctx, dir, env, cargo, append([]string{"test", "--offline"}, args...)...)
}
