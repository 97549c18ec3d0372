package testreport

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"

	"github.com/taskproof/taskproof/predicate"
)

// TestCollectMonorepo: a test file is matched with a report's cases where
// its runner ran — Go by the nearest go.mod (a module in a subdirectory, a
// go.work workspace), pytest relative to its rootdir with the function the
// case names, vitest and jest relative to the nearest package.json — and a
// file of the same name in another project is not collected by it.
func TestCollectMonorepo(t *testing.T) {
	tree := fstest.MapFS{
		"go.work":                        {Data: []byte("go 1.22\n\nuse (\n\t./backend\n\t./tools\n)\n")},
		"backend/go.mod":                 {Data: []byte("module example.com/svc\n\ngo 1.22\n")},
		"backend/pkg/g_test.go":          {Data: []byte("package pkg\n\nfunc TestHello(t *testing.T) {}\n")},
		"tools/go.mod":                   {Data: []byte("module example.com/tools\n")},
		"tools/pkg/g_test.go":            {Data: []byte("package pkg_test\n\nfunc TestHello(t *testing.T) {}\n")},
		"services/api/pyproject.toml":    {Data: []byte("[tool.pytest.ini_options]\n")},
		"services/api/tests/test_x.py":   {Data: []byte("def test_api():\n    pass\n")},
		"services/web/conftest.py":       {Data: []byte("")},
		"services/web/tests/test_x.py":   {Data: []byte("class TestWeb:\n    def test_web(self):\n        pass\n")},
		"packages/web/package.json":      {Data: []byte("{}")},
		"packages/web/src/a.test.ts":     {Data: []byte("test('a', () => {})\n")},
		"packages/api/jest.config.js":    {Data: []byte("module.exports = {}\n")},
		"packages/api/package.json":      {Data: []byte("{}")},
		"packages/api/test/b.test.js":    {Data: []byte("test('b', () => {})\n")},
		"packages/nopkg/src/c.test.ts":   {Data: []byte("test('c', () => {})\n")},
		"crates/greet/Cargo.toml":        {Data: []byte("[package]\nname = \"greet\"\n")},
		"crates/greet/tests/greeting.rs": {Data: []byte("#[test]\nfn hello() {}\n")},
	}
	files := []string{"backend/pkg/g_test.go", "tools/pkg/g_test.go", "services/api/tests/test_x.py", "services/web/tests/test_x.py",
		"packages/web/src/a.test.ts", "packages/api/test/b.test.js", "packages/nopkg/src/c.test.ts", "crates/greet/tests/greeting.rs"}
	for _, tc := range []struct {
		name, report string
		collected    []string
	}{
		{"go test -json in backend", `{"Action":"pass","Package":"example.com/svc/pkg","Test":"TestHello"}`, []string{"backend/pkg/g_test.go"}},
		{"go test -json in the workspace", `{"Action":"pass","Package":"example.com/tools/pkg","Test":"TestHello"}`, []string{"tools/pkg/g_test.go"}},
		{"go: a package path that only ends in the directory", `{"Action":"pass","Package":"example.com/other/pkg","Test":"TestHello"}`, nil},
		{"pytest in services/api", `<testsuite name="pytest"><testcase classname="tests.test_x" name="test_api"/></testsuite>`, []string{"services/api/tests/test_x.py"}},
		{"pytest at the root", `<testsuite name="pytest"><testcase classname="services.web.tests.test_x.TestWeb" name="test_web"/></testsuite>`, []string{"services/web/tests/test_x.py"}},
		{"pytest xunit1 file attribute", `<testsuite name="pytest"><testcase classname="tests.test_x.TestWeb" name="test_web" file="tests/test_x.py"/></testsuite>`, []string{"services/web/tests/test_x.py"}},
		{"vitest in packages/web", `<testsuite name="src/a.test.ts"><testcase classname="src/a.test.ts" name="a"/></testsuite>`, []string{"packages/web/src/a.test.ts"}},
		{"vitest at the root", `<testsuite name="packages/web/src/a.test.ts"><testcase classname="packages/web/src/a.test.ts" name="a"/></testsuite>`, []string{"packages/web/src/a.test.ts"}},
		{"jest-junit file attribute in packages/api", `<testsuite name="b"><testcase classname="b" name="b" file="test/b.test.js"/></testsuite>`, []string{"packages/api/test/b.test.js"}},
		{"jest-junit absolute file", `<testsuite name="b"><testcase classname="b" name="b" file="/home/ci/work/repo/packages/api/test/b.test.js"/></testsuite>`, []string{"packages/api/test/b.test.js"}},
		{"a name relative to a directory no runner runs in", `<testsuite name="src/c.test.ts"><testcase classname="src/c.test.ts" name="c"/></testsuite>`, nil},
		{"cargo test in crates/greet", "running 1 test\n     Running tests/greeting.rs (target/debug/deps/greeting-0123)\ntest hello ... ok\n", []string{"crates/greet/tests/greeting.rs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse("r", []byte(tc.report))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, fc := range Collect(r, files, tree) {
				if fc.State == predicate.StateCollected {
					got = append(got, fc.Path)
				}
			}
			if !reflect.DeepEqual(got, tc.collected) {
				t.Errorf("collected %q, want %q", got, tc.collected)
			}
		})
	}
}

// TestCollectMonorepoForReal runs the real runners in one project of a
// monorepo (pytest in services/api, vitest in packages/web, jest in
// packages/api, where installed) and matches their reports with the
// repository's paths. (Two packages' files at one path relative to their
// package.json are not told apart: docs/format.md#test-reports.)
func TestCollectMonorepoForReal(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("services/api/pyproject.toml", "[tool.pytest.ini_options]\n")
	write("services/api/tests/test_greet.py", "def test_greet():\n    assert 'hello'\n")
	write("services/web/tests/test_greet.py", "def test_web_greets():\n    assert 'hello'\n")
	write("packages/web/package.json", `{"name": "web", "private": true, "type": "module"}`+"\n")
	write("packages/web/src/greet.test.js", "import { expect, test } from 'vitest'\n\ntest('greets', () => {\n  expect('hello').toBe('hello')\n})\n")
	write("packages/api/package.json", `{"name": "api", "private": true}`+"\n")
	write("packages/api/test/greet.test.js", "test('greets', () => {\n  expect('hello').toBe('hello')\n})\n")
	files := []string{"services/api/tests/test_greet.py", "services/web/tests/test_greet.py", "packages/web/src/greet.test.js", "packages/api/test/greet.test.js"}
	for _, tc := range []struct {
		runner, dir string
		collected   string
	}{
		{"pytest", "services/api", "services/api/tests/test_greet.py"},
		{"vitest", "packages/web", "packages/web/src/greet.test.js"},
		{"jest", "packages/api", "packages/api/test/greet.test.js"},
	} {
		t.Run(tc.runner, func(t *testing.T) {
			rn := runners[tc.runner]
			if rn.serial != nil {
				rn.serial.Lock()
				defer rn.serial.Unlock()
			}
			tool, _, missing := rn.find(t)
			if missing != "" {
				t.Skip(missing)
			}
			ctx := t.Context()
			out := filepath.Join(t.TempDir(), "report")
			dir := filepath.Join(root, filepath.FromSlash(tc.dir))
			b, err := rn.run(ctx, tool, dir, out, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse("report", b)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, fc := range Collect(r, files, os.DirFS(root)) {
				if fc.State == predicate.StateCollected {
					got = append(got, fc.Path)
				}
			}
			if len(got) != 1 || got[0] != tc.collected {
				t.Errorf("collected %q, want %s\n%s", got, tc.collected, b)
			}
		})
	}
}
