package gfm

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// htmlBlock029Cases are tasks files where cmark-gfm (GitHub's renderer,
// CommonMark 0.29) and goldmark start or end HTML blocks differently, read
// blanks differently, or read the lines after a list item that starts empty
// differently, with the tasks cmark-gfm 0.29.0.gfm.6 (`cmark-gfm -e tasklist`)
// renders checked.
var htmlBlock029Cases = []struct {
	name, md string
	checked  []string
}{
	{"lazy br after an item", "# T\n\n- [x] T001 a\n<br>\n~~~\n\n- [x] T002 b\n- [x] T003 c\n", []string{"T001", "T002", "T003"}},
	{"lazy span then comment", "- [x] T001 a\n<span>\n<!--\n\n- [x] T002 b\n", []string{"T001", "T002"}},
	{"lazy closing tag after a quote", "> - [x] T001 a\n</x>\n```\n\n- [x] T002 b\n", []string{"T002"}},
	{"closing pre", "# T\n\n</pre>\n~~~\n\n- [x] T002 b\n", []string{"T002"}},
	{"closing script", "</script>\n<!--\n\n- [x] T002 b\n", []string{"T002"}},
	{"closing style, upper case", "</STYLE>\n~~~\n\n- [x] T002 b\n", []string{"T002"}},
	{"self-closing pre", "<pre/>\n~~~\n\n- [x] T002 b\n", []string{"T002"}},
	{"pre block then a stray closing pre", "<pre>x</pre>\n\n</pre>\n~~~\n\n- [x] T002 b\n", []string{"T002"}},
	{"lower-case declaration", "<!x\n- [x] T002 b\n>\n", []string{"T002"}},
	{"textarea (no block in 0.29)", "# Tasks\n\n- [x] T001 a\n<textarea>\n\n- [x] T002 b\n", []string{"T001", "T002"}},
	{"search after a paragraph (no block in 0.29)", "p\n<search>\n- [x] T002 b\n", []string{"T002"}},
	{"tag continuing a paragraph", "para\n<br>\n~~~\n\n- [x] T002 b\n", nil},
	// Blanks (withSpacedIndents), not HTML blocks.
	{"vertical tab and form feed before the box", "- [ ] T001 a\n- \v[x] T002 b\n- \f[x] T003 c\n", []string{"T002", "T003"}},
	{"two spaces and a tab under an item", "- [ ] T001 a\n  \t- [x] T002 b\n", []string{"T002"}},
	{"three spaces and a tab under an item", "- [x] T001 a\n   \t- [x] T002 b\n   \t1. [x] T003 c\n", []string{"T001", "T002", "T003"}},
	{"tab after a nested item's marker", "+\n    2)\t[x] T005 a\n        *   [x] T007 b\n", []string{"T005", "T007"}},
	// Lazy lines in a block quote re-read the item's box (lazyChecks).
	{"lazy line in a quote checks the item", "- [ ] T001 a\n  > a note\n      - [x] see above\n", []string{"T001"}},
	{"lazy uppercase box in a nested quote", "- [ ] T001 a\n  > > deep\n        * [X] yes\n", []string{"T001"}},
	{"digits after a blank line check the item", "- [ ] T001 a\n\n  2024 [x] note\n", []string{"T001"}},
	{"lazy line in a quote less indented than the item's content", "- [ ] T001 a\n  > q\n2024 [x] x\n- [ ] T002 b\n  > q\n  2024 [x] x\n", []string{"T002"}},
	{"digits underlined as a heading", "- [x] T001 a\n- [ ] T002 b\n\n  2024 [x] Release\n  =======\n", []string{"T001", "T002"}},
	{"setext underline behind a tab, then digits", "- [x] T001 a\n- [ ] T002 b\n  \t-\n\t2024 [x] x\n", []string{"T001", "T002"}},
	{"digits after a fence check the item", "- [ ] T001 a\n  ```\n  x\n  ```\n  1x [x] note\n", []string{"T001"}},
	// Blocks of GitHub's footnotes and tables extensions inside the item.
	{"digits continuing a footnote definition", "- [x] T001 a\n- [ ] T002 b\n  [^1]: n\n  2024 [x] x\n", []string{"T001", "T002"}},
	{"uppercase box continuing a footnote definition of an ordered item", "1. [ ] T001 a\n   [^a]: n\n   2024 [X] x\n", []string{"T001"}},
	{"digits under an empty footnote definition, a tab after the marker", "* [x] T001 a\n  *\t[ ] T002 b\n    [^a]:\n      2024 [x] x\n", []string{"T001", "T002"}},
	{"digits indented into a footnote definition", "- [ ] T001 a\n  [^1]: n\n      2024 [x] x\n", nil},
	{"code after a table, then digits", "- [x] T001 a\n- [ ] T002 b\n  |---|\n      |---|\n  2024 [x] x\n", []string{"T001", "T002"}},
	{"code after a table of two columns, then digits", "* [ ] T001 a\n      |---|---|\n  |---|---|\n       \t2024 [x] x\n  \t2024 [x] x\n", []string{"T001"}},
	{"a table row that looks like a task", "- [ ] T001 a\n  |---|\n  2024 [x] x\n", nil},
	{"an item numbered from 10 under a table", "- [x] T001 a\n  text\n  |---|\n  10) [x] T002 b\n", []string{"T001", "T002"}},
	{"an item numbered from 2 after a table's code", "- [x] T001 a\n  |---|\n      code\n  2. [x] T002 b\n", []string{"T001", "T002"}},
	// A link reference definition opens a paragraph that goldmark splits off.
	{"digits after a link reference definition in a quote", "1. [ ] T001 a\n   > [a]: /u\n   1x [x] x\n", []string{"T001"}},
	{"digits after link reference definitions, the second lazy", "1. [ ] T001 a\n   > [a]: /u\n   [b]: /v\n   1x [x] x\n", []string{"T001"}},
	{"digits after a link reference definition in a footnote definition", "- [ ] T001 a\n  [^a]:\n      [a]: /u\n  12 [X] x\n", []string{"T001"}},
	{"digits after a link reference definition in a quote's list", "- [ ] T001 a\n  > - [a]: /u\n  1x [x] x\n", []string{"T001"}},
	{"digits continuing a link reference definition's paragraph", "- [ ] T001 a\n\n  [a]: /u\n  24 [x] x\n", nil},
	{"code in a paragraph without a table", "- [ ] T001 a\n  text\n      code\n  2024 [x] x\n", nil},
	// Items that start empty (emptyItemListParser), not HTML blocks.
	{"empty item, then a wide item of another kind", "-\n  +   [ ] T013 a\n    + [x] T016 b\n", []string{"T016"}},
	{"empty bullet item, then an ordered one", "*\n  1.   [ ] T013 a\n     2. [x] T016 b\n", []string{"T016"}},
	{"blank line after an empty item in an item", "1)\n   -\n\n      * [x] T002 b\n", []string{"T002"}},
	{"blank line indented to the content column", "- \n  \n \t+ [x] T003 a\n  + [x] T004 b\n", []string{"T003", "T004"}},
	{"blank line ends an empty item, a sibling follows", "-\n\n  - [x] T001 a\n", []string{"T001"}},
	{"blank line ends an empty item, text follows", "-\n\n  foo\n- [x] T002 b\n", []string{"T002"}},
	{"blank line ends an empty item in an item", "1.\n   *\n\n   * [x] T002 b\n", []string{"T002"}},
}

// TestHTMLBlocks029: every task cmark-gfm renders checked in
// htmlBlock29Cases is a ticked task (more may be: the readings are unioned).
func TestHTMLBlocks029(t *testing.T) {
	for _, tt := range htmlBlock029Cases {
		got := tickedIDs(t, tt.md)
		for _, id := range tt.checked {
			if !slices.Contains(got, id) {
				t.Errorf("%s: ticked %v, want %s among them (GitHub renders it checked)\n%q", tt.name, got, id, tt.md)
			}
		}
	}
}

// TestHTMLBlocks029AgainstCmarkGFM runs cmark-gfm, where it is installed, on
// the same files: the expectations above are its readings.
func TestHTMLBlocks029AgainstCmarkGFM(t *testing.T) {
	bin, err := exec.LookPath("cmark-gfm")
	if err != nil {
		t.Skip("cmark-gfm not installed")
	}
	re := regexp.MustCompile(`checked="" disabled="" />\s*(?:<p>|<h[1-6]>|<table>\s*<thead>\s*<tr>\s*<th>)?(?:\] )?(T[0-9]+)`)
	for _, tt := range htmlBlock029Cases {
		cmd := exec.Command(bin, githubExtensions...)
		cmd.Stdin = strings.NewReader(tt.md)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, m := range re.FindAllStringSubmatch(string(out), -1) {
			want = append(want, m[1])
		}
		if !slices.Equal(want, tt.checked) {
			t.Errorf("%s: cmark-gfm checks %v, the case says %v", tt.name, want, tt.checked)
		}
	}
}

// githubExtensions are cmark-gfm's options for GitHub's reading of Markdown:
// its extensions, in the order GitHub registers them.
var githubExtensions = []string{"-e", "table", "-e", "strikethrough", "-e", "autolink", "-e", "tagfilter", "-e", "tasklist", "-e", "footnotes"}

func tickedIDs(t *testing.T, md string) []string {
	t.Helper()
	tasks, err := tasksOf([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range tasks {
		if tk.Ticked() {
			ids = append(ids, tk.ID)
		}
	}
	return ids
}

// TestIsTagLine: CommonMark 0.29's type-7 start lines.
func TestIsTagLine(t *testing.T) {
	for s, want := range map[string]bool{
		"<br>\n": true, "<br/>": true, "</x>  \n": true, `<a href="x" b='y' c=z d>` + "\n": true, "<x-y:z>\n": false,
		"<a b>c\n": false, "</x y>\n": false, "<1a>\n": false, "<a\n": false, "<a =b>\n": false, "<span >\t\f\n": true,
		"<a b=>\n": false, `<a b="c>` + "\n": false, "</pre>\r\n": true,
	} {
		if got := isTagLine([]byte(s)); got != want {
			t.Errorf("isTagLine(%q) = %v, want %v", s, got, want)
		}
	}
}
