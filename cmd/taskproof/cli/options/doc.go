// Package options holds the flags taskproof's commands share, each group as
// a struct whose AddFlags declares its flags on a command: the repository
// flags of the root, the verifier's trust and policy inputs, the time key
// validity is judged at, the gate's switches, the output format and the
// notes of the remotes. A flag shared by several commands is
// declared here once, so that its name, type and help are the same
// wherever it appears.
package options
