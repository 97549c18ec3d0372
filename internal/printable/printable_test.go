package printable

import "testing"

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"specs/001-x/tasks.md", "specs/001-x/tasks.md"},
		{"é ✓ 日本", "é ✓ 日本"},
		{"a\rb\nc\td", `a\rb\nc\td`},
		{"\x1b[32m✓\x1b[0m", `\x1b[32m✓\x1b[0m`},
		{"nul\x00 bell\x07 del\x7f", `nul\x00 bell\x07 del\x7f`},
		{"c1 \u009b31m nel \u0085", `c1 \u009b31m nel \u0085`},
		{"bidi \u202eevil\u202c \u2066x\u2069 \u200f", `bidi \u202eevil\u202c \u2066x\u2069 \u200f`},
		{"sep \u2028\u2029", `sep \u2028\u2029`},
		{"bad \xff\xc3 utf8", `bad \xff\xc3 utf8`},
		{"kept \ufffd", "kept \ufffd"},
		{`back\slash`, `back\slash`},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("001-x\r\x1b[32m✓ … evidenced")
	f.Add("\xff\u202e\u0085")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range String(s) {
			if escaped(r) || r == 0xfffd && !containsRune(s, 0xfffd) {
				t.Fatalf("String(%q) holds %U", s, r)
			}
		}
	})
}

func containsRune(s string, r rune) bool {
	for _, x := range s {
		if x == r {
			return true
		}
	}
	return false
}
