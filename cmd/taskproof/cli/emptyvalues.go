package cli

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// pathValues are the value names (a flag's `NAME` in its help) of the flags
// that name a file, a directory, a key or a file in git, a revision, a ref,
// a remote or a time: an empty value names none of them. It is a typo or an
// unset variable (`--json-report "$REPORT"`, `--base "$BASE"`), and taken as
// the flag left out it would change what is read, written or judged without
// a word (no --allowed-signers is git's gpg.ssh.allowedSignersFile, no --base
// the default base), so it is refused as the flag is parsed (exit 2), as
// cosign and gh refuse an empty path.
var pathValues = []string{"FILE", "FILES", "DIR", "KEY", "REV:PATH", "REV", "REF", "REMOTE", "NAME", "TIME", "DATE"}

// emptyAllowed are the path flags an empty value is meaningful for: --repo
// (-C) follows `git -C ""`, which leaves the directory unchanged.
var emptyAllowed = []string{"repo"}

// refuseEmptyPaths makes every flag of root and of the commands under it
// whose value is one of [pathValues] refuse an empty value, and an empty
// item in a comma-separated list of them.
func refuseEmptyPaths(root *cobra.Command) {
	refuse := func(fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if _, done := f.Value.(*nonEmpty); done || !slices.Contains(pathValues, name) || slices.Contains(emptyAllowed, f.Name) {
				return
			}
			list := strings.HasSuffix(f.Value.Type(), "Slice") || strings.HasSuffix(f.Value.Type(), "Array")
			f.Value = &nonEmpty{Value: f.Value, name: name, list: f.Value.Type() == "stringSlice"}
			if list && f.DefValue == "[]" {
				// pflag leaves an empty list's default out of the help by
				// the value's own type, which the wrapper hides.
				f.DefValue = ""
			}
		})
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		refuse(c.PersistentFlags())
		refuse(c.Flags())
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// nonEmpty is a flag's value that refuses to be set to "" (or, for a
// comma-separated list, to hold an empty item); the rest is the value's own.
type nonEmpty struct {
	pflag.Value
	name string // the value's name in help: FILE, DIR, …
	list bool   // a comma-separated list (pflag's stringSlice)
}

func (v *nonEmpty) Set(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty %s: give one, or leave the flag out", v.name)
	case v.list && slices.Contains(listItems(s), ""):
		return fmt.Errorf("an empty %s in the list: give one in each place", v.name)
	}
	return v.Value.Set(s)
}

// listItems are the items of a comma-separated list value as pflag reads
// it (one CSV record: "a,b" quoted is one item), nil when it is no such
// record (pflag's own Set then says why).
func listItems(s string) []string {
	items, err := csv.NewReader(strings.NewReader(s)).Read()
	if err != nil {
		return nil
	}
	return items
}
