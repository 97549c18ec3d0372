// Package cli is taskproof's command line: the root command, the list of
// commands under it and each command's flags, help and output. What a
// command decides (what a tick is, what verifies, what the gate concludes)
// lives in the library packages it calls; the commands read flags, call
// them and write what they return. docs/cli/ is generated from this tree.
package cli
