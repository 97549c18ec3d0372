// Command taskproof signs and verifies task-verification attestations for
// spec-driven development: see README.md, and docs/cli/ for every command,
// its flags and the exit codes.
package main

import (
	"context"
	"os"

	"github.com/taskproof/taskproof/cmd/taskproof/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:]))
}
