package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"
)

// Choices makes shell completion offer values for c's flag name (each value
// may carry a description after a tab).
func Choices(c *cobra.Command, name string, values ...string) {
	_ = c.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return WithPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	})
}

// WithPrefix are the values (their part before a tab) that start with prefix.
func WithPrefix(values []string, prefix string) []string {
	var out []string
	for _, v := range values {
		word, _, _ := strings.Cut(v, "\t")
		if strings.HasPrefix(word, prefix) {
			out = append(out, v)
		}
	}
	return out
}
