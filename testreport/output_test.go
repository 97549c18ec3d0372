package testreport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/taskproof/taskproof/predicate"
)

// TestReadRunOutput: each runner's words for a run that passed or failed,
// and what a failing run's failures confirm.
func TestReadRunOutput(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      Outcome
		line      int
		confirms  []predicate.RedKind
	}{
		{"go test -v passed", "=== RUN   TestHello\n--- PASS: TestHello (0.00s)\nPASS\nok  \texample.com/svc/greet\t0.003s\n", OutcomePassed, 4, nil},
		{"go test passed", "ok  \texample.com/svc/greet\t0.003s\n?   \texample.com/svc/cmd\t[no test files]\n", OutcomePassed, 1, nil},
		{"go test assertion", "--- FAIL: TestBye (0.00s)\n    bye_test.go:7: want bye\nFAIL\nFAIL\texample.com/svc/greet\t0.002s\nFAIL\n", OutcomeFailed, 1, []predicate.RedKind{predicate.RedAssertion}},
		{"go test build failure", "# example.com/svc/greet [example.com/svc/greet.test]\ngreet/t_test.go:6:5: undefined: Bye\nFAIL\texample.com/svc/greet [build failed]\nFAIL\n", OutcomeFailed, 2, []predicate.RedKind{predicate.RedMissingSymbol}},
		{"pytest passed", "============================= test session starts ==============================\ncollected 1 item\n\ntests/test_x.py .                                                        [100%]\n\n============================== 1 passed in 0.01s ===============================\n", OutcomePassed, 6, nil},
		{"pytest -q passed", "..\n2 passed in 0.02s\n", OutcomePassed, 2, nil},
		{"pytest failed", "F.\n=================================== FAILURES ===================================\nE       AssertionError: assert 'hi' == 'hello'\n=========================== short test summary info ============================\nFAILED tests/test_x.py::test_x - AssertionError\n========================= 1 failed, 1 passed in 0.05s ==========================\n", OutcomeFailed, 6, []predicate.RedKind{predicate.RedAssertion}},
		{"pytest collection error", "==================================== ERRORS ====================================\nE   ImportError: cannot import name 'greet' from 'greet'\n!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n=============================== 1 error in 0.08s ===============================\n", OutcomeFailed, 1, []predicate.RedKind{predicate.RedMissingSymbol}},
		{"jest passed", "PASS src/greet.test.js\n  ✓ greets (2 ms)\n\nTest Suites: 1 passed, 1 total\nTests:       1 passed, 1 total\nSnapshots:   0 total\n", OutcomePassed, 5, nil},
		{"jest failed", "FAIL src/greet.test.js\n  ✕ greets (3 ms)\n\nTest Suites: 1 failed, 1 total\nTests:       1 failed, 1 total\n", OutcomeFailed, 1, []predicate.RedKind{predicate.RedAssertion}},
		{"vitest passed", " ✓ src/greet.test.js (1 test) 2ms\n\n Test Files  1 passed (1)\n      Tests  1 passed (1)\n", OutcomePassed, 4, nil},
		{"vitest failed", "\x1b[31m FAIL \x1b[39m src/greet.test.js > greets\nAssertionError: expected 'hi' to be 'hello'\n\n Test Files  1 failed (1)\n      Tests  1 failed (1)\n", OutcomeFailed, 4, nil},
		{"cargo passed", "running 1 test\ntest greets ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n", OutcomePassed, 0, nil},
		{"unknown", "all good\n", OutcomeUnknown, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := ReadRunOutput([]byte(tc.out))
			if ro.Outcome != tc.want || (tc.line != 0 && ro.Line != tc.line) {
				t.Errorf("outcome %q at line %d (%s), want %q at line %d", ro.Outcome, ro.Line, ro.Text, tc.want, tc.line)
			}
			for _, k := range tc.confirms {
				if !ro.Confirms(k) {
					t.Errorf("%+v does not confirm %s", ro, k)
				}
			}
		})
	}
	// The checked-in reports read as runs too.
	for _, tc := range []struct {
		file string
		want Outcome
	}{{"go-test-json-red.json", OutcomeFailed}, {"pytest-green.xml", OutcomePassed}, {"jest-junit-missing.xml", OutcomeFailed}} {
		b, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if ro := ReadRunOutput(b); ro.Outcome != tc.want {
			t.Errorf("%s: %q, want %q", tc.file, ro.Outcome, tc.want)
		}
	}
}
