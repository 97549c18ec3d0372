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
