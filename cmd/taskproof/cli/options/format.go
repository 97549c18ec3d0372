package options

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
)

// FormatOptions is --format: the output format, one of a command's allowed
// values.
type FormatOptions struct {
	Format  string
	Default string
	Allowed []string
}

// NewFormat is the --format of a command writing in the allowed formats,
// def when none is given.
func NewFormat(def string, allowed ...string) *FormatOptions {
	return &FormatOptions{Default: def, Allowed: allowed}
}

// AddFlags declares --format on c, completing the allowed values.
func (o *FormatOptions) AddFlags(c *cobra.Command) {
	c.Flags().StringVar(&o.Format, "format", o.Default, "output `FORMAT`: "+strings.Join(o.Allowed, "|"))
	// The allowed values, for a result written when the flags cannot be
	// parsed (FormatAllowed).
	_ = c.Flags().SetAnnotation("format", formatsAnnotation, o.Allowed)
	cmdutil.Choices(c, "format", o.Allowed...)
}

// Get returns the format given, or a usage error (exit 2) for a value not
// allowed.
func (o *FormatOptions) Get() (string, error) {
	for _, a := range o.Allowed {
		if o.Format == a {
			return a, nil
		}
	}
	return "", cmdutil.Usagef("unknown --format %q (want %s)", o.Format, strings.Join(o.Allowed, "|"))
}

const formatsAnnotation = "taskproof_formats"

// FormatAllowed reports whether format is one of the values c's --format
// allows.
func FormatAllowed(c *cobra.Command, format string) bool {
	f := c.Flags().Lookup("format")
	return f != nil && slices.Contains(f.Annotations[formatsAnnotation], format)
}
