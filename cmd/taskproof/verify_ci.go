package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/verify"
)

// writeCIReport writes the sarif, github and junit formats.
func writeCIReport(c *cobra.Command, format string, rep *verify.Report) error {
	return usageErr("--format %s is not available yet", format)
}

var _ = fmt.Sprint
