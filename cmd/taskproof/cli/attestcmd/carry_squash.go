package attestcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/carry"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
)

// carrySquash is `attest carry BASE..HEAD SQUASH` (carry.Squash):
// prepare fills req's signature check and signers once the range and the
// squash commit resolve. A task left without evidence fails the command
// (exit 1, naming it) after the others are carried: the gate would fail it.
func carrySquash(ctx context.Context, c *cobra.Command, repo *gitref.Repo, notes *gitref.NotesStore, req carry.Request, fromArg, toArg, f string, prepare func(*carry.Request) error) error {
	base, head, err := repo.ResolveRange(fromArg)
	if err != nil {
		return err
	}
	squash, err := repo.Resolve(toArg)
	if err != nil {
		return err
	}
	if err := prepare(&req); err != nil {
		return err
	}
	res, err := carry.Squash(ctx, repo, notes, carry.SquashRequest{Base: base, Head: head, Squash: squash, Carry: req})
	if err != nil {
		return cmdutil.WithAttestFlags(err)
	}
	if f == "json" {
		if err := writeCarryJSON(c, map[string]any{"schema_version": 1, "dry_run": req.DryRun, "squash": res}, res.Carries...); err != nil {
			return err
		}
	} else {
		out := c.OutOrStdout()
		for _, d := range res.Done {
			fmt.Fprintf(out, "%s -> %s: carried already (%s: %s's note holds their statements)\n", cmdutil.Short(d.From), cmdutil.Short(d.To), printable.String(strings.Join(d.Tasks, ", ")), cmdutil.Short(d.To))
		}
		for _, r := range res.Carries {
			fmt.Fprintf(out, "%s -> %s:\n", cmdutil.Short(r.From), cmdutil.Short(r.To))
			if err := printWritten(out, c.ErrOrStderr(), "text", r.Written, req.DryRun); err != nil {
				return err
			}
			printFromKept(c, r)
		}
	}
	if len(res.Left) == 0 {
		return nil
	}
	var left, flags []string
	for _, g := range res.Left {
		name := g.Task
		if strings.Contains(g.Task, "/h-") && g.Title != "" {
			name = fmt.Sprintf("%s %q", g.Task, g.Title)
		}
		left = append(left, fmt.Sprintf("%s (%s)", name, g.Why))
		flags = append(flags, "--task "+shellWord(g.Task[strings.LastIndex(g.Task, "/")+1:]))
	}
	carried := "the others were carried"
	if len(res.Carries) == 0 {
		carried = "nothing was carried"
	}
	return cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("the squash %s ticks %d task(s) whose evidence in %s is missing or does not verify, which the gate will fail: %s; %s. Attest them on the squash commit: taskproof attest tick --commit %s %s --verdict …",
		cmdutil.Short(squash), len(res.Left), fromArg, strings.Join(left, "; "), carried, cmdutil.Short(squash), strings.Join(flags, " ")))
}

// shellWord is s as one shell word: itself when it needs no quoting, else
// single-quoted.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
