package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The command line refuses what it does not know, at every level, before any
// command runs: an unknown subcommand, help topic or flag is a usage error
// (exit 2) naming the nearest known names, and nothing is read or written. A
// command that only groups subcommands (taskproof, attest, notes, policy,
// completion) would otherwise print its help and exit 0 for a mistyped
// subcommand, and a CI step running `taskproof notes pus` would push nothing
// and pass.

// unknownError is a usage error about a name the command line does not know:
// what was typed (quoted by the message) and the known names nearest to it.
// Error is one line; run prints the suggestions below it, one a line.
type unknownError struct {
	msg         string
	suggestions []string
}

func (e *unknownError) Error() string { return e.msg }

// Suggestions are the known names nearest to what was typed, as they are
// written on the command line.
func (e *unknownError) Suggestions() []string { return e.suggestions }

// suggestionsOf returns the suggestions an error in err's chain carries.
func suggestionsOf(err error) []string {
	var s interface{ Suggestions() []string }
	if errors.As(err, &s) {
		return s.Suggestions()
	}
	return nil
}

// strictCommands makes root and every command under it refuse what they do
// not know. It runs once, after the whole tree is built (with cobra's help and
// completion commands in it), so that it covers every command whatever file
// adds it:
//   - a command that has subcommands takes no arguments of its own: an
//     argument is an unknown subcommand (exit 2, with the nearest names);
//     without arguments it prints its help, as before;
//   - an unknown flag names the command's nearest flags ([cmdutil.FlagError]);
//   - `taskproof help TOPIC` refuses a topic it does not know.
func strictCommands(root *cobra.Command) {
	root.SetHelpCommand(newHelpCmd())
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.SetFlagErrorFunc(flagErrorFunc)
	// A group's usage line is "CMD [command]" alone: RunE below only shows
	// its help, so "CMD [flags]" would promise something it does not do.
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(), "{{if .Runnable}}", "{{if and .Runnable (not .HasAvailableSubCommands)}}", 1))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() {
			c.Args = unknownSubcommand
			if c.Run == nil && c.RunE == nil {
				c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// unknownSubcommand is the Args of a command that has subcommands: cobra
// found no subcommand of that name, so any argument is an unknown one.
func unknownSubcommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return &unknownError{
		msg:         fmt.Sprintf("unknown command %q for %q (see '%s --help')", args[0], c.CommandPath(), c.CommandPath()),
		suggestions: commandSuggestions(c, args[0]),
	}
}

// flagErrorFunc is the root's SetFlagErrorFunc: every flag cobra cannot
// parse is a [cmdutil.FlagError] (exit 2) pointing at the command's help, and an
// unknown long flag names the command's nearest flags.
func flagErrorFunc(c *cobra.Command, err error) error {
	// A command that has subcommands met an argument before the flag: cobra
	// found no subcommand of that name, so the flag is not the mistake (it
	// belongs to the command meant): `taskproof verfy --branch` is an
	// unknown command, as `taskproof verfy` is.
	if pos := c.Flags().Args(); c.HasSubCommands() && len(pos) > 0 {
		return &cmdutil.FlagError{Err: unknownSubcommand(c, pos)}
	}
	err = fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "" {
		if s := flagSuggestions(c, ne.GetSpecifiedName()); len(s) > 0 {
			err = &unknownError{msg: err.Error(), suggestions: s}
		}
	}
	return &cmdutil.FlagError{Err: err}
}

// flagSuggestions are the long flags of c (its own and those it inherits,
// but hidden ones) nearest to typed ([nearest]).
func flagSuggestions(c *cobra.Command, typed string) []string {
	var names []string
	visit := func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			names = append(names, f.Name)
		}
	}
	c.LocalFlags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	out := nearest(typed, names)
	for i := range out {
		out[i] = "--" + out[i]
	}
	return out
}

// commandSuggestions are the visible subcommands of c (help included)
// nearest to typed ([nearest]), and those that list typed in their SuggestFor.
func commandSuggestions(c *cobra.Command, typed string) []string {
	var names, out []string
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() && (sub.Hidden || sub.Name() != "help") {
			continue
		}
		names = append(names, sub.Name())
		if slices.ContainsFunc(sub.SuggestFor, func(s string) bool { return strings.EqualFold(s, typed) }) {
			out = append(out, sub.Name())
		}
	}
	for _, n := range nearest(typed, names) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// nearest are the names typed is likely a typo of, in the order given: those
// typed is a prefix of, and those the fewest edits away (at most two, case
// ignored), so that "bsh" suggests bash, not also fish and zsh.
func nearest(typed string, names []string) []string {
	best := 3
	for _, n := range names {
		best = min(best, editDistance(strings.ToLower(typed), strings.ToLower(n)))
	}
	var out []string
	for _, n := range names {
		prefix := typed != "" && strings.HasPrefix(strings.ToLower(n), strings.ToLower(typed))
		if prefix || best <= 2 && editDistance(strings.ToLower(typed), strings.ToLower(n)) == best {
			out = append(out, n)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes (flag
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// newHelpCmd is `taskproof help [command]`: cobra's, but a topic it does not
// know is an unknown command (exit 2, with the nearest names) instead of the
// root's usage and exit 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help provides help for any command: taskproof help [path to command].",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range target.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil {
				return &cmdutil.FlagError{Err: err}
			}
			if len(rest) > 0 {
				return &cmdutil.FlagError{Err: &unknownError{
					msg:         fmt.Sprintf("unknown help topic %q for %q (see '%s --help')", strings.Join(args, " "), target.CommandPath(), target.CommandPath()),
					suggestions: commandSuggestions(target, rest[0]),
				}}
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		},
	}
}

// typedArgs wraps the Args validator of c and of its subcommands so that
// their errors are *cmdutil.FlagError.
func typedArgs(c *cobra.Command) {
	if args := c.Args; args != nil {
		c.Args = func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				return &cmdutil.FlagError{Err: err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		typedArgs(sub)
	}
}
