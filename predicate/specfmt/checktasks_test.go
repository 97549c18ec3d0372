package specfmt

import (
	"strings"
	"testing"
)

// checkTasksSeeds are files CheckTasks must judge as ParseTasks does: each way
// a parse fails, and files near those ways that parse.
var checkTasksSeeds = []string{
	"- [x] T001 \x00 nul\n",
	"- [x] T001 a\n\xff\xfe\n",
	"\xff\xfe- \x00[\x00x\x00]\x00",
	"\ufeff",
	"\ufeff\ufeff- [x] T001 a\n",
	"\r\r\n\r- [x] T001 a",
	strings.Repeat(">", 300) + " - [x] T002 b\n",
	"- [x] T001 a\n" + strings.Repeat(">", 300) + " text\n",
	strings.Repeat(">", 300) + " no box here\n",
	strings.Repeat(" ", 300) + "[x]\n",
	"- [x] T001 a\r" + strings.Repeat("\t", 65) + "- [x] T002 b\r",
	"- [x] T001 a\n" + strings.Repeat("1. ", 86) + "[x] T002 b\n",
	"- [x] T001 a\n" + strings.Repeat(">", 250) + " - [x] T002 b\n",
	"```\n" + strings.Repeat("- ", 200) + "[x] T002 in code\n```\n",
	"- [x] T001 a\n- [x] T001 a\n",
	"- [x] Same\n- [ ] Same\n",
}

// sameVerdict fails t unless CheckTasks(u, content) and ParseTasks(u, content,
// AllowDuplicateIDs()) both succeed or fail with the same message.
func sameVerdict(t *testing.T, u Unit, content []byte) {
	t.Helper()
	_, perr := ParseTasks(u, content, AllowDuplicateIDs())
	cerr := CheckTasks(u, content)
	if (perr == nil) != (cerr == nil) || (perr != nil && perr.Error() != cerr.Error()) {
		t.Fatalf("%.60q as %s: CheckTasks = %v, ParseTasks = %v", content, u.Format, cerr, perr)
	}
}

// TestCheckTasks: CheckTasks gives ParseTasks's verdict, and its error, on
// the parser's seeds, on every way a file fails to parse, and for bad units.
func TestCheckTasks(t *testing.T) {
	big := []byte(strings.Repeat("- [x] T001 a\n", MaxTasksFileSize/13+1))
	for _, u := range []Unit{skUnit, osUnit, kiUnit} {
		for _, s := range append(append([]string{}, fuzzSeeds...), checkTasksSeeds...) {
			sameVerdict(t, u, []byte(s))
		}
		sameVerdict(t, u, big)
		sameVerdict(t, u, big[:MaxTasksFileSize])
	}
	for _, u := range []Unit{{Format: "nope", Dir: "x"}, {Format: Speckit, Dir: "."}, {Format: Kiro, Dir: "../x"}, {Format: OpenSpec, Dir: `a\b`}} {
		sameVerdict(t, u, []byte("- [x] T001 a\n"))
		sameVerdict(t, u, []byte("\x00"))
	}
}

// FuzzCheckTasks: for any content, CheckTasks gives ParseTasks's verdict and
// error, in every format.
func FuzzCheckTasks(f *testing.F) {
	for _, s := range append(append([]string{}, fuzzSeeds...), checkTasksSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		for _, u := range []Unit{skUnit, osUnit, kiUnit} {
			sameVerdict(t, u, content)
		}
	})
}
