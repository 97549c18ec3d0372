package testreport

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/taskproof/taskproof/predicate"
)

// pytest finds a Python with pytest, or skips.
func pytest(t *testing.T) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-m", "pytest", "--version").Run() == nil {
			return py
		}
	}
	t.Skip("pytest is not installed (apt-get install python3-pytest); the checked-in pytest samples are read instead")
	return ""
}

// TestPytestForReal runs pytest --junitxml on a task that fails red on an
// assertion and on a missing name, then passes, and reads its reports.
func TestPytestForReal(t *testing.T) {
	py := pytest(t)
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string) *Report {
		t.Helper()
		out := filepath.Join(dir, name+".xml")
		cmd := exec.Command(py, "-m", "pytest", "-p", "no:cacheprovider", "--junitxml="+out, "tests")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1")
		_ = cmd.Run() // red runs exit 1 or 2
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("pytest wrote no report: %v", err)
		}
		r, err := Parse(name+".xml", b)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	write("tests/test_greet.py", "from greet import greet\n\n\ndef test_greet():\n    assert greet('Ada') == 'hello, Ada'\n")
	write("greet.py", "def hello(name):\n    return name\n")
	if c := run("missing").RedClass(); c != predicate.ClassAbsent {
		t.Errorf("missing name: class %s, want absent", c)
	}
	write("greet.py", "def greet(name):\n    return name\n")
	if c := run("assertion").RedClass(); c != predicate.ClassAssertion {
		t.Errorf("assertion: class %s, want assertion", c)
	}
	write("greet.py", "def greet(name):\n    return 'hello, ' + name\n")
	green := run("green")
	if !green.Succeeded() {
		t.Fatalf("green: %+v", green)
	}
	fc := Collect(green, []string{"tests/test_greet.py"}, nil)
	if fc[0].State != predicate.StateCollected || fc[0].Tests != 1 || fc[0].TestIDs[0] != "tests.test_greet::test_greet" {
		t.Errorf("collection %+v", fc[0])
	}
}
