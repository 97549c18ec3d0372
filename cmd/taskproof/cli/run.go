package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"
	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/taskproof/taskproof/internal/panics"
	"github.com/taskproof/taskproof/internal/printable"
)

// Main executes the command line args with ctx and returns the process exit
// code (docs/cli/exit-codes.md), having written any error on stderr. A
// panic, on the main goroutine or in any goroutine taskproof starts, is
// taskproof's own bug: exit 5, "internal error" and the stack on stderr.
func Main(ctx context.Context, args []string) int {
	root := New()
	root.SetArgs(args)
	var cmd *cobra.Command
	err := internalError(panics.Call(func() error {
		var err error
		cmd, err = root.ExecuteContextC(ctx)
		return err
	}))
	if err == nil {
		return cmdutil.ExitOK
	}
	writeFlagErrorResult(cmd, args, err)
	code := cmdutil.ExitCode(err)
	if !cmdutil.IsSilent(err) {
		fmt.Fprintf(os.Stderr, "taskproof: %s\n", cmdutil.MessageText(err.Error()))
		if s := suggestionsOf(err); len(s) > 0 {
			fmt.Fprintf(os.Stderr, "\nDid you mean this?\n")
			for _, name := range s {
				fmt.Fprintf(os.Stderr, "\t%s\n", printable.String(name))
			}
		}
	}
	var pe *panics.Error
	if errors.As(err, &pe) {
		fmt.Fprintf(os.Stderr, "taskproof: this is a bug in taskproof; the stack where it panicked:\n%s", pe.Stack)
	}
	return code
}

// internalError is err, or the first panic recovered during the command when
// there was one: whatever the code between made of it (wrapped into another
// kind of error, read as a finding, or nothing), the result is not to be
// trusted.
func internalError(err error) error {
	pe := panics.Recovered()
	if pe == nil || errors.As(err, new(*panics.Error)) {
		return err
	}
	return pe
}

// The commands whose machine --format has an error result
// (writeErrorResult). verify writes its own run's errors; Main writes the
// usage errors found before a command ran, and audit's and ticks' other
// usage errors (they come before any output).
var (
	errorResultCommands = []string{"taskproof verify", "taskproof audit", "taskproof ticks"}
	usageResultCommands = []string{"taskproof audit", "taskproof ticks"}
)

// writeFlagErrorResult writes, for a usage error cobra or a flag check found
// before cmd ran ([cmdutil.FlagError]: a flag it cannot parse, both
// spellings of a switch, …), the result its machine --format writes for any
// other usage error, and verify's --json-report file, so that a CI step
// reading the output sees an error rather than nothing. cobra stops parsing
// at the bad flag, so a --format or --json-report given after it is read
// from the raw args, the same in either order.
func writeFlagErrorResult(cmd *cobra.Command, args []string, err error) {
	if cmd == nil || !slices.Contains(errorResultCommands, cmd.CommandPath()) {
		return
	}
	usage := cmdutil.ExitCode(err) == cmdutil.ExitUsage && slices.Contains(usageResultCommands, cmd.CommandPath())
	if !usage && !cmdutil.IsType[*cmdutil.FlagError](err) {
		return
	}
	format := flagOrRaw(cmd, args, "format")
	jsonReport := ""
	if cmd.Flags().Lookup("json-report") != nil {
		jsonReport = flagOrRaw(cmd, args, "json-report")
	}
	if options.FormatAllowed(cmd, format) {
		writeErrorResult(cmd, format, jsonReport, err)
	}
}

// flagOrRaw is the value of cmd's flag name as pflag would read it from
// args: the last --name VALUE or --name=VALUE before a "--", or the flag's
// value (its default) without one.
func flagOrRaw(cmd *cobra.Command, args []string, name string) string {
	v := cmd.Flags().Lookup(name).Value.String()
	long := "--" + name
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return v
		case a == long && i+1 < len(args):
			v = args[i+1]
			i++
		case strings.HasPrefix(a, long+"="):
			v = strings.TrimPrefix(a, long+"=")
		}
	}
	return v
}
