package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/taskproof/taskproof/cmd/taskproof/cli"
	"github.com/taskproof/taskproof/internal/testenv"
)

// TestUnknownEverywhere walks every command of the tree newRootCmd builds
// (cobra's help and completion commands included) and runs the real binary
// with a one-letter typo of each subcommand's name, a one-letter typo of one
// of each command's flags and a flag no command has: each is exit 2, names
// what was typed, suggests the name meant (a hidden command excepted: it is
// never suggested), writes nothing on stdout, changes no file of the
// repository (refs, notes, objects, config, work tree), and shows no escape
// of taskproof's own line breaks.
func TestUnknownEverywhere(t *testing.T) {
	r := newCLIRepo(t)
	testenv.Git(t, r.dir, "notes", "--ref", "refs/notes/speccoder", "add", "-m", "a note", r.c1)
	testenv.Git(t, r.dir, "remote", "add", "origin", t.TempDir())
	before := snapshot(t, r.dir)

	check := func(args []string, suggestion string) {
		t.Helper()
		stdout, stderr, code := r.taskproof(t, nil, args...)
		if code != ExitUsage {
			t.Errorf("taskproof %q: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, ExitUsage, stdout, stderr)
		}
		if stdout != "" {
			t.Errorf("taskproof %q wrote on stdout: %q", args, stdout)
		}
		if strings.Contains(stderr, `\n`) || strings.Contains(stderr, `\t`) {
			t.Errorf("taskproof %q: stderr escapes taskproof's own text: %q", args, stderr)
		}
		if suggestion != "" && (!strings.Contains(stderr, "Did you mean this?\n") || !strings.Contains(stderr, "\n\t"+suggestion+"\n")) {
			t.Errorf("taskproof %q: stderr does not suggest %q: %q", args, suggestion, stderr)
		}
		if after := snapshot(t, r.dir); !maps.Equal(before, after) {
			t.Fatalf("taskproof %q changed the repository: %v", args, diffSnapshots(before, after))
		}
	}

	commands, flags := 0, 0
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if strings.HasPrefix(sub.Name(), "__") {
				continue // cobra's own completion requests, never typed
			}
			want := sub.Name()
			if sub.Hidden {
				want = "" // hidden commands are never suggested
			}
			check(append(slices.Clone(path), typo(sub.Name(), siblingNames(c))), want)
			commands++
			walk(sub, append(slices.Clone(path), sub.Name()))
		}
		if f := someFlag(c); f != "" {
			check(append(slices.Clone(path), "--"+typo(f, flagNames(c))), "--"+f)
			flags++
		}
		check(append(slices.Clone(path), "--no-such-flag-anywhere"), "")
	}
	walk(cli.New(), nil)
	if commands < 15 || flags < 15 {
		t.Fatalf("walked %d commands and %d flags: the tree is not the one newRootCmd builds", commands, flags)
	}
}

// typo returns name with one letter replaced, so that it is none of taken.
func typo(name string, taken []string) string {
	for i := len(name) / 2; i < len(name)+len(name)/2; i++ {
		j := i % len(name)
		if name[j] < 'a' || name[j] > 'z' {
			continue
		}
		for _, r := range "qxzjkv" {
			if byte(r) == name[j] {
				continue
			}
			s := name[:j] + string(r) + name[j+1:]
			if !slices.Contains(taken, s) {
				return s
			}
		}
	}
	panic("no typo of " + name)
}

func siblingNames(c *cobra.Command) []string {
	var out []string
	for _, s := range c.Commands() {
		out = append(append(out, s.Name()), s.Aliases...)
	}
	return out
}

func flagNames(c *cobra.Command) []string {
	var out []string
	c.Flags().VisitAll(func(f *pflag.Flag) { out = append(out, f.Name) })
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) { out = append(out, f.Name) })
	return out
}

// someFlag is a visible long flag of c of at least four letters: its own
// first, else one it inherits.
func someFlag(c *cobra.Command) string {
	var own, inherited string
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if own == "" && !f.Hidden && len(f.Name) >= 4 {
			own = f.Name
		}
	})
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if inherited == "" && !f.Hidden && len(f.Name) >= 4 {
			inherited = f.Name
		}
	})
	if own != "" {
		return own
	}
	return inherited
}

// snapshot is every file under dir (the .git directory included) by path,
// with its mode and content hash.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		v := info.Mode().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			v += " " + hex.EncodeToString(sum[:])
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "removed "+k)
		} else if w != v {
			out = append(out, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "added "+k)
		}
	}
	slices.Sort(out)
	return out
}

// TestFlagValueNames: every flag's --help line reads right. pflag takes the
// first back-quoted word of a flag's usage as its value name, so a
// back-quoted command in a description became a fake one (`--force git notes
// add -f`); a flag that takes no value shows none, and every other flag
// names its value (FILE, REV:PATH, a list of choices), never only its Go
// type.
func TestFlagValueNames(t *testing.T) {
	types := []string{"string", "strings", "stringArray", "int", "float", "float64", "duration", "bool"}
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			n++
			name, _ := pflag.UnquoteUsage(f)
			switch {
			case f.NoOptDefVal != "":
				if name != "" {
					t.Errorf("%s --%s takes no value but --help shows %q", c.CommandPath(), f.Name, name)
				}
			case name == "" || strings.ContainsAny(name, " \t") || slices.Contains(types, name):
				t.Errorf("%s --%s: --help shows value name %q: back-quote the value's name in its usage (%q)", c.CommandPath(), f.Name, name, f.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cli.New())
	if n < 50 {
		t.Fatalf("checked %d flags", n)
	}
}
