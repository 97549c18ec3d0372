package testreport

import "testing"

// TestChangeIntroduces: a change introduces the identifiers its added lines
// of non-test files name, and the path elements of the files it adds.
func TestChangeIntroduces(t *testing.T) {
	ch := NewChange()
	ch.AddFile("greet.go", []byte("package greet\n\nfunc Hello() {}\n"), []byte("package greet\n\nfunc Hello() {}\n\nfunc Greet() {}\n"))
	ch.AddFile("names/names.go", nil, []byte("package names\n"))
	ch.AddFile("src/greet.ts", nil, []byte("export const x = 1\n"))
	ch.AddFile("greet_test.go", nil, []byte("func TestTypo() { Helo() }\n"))
	ch.AddFile("app/util.py", nil, []byte("def shout(): pass\n"))
	for _, tc := range []struct {
		s    Symbol
		want bool
	}{
		{Symbol{Name: "Greet"}, true},
		{Symbol{Name: "Hello"}, false}, // on a line the file had already
		{Symbol{Name: "Helo"}, false},  // a test file introduces nothing
		{Symbol{Name: "example.com/greet/names", Path: true}, true},
		{Symbol{Name: "./greet", Path: true}, true},
		{Symbol{Name: "./greet.js", Path: true}, true},
		{Symbol{Name: "app.util", Path: true}, true},
		{Symbol{Name: "app.other", Path: true}, false},
		{Symbol{Name: "shout"}, true},
		{Symbol{}, true}, // a symbol without a name cannot be checked
	} {
		if got := ch.Introduces(tc.s); got != tc.want {
			t.Errorf("%+v: introduced %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestSymbolsIn(t *testing.T) {
	for _, tc := range []struct{ text, name string }{
		{"./a_test.go:3:2: undefined: Greet", "Greet"},
		{"./a_test.go:3:2: undefined: names.Default", "Default"},
		{"x.Y undefined (type T has no field or method Y)", "Y"},
		{"unknown field Name in struct literal of type T", "Name"},
		{"a_test.go:6:2: no required module provides package example.com/m/names; to add it:", "example.com/m/names"},
		{"E   ImportError: cannot import name 'greet' from 'greet' (/tmp/greet.py)", "greet"},
		{"TypeError: (0 , _greet.greet) is not a function", "greet"},
		{"TypeError: greet.shout is not a function", "shout"},
		{"error[E0599]: no method named `shout` found for struct `Greeter` in the current scope", "shout"},
		{"error[E0432]: unresolved import `greet::names`", "names"},
		{"error TS2339: Property 'punct' does not exist on type 'Greeter'.", "punct"},
	} {
		syms := SymbolsIn(tc.text)
		if len(syms) == 0 || syms[0].Name != tc.name {
			t.Errorf("%q: %+v, want %s", tc.text, syms, tc.name)
		}
	}
	if syms := SymbolsIn("./a_test.go:3:2: too many arguments in call to Hello"); len(syms) != 0 {
		t.Errorf("a wrong argument count names %+v", syms)
	}
}

// TestChangeIntroducesByLanguage: only the source files of the language
// whose toolchain names a symbol introduce it — not the tasks file's tick
// line, a changelog, docs or another language's files — and a package also
// by its language's dependency manifests.
func TestChangeIntroducesByLanguage(t *testing.T) {
	ch := NewChange()
	ch.AddFile("specs/001-x/tasks.md", []byte("- [ ] T004 Fix the Helo call\n"), []byte("- [x] T004 Fix the Helo call\n"))
	ch.AddFile("CHANGELOG.md", nil, []byte("- fixed the Helo typo; added Shout\n"))
	ch.AddFile("docs/api.txt", nil, []byte("Greet Shout Helo\n"))
	ch.AddFile("tools/gen.py", nil, []byte("def Shout(): pass\n"))
	ch.AddFile("go.mod", []byte("module m\n"), []byte("module m\n\nrequire github.com/acme/names v1.0.0\n"))
	ch.AddFile("Cargo.toml", []byte("[dependencies]\n"), []byte("[dependencies]\nserde = \"1\"\n"))
	ch.AddFile("src/data.json", nil, []byte("{}\n"))
	ch.AddFile("greet/shout.go", nil, []byte("package greet\n\nfunc (Greeter) Wave() {}\n"))
	for _, tc := range []struct {
		s    Symbol
		want bool
	}{
		{Symbol{Name: "Helo", Lang: LangGo}, false},  // the tasks file and the changelog name it
		{Symbol{Name: "Shout", Lang: LangGo}, false}, // only a Python file and docs name it
		{Symbol{Name: "Shout", Lang: LangPython}, true},
		{Symbol{Name: "Wave", Lang: LangGo}, true},
		{Symbol{Name: "names", Lang: LangGo}, false}, // a manifest introduces no identifier
		{Symbol{Name: "github.com/acme/names", Path: true, Lang: LangGo}, true},
		{Symbol{Name: "serde", Path: true, Lang: LangRust}, true},
		{Symbol{Name: "serde", Path: true, Lang: LangGo}, false},
		{Symbol{Name: "./data.json", Path: true, Lang: LangJS}, true},
		{Symbol{Name: "./data", Path: true, Lang: LangJS}, false},
		{Symbol{Name: "example.com/m/greet", Path: true, Lang: LangGo}, true},
		{Symbol{Name: "greet", Path: true, Lang: LangPython}, false},
	} {
		if got := ch.Introduces(tc.s); got != tc.want {
			t.Errorf("%+v: introduced %v, want %v", tc.s, got, tc.want)
		}
	}
	for _, tc := range []struct {
		text, name string
		lang       Lang
	}{
		{"greet/new_test.go:6:18: cannot use Greeter{} (value of struct type Greeter) as Shouter value in variable declaration: Greeter does not implement Shouter (missing method Shout)", "Shout", LangGo},
		{"error TS2741: Property 'shout' is missing in type 'Greeter' but required in type 'Shouter'.", "shout", LangJS},
		{"error TS2420: Class 'Greeter' incorrectly implements interface 'Shouter'.\n  Property 'shout' is missing in type 'Greeter' but required in type 'Shouter'.", "shout", LangJS},
	} {
		syms := SymbolsIn(tc.text)
		if len(syms) == 0 || syms[0].Name != tc.name || syms[0].Lang != tc.lang {
			t.Errorf("%q: %+v, want %s (%s)", tc.text, syms, tc.name, tc.lang)
		}
	}
	// A method with the wrong receiver is no missing method.
	if syms := SymbolsIn("Greeter does not implement Shouter (method Shout has pointer receiver)"); len(syms) != 0 {
		t.Errorf("pointer receiver names %+v", syms)
	}
}
