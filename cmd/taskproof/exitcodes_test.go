package main

import "github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

// The exit codes the tests expect of the binary (docs/cli/exit-codes.md).
const (
	ExitOK       = cmdutil.ExitOK
	ExitFailure  = cmdutil.ExitFailure
	ExitUsage    = cmdutil.ExitUsage
	ExitTrust    = cmdutil.ExitTrust
	ExitGit      = cmdutil.ExitGit
	ExitInternal = cmdutil.ExitInternal
)
