package importrules

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/taskproof/taskproof/"

// signingCode are the packages that sign: taskproof's signing writers and the
// Sigstore signing and OAuth clients they bring. notemerge, which writes the
// lines they sign into notes, imports none of them.
var signingCode = []string{
	module + "attest",
	module + "carry",
	module + "signer",
	"github.com/sigstore/sigstore-go/pkg/sign",
	"golang.org/x/oauth2",
}

// writers are taskproof's writers (notemerge and those that sign) and what they
// bring. A reader imports none of them, directly or not.
var writers = append([]string{module + "notemerge"}, signingCode...)

// heavyDecoders are what a codec must not pull in: Markdown, TOML and JSON
// Schema belong to the predicate and the tasks-file readers.
var heavyDecoders = []string{
	module + "predicate",
	"github.com/yuin/goldmark",
	"github.com/pelletier/go-toml",
	"github.com/santhosh-tekuri/jsonschema",
}

func TestImportRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go program is not on PATH")
	}
	pkgs := goList(t, "-f", "{{.ImportPath}}", module+"...")
	rules := []struct {
		pkg    string
		banned []string
		why    string
	}{
		{"dsse", heavyDecoders, "the envelope codec imports no predicate code"},
		{"statement", writers, "the Statement leaf imports no writer"},
		{"keys", writers, "verification-side key code imports no signer"},
		{"notemerge", signingCode, "merging notes signs nothing"},
		{"evidence", writers, "reading test reports writes and signs nothing"},
		{"notesref", append([]string{"github.com/go-git/", module + "gitref"}, heavyDecoders...), "naming the notes refs needs no repository"},
		{"trailer", append([]string{"github.com/go-git/", module + "gitref"}, heavyDecoders...), "reading a commit message's trailers needs no repository"},
	}
	// Readers, those of them that exist: the gate may be split into more.
	for _, r := range []string{"verify", "audit", "trust", "gate", "report"} {
		if slices.Contains(pkgs, module+r) {
			rules = append(rules, struct {
				pkg    string
				banned []string
				why    string
			}{r, writers, "a reader imports no writer"})
		}
	}
	// The per-object checks are beneath the merge gate: verify never imports it.
	if slices.Contains(pkgs, module+"gate") {
		rules = append(rules, struct {
			pkg    string
			banned []string
			why    string
		}{"verify", []string{module + "gate"}, "the per-object checks are beneath the merge gate"})
	}
	for _, r := range rules {
		for _, dep := range goList(t, "-deps", "-f", "{{.ImportPath}}", module+r.pkg) {
			for _, b := range r.banned {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					t.Errorf("%s depends on %s: %s (docs/architecture.md)", r.pkg, dep, r.why)
				}
			}
		}
	}
	// Leaves: how reports print values, and judging OpenPGP keys as gpg
	// judges them, import no other taskproof package.
	for _, leaf := range []string{"internal/printable", "internal/userpath", "internal/inputfile", "internal/errkind", "trust/internal/openpgpkeys"} {
		for _, dep := range goList(t, "-deps", "-f", "{{.ImportPath}}", module+leaf) {
			if strings.HasPrefix(dep, module) && dep != module+leaf {
				t.Errorf("%s depends on %s: it is a leaf (docs/architecture.md)", leaf, dep)
			}
		}
	}
	// Only gitref and its internal packages import go-git.
	for _, line := range goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] == module+"gitref" || strings.HasPrefix(fields[0], module+"gitref/") {
			continue
		}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, "github.com/go-git/") {
				t.Errorf("%s imports %s: only gitref imports go-git (docs/architecture.md)", fields[0], imp)
			}
		}
	}
	// The command line sits on the libraries, never under them: only cmd/
	// imports cobra or a package of cmd/.
	for _, line := range goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], module+"cmd/") {
			continue
		}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module+"cmd/") || strings.HasPrefix(imp, "github.com/spf13/cobra") {
				t.Errorf("%s imports %s: only the command line (cmd/) does (docs/architecture.md)", fields[0], imp)
			}
		}
	}
}

// goList runs `go list args...` and returns its output lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
