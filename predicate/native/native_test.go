package native

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The tools' patterns, written as their TypeScript sources and documentation
// state them, with JavaScript's \s and "." spelled out (Go's differ): the
// oracle the scanners are compared with.
const (
	jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`
	jsDot   = `[^\n\r\x{2028}\x{2029}]`
)

var (
	// OpenSpec 1.13: ^\s*(?:<!--\s*)?(?:[-*+]|\d{1,9}[.)])\s*\[([^\]]*)\](?!\()
	openSpecLine = regexp.MustCompile(`^` + jsSpace + `*(?:<!--` + jsSpace + `*)?(?:[-*+]|[0-9]{1,9}[.)])` + jsSpace + `*\[([^\]]*)\](?:$|[^(])`)
	openSpecDone = regexp.MustCompile(`^` + jsSpace + `*[xX]` + jsSpace + `*$`)
	// spec-workflow-mcp 2.2.7: ^(\s*)([-*])\s+\[([ x\-~])\]\s+(.+), then
	// ^(\d+(?:\.\d+)*)\s*\\?\.?\s+(.+) on the text ("X" read too).
	specWorkflowLine = regexp.MustCompile(`^` + jsSpace + `*[-*]` + jsSpace + `+\[([ xX\-~])\]` + jsSpace + `+(` + jsDot + `+)`)
	specWorkflowID   = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)*` + jsSpace + `*\\?\.?` + jsSpace + `+` + jsDot + `+`)
	// An agent following spec-kit's prompts:
	// ^\s*(?:(?:<!--|>)\s*)*(?:(?:[-*+]|\d{1,9}[.)])\s*)?\[([ xX])\]\s+\[?T\d
	specKitAgentLine = regexp.MustCompile(`^` + jsSpace + `*(?:(?:<!--|>)` + jsSpace + `*)*(?:(?:[-*+]|[0-9]{1,9}[.)])` + jsSpace + `*)?\[([ xX])\]` + jsSpace + `+\[?T[0-9]`)
)

type oracleBox struct {
	line  int
	inner string
	done  bool
}

func oracle(content []byte, specWorkflow bool) []oracleBox {
	var out []oracleBox
	for n, line := range strings.Split(string(content), "\n") {
		if specWorkflow {
			m := specWorkflowLine.FindStringSubmatch(line)
			if m == nil || !specWorkflowID.MatchString(m[2]) {
				continue
			}
			out = append(out, oracleBox{n, m[1], m[1] == "x" || m[1] == "X"})
			continue
		}
		if m := openSpecLine.FindStringSubmatch(line); m != nil {
			out = append(out, oracleBox{n, m[1], openSpecDone.MatchString(m[1])})
		}
	}
	return out
}

func read(content []byte, specWorkflow bool) []oracleBox {
	r := OpenSpec
	if specWorkflow {
		r = SpecWorkflow
	}
	var out []oracleBox
	for _, b := range r(content) {
		out = append(out, oracleBox{bytes.Count(content[:b.Open], []byte("\n")), string(b.Inner(content)), b.Done})
	}
	return out
}

// agentOracle is specKitAgentLine's reading of content.
func agentOracle(content []byte) []oracleBox {
	var out []oracleBox
	for n, line := range strings.Split(string(content), "\n") {
		if m := specKitAgentLine.FindStringSubmatch(line); m != nil {
			out = append(out, oracleBox{n, m[1], m[1] != " "})
		}
	}
	return out
}

func compare(t *testing.T, content []byte) {
	t.Helper()
	var agent []oracleBox
	for _, b := range SpecKitAgent(content) {
		agent = append(agent, oracleBox{bytes.Count(content[:b.Open], []byte("\n")), string(b.Inner(content)), b.Done})
	}
	if want := agentOracle(content); len(agent) != len(want) || (len(want) > 0 && !slices.Equal(agent, want)) {
		t.Fatalf("spec-kit agent: %q: read %v, the pattern %v", content, agent, want)
	}
	for _, sw := range []bool{false, true} {
		got, want := read(content, sw), oracle(content, sw)
		if len(got) != len(want) {
			t.Fatalf("spec-workflow %v: %q: read %v, the pattern %v", sw, content, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("spec-workflow %v: %q: box %d read %v, the pattern %v", sw, content, i, got[i], want[i])
			}
		}
	}
}

var seeds = []string{
	"- [ ] 1.1 open\n- [x] 1.2 done\n- [X] 1.3 done\n",
	"- [ x] 1.1 padded\n- [x ] 1.2 padded\n- [  ] 1.3 wide\n- [] 1.4 empty\n- [~] 1.5 deferred\n",
	"```\n- [x] 1.3 fenced\n```\n<!-- - [x] 1.2 commented -->\n    - [x] 1.4 indented\n",
	"+ [x] 1.1 plus\n1) [x] 1.2 paren\n1. [x] 1.3 dot\n1234567890. [x] too long\n-[x] 1.5 tight\n",
	"- [A](https://example.com)\n- [Some doc](./doc.md)\n- [x](url)\n- [x] (P) 1.1\n",
	"\u00a0- [\u3000x] 1.1 wide spaces\n\r- [x] 1.2 after a carriage return\r\n",
	"- [-] 1. in progress\n- [~] 2. blocked\n* [x] 3. star\n- [x] no number\n- [x] 4\\. escaped\n",
	"- [x] 1.\n- [x] 1 \n- [x] 1  \n- [x]\t1\t\tx\r\n-\u3000[x]\u30001.\u3000タスク\n",
	"- [x] 1.2.3. deep\n- [x] 1..2 x\n- [x] 1.x y\n- [x] 1\\x y\n",
	"- [ ] T001 a\n  [x] T002 lazy\n[X] T003 para\n<!-- - [x] T004 -->\n```\n- [x] T005\n```\n> [x] [T006] q\n[x]T007\n[x] t008\n",
}

func TestReadersAgainstPatterns(t *testing.T) {
	for _, s := range seeds {
		compare(t, []byte(s))
	}
}

func TestReaders(t *testing.T) {
	for _, tt := range []struct {
		name, line     string
		openSpec, sw   bool // read as a box at all
		doneOS, doneSW bool
	}{
		{"plain open", "- [ ] 1.1 x", true, true, false, false},
		{"plain done", "- [x] 1.1 x", true, true, true, true},
		{"upper done", "- [X] 1.1 x", true, true, true, true},
		{"padded left", "- [ x] 1.1 x", true, false, true, false},
		{"padded right", "- [x ] 1.1 x", true, false, true, false},
		{"plus", "+ [x] 1.1 x", true, false, true, false},
		{"ordered paren", "1) [x] 1.1 x", true, false, true, false},
		{"tight", "-[x] 1.1 x", true, false, true, false},
		{"link bullet", "- [A](https://example.com)", false, false, false, false},
		{"one-line comment", "<!-- - [x] 1.2 x -->", true, false, true, false},
		{"in progress", "- [-] 1.1 x", true, true, false, false},
		{"blocked", "- [~] 1.1 x", true, true, false, false},
		{"no number", "- [x] Do it", true, false, true, false},
		{"escaped number", `- [x] 1\. Do it`, true, true, true, true},
		{"ideographic space", "-\u3000[x]\u30001.\u3000タスク", true, true, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os, sw := OpenSpec([]byte(tt.line)), SpecWorkflow([]byte(tt.line))
			if (len(os) == 1) != tt.openSpec || (len(sw) == 1) != tt.sw {
				t.Fatalf("OpenSpec %v, SpecWorkflow %v", os, sw)
			}
			if tt.openSpec && os[0].Done != tt.doneOS || tt.sw && sw[0].Done != tt.doneSW {
				t.Fatalf("OpenSpec %v, SpecWorkflow %v: done %v %v", os, sw, tt.doneOS, tt.doneSW)
			}
		})
	}
}

// FuzzReaders holds the scanners to the tools' patterns.
func FuzzReaders(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // tasks files are UTF-8 text before they are read
		}
		compare(t, []byte(s))
	})
}
