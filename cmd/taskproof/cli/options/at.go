package options

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
)

// AtOptions is --at: the time key validity windows are judged at.
type AtOptions struct {
	At string
}

// AddFlags declares --at on c.
func (o *AtOptions) AddFlags(c *cobra.Command) {
	c.Flags().StringVar(&o.At, "at", "", "judge key validity at this `TIME` (RFC 3339) instead of now")
}

// Time is the time --at gives, def when none is given; a value that is not
// RFC 3339 is a usage error (exit 2).
func (o *AtOptions) Time(def time.Time) (time.Time, error) {
	return cmdutil.ParseAt(o.At, def)
}
