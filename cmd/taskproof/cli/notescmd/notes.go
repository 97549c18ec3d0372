package notescmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"
	"github.com/taskproof/taskproof/trust"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/notemerge"
)

func NewCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "notes",
		Short: "Push and fetch the attestation notes, merging them line by line when both sides moved",
		Long: `git does not push or fetch notes by default. 'taskproof notes push' and 'taskproof notes
fetch' move the notes ref (--notes-ref, default refs/notes/speccoder) and the skip records
(refs/speccoder/skipped/*) to and from a remote, never by force.

Fetching goes into tracking refs (refs/notes/remotes/<REMOTE>/<name>, as 'git fetch' does
after 'taskproof init'), then merges into your notes ref. When both sides added notes, the two
notes histories are merged: a notes commit with both sides as parents, holding every note of both.
Where both sides wrote a note for the same commit, the lines are merged: other tools' lines and
every tick only one side attests are kept; for a task both sides attest differently, one side's
statements are kept whole — the side whose signatures verify against your trust (--allowed-signers
and the other trust flags, else git's gpg.ssh.allowedSignersFile), then a side fully signed with
no signature that fails its own key, then the later 'time' (a time more than 5 minutes in the
future counts as none), the same choice on every clone with the same trust — and the others move
to <notes-ref>-conflicts (refs/notes/speccoder-conflicts), which is pushed and fetched too. Both
people are told (stderr; JSON 'conflicts' and 'displaced_elsewhere'), once per clone: the commit,
the task, the fields that differ, the rule that kept the winner, the kept and the displaced
statements. 'taskproof notes conflicts' lists them, and --resolve acknowledges them for every
clone. See docs/format.md#conflicting-statements-of-one-tick.

The transport is the git program, so your credential helpers, SSH configuration and
url.*.insteadOf rules apply as for 'git push' and 'git fetch'.`,
		Example: `  taskproof notes push               # after attesting
  taskproof notes fetch upstream`,
	}
	c.AddCommand(newNotesSyncCmd("push"), newNotesSyncCmd("fetch"), newNotesConflictsCmd())
	return c
}

func newNotesSyncCmd(op string) *cobra.Command {
	o := &syncOptions{op: op}
	c := &cobra.Command{
		Use:  op + " [REMOTE]",
		Args: cobra.MaximumNArgs(1),
	}
	switch op {
	case "push":
		c.Short = "Push the notes ref and skip records to REMOTE (default origin), merging on a non-fast-forward"
		c.Long = `notes push first fetches REMOTE's notes (default origin) and merges them into yours as
'notes fetch' does, then pushes the notes ref, the conflicts ref and the skip records without
force. If the remote moved in between, it fetches, merges and pushes again, up to --attempts
times, so that two clones pushing at once both land. Skip records the remote already holds with other values
are reported, not overwritten.` + "\n\n" + cmdutil.ExitHelp()
		c.Example = `  taskproof notes push
  taskproof notes push upstream --format json`
	case "fetch":
		c.Short = "Fetch the notes ref and skip records from REMOTE (default origin) and merge them into yours"
		c.Long = `notes fetch fetches REMOTE's notes ref (default origin) into its tracking ref
(refs/notes/remotes/REMOTE/<name>; for a URL, temporary refs under refs/speccoder/fetch/, removed after) and brings it into yours: created when you have none, fast-forwarded when yours is behind, kept when yours is
ahead, and otherwise merged line by line (see 'taskproof notes --help'). Skip records are
fetched into refs/speccoder/remotes/REMOTE/skipped/* and created or fast-forwarded locally,
never forced; one that differs is reported. The remote's notes commit merged is recorded in
refs/speccoder/remotes/REMOTE/synced/<name> (push records what it pushed), so that a remote
someone else force-pushed is named, with each statement of yours it lost, even after plain
'git fetch'es moved the tracking ref (docs/format.md#a-remote-rewritten-by-someone-else).` + "\n\n" + cmdutil.ExitHelp()
		c.Example = `  taskproof notes fetch
  taskproof notes fetch origin && taskproof verify --branch --allowed-signers ~/.config/taskproof/allowed_signers`
	}
	c.Flags().BoolVar(&o.noSkip, "no-skip-refs", false, "do not move refs/speccoder/skipped/*")
	o.trust.AddFlags(c)
	attemptsUsage := "push at most `N` times (each after a fetch and merge) before giving up"
	if op == "fetch" {
		attemptsUsage = "merge into the notes ref at most `N` times when another writer in this clone moves it meanwhile, before giving up"
	}
	c.Flags().IntVar(&o.attempts, "attempts", 5, attemptsUsage)
	o.format = options.NewFormat("text", "text", "json")
	o.format.AddFlags(c)
	c.RunE = func(c *cobra.Command, args []string) error { return o.run(c.Context(), c, args) }
	return c
}

// syncOptions are notes push's and fetch's flags; op is the command.
type syncOptions struct {
	op       string
	noSkip   bool
	attempts int
	trust    options.TrustOptions
	format   *options.FormatOptions
}

// run is notes push or fetch with ctx: merge with the remote's notes and,
// for push, push the result.
func (o *syncOptions) run(ctx context.Context, c *cobra.Command, args []string) (err error) {
	f, err := o.format.Get()
	if err != nil {
		return err
	}
	if f == "json" {
		// A script reading stdout gets an object whatever happens
		// (docs/format.md#precondition-errors-in-ci-formats).
		defer func() {
			if err != nil {
				writeNotesErrorJSON(c, o.op, err)
			}
		}()
	}
	if o.attempts < 1 || o.attempts > 100 {
		return cmdutil.Usagef("--attempts %d: want 1 to 100", o.attempts)
	}
	remote := cmdutil.ArgOr(args, "origin")
	repo, notes, err := cmdutil.OpenRepo(c)
	if err != nil {
		return err
	}
	defer repo.Close()
	trusted, err := mergeTrust(c, repo, &o.trust)
	if err != nil {
		return err
	}
	res, err := notemerge.SyncNotes(ctx, notes, o.op == "push",
		gitref.SyncOptions{Remote: remote, SkipRefs: !o.noSkip, MaxAttempts: o.attempts}, notemerge.MergeOptions{Trusted: trusted})
	if err != nil {
		return err
	}
	printSyncWarnings(c.ErrOrStderr(), res, remote)
	if f == "json" {
		enc := json.NewEncoder(c.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"schema_version": 1, "operation": o.op, "result": res.SyncResult, "conflicts": res.Conflicts, "displaced_elsewhere": res.DisplacedElsewhere, "missing_upstream": res.MissingUpstream})
	}
	printSyncResult(c.OutOrStdout(), o.op, res.SyncResult)
	return nil
}

// writeNotesErrorJSON writes, for a notes push or fetch with --format json
// that ends in err, the error as JSON on stdout: the operation, conclusion
// "error" and the error's class, exit code and message. A failure to write it
// is a warning: the exit code stays err's.
func writeNotesErrorJSON(c *cobra.Command, op string, err error) {
	code := cmdutil.ExitCode(err)
	if cmdutil.IsSilent(err) {
		return
	}
	type jsonError struct {
		Code     string `json:"code"`
		ExitCode int    `json:"exit_code"`
		Message  string `json:"message"`
	}
	v := struct {
		SchemaVersion int       `json:"schema_version"`
		Operation     string    `json:"operation"`
		Conclusion    string    `json:"conclusion"`
		Error         jsonError `json:"error"`
	}{1, op, "error", jsonError{cmdutil.ErrorKind(code), code, err.Error()}}
	enc := json.NewEncoder(c.OutOrStdout())
	enc.SetIndent("", "  ")
	if werr := enc.Encode(v); werr != nil {
		fmt.Fprintf(c.ErrOrStderr(), "warning: writing the JSON error result: %v\n", werr)
	}
}

// whose names a merge side for a person: "your" or "<remote>'s".
func whose(side, remote string) string {
	if side == "local" {
		return "your"
	}
	return remote + "'s"
}

// ownership names a merge side's statements standing alone: "yours" or
// "<remote>'s".
func ownership(side, remote string) string {
	if side == "local" {
		return "yours"
	}
	return remote + "'s"
}

func otherSide(side string) string {
	if side == "local" {
		return "remote"
	}
	return "local"
}

// printSyncWarnings tells, on w, what a notes sync moved aside: refs it did not
// move, ticks the two sides attested differently, statements another clone's
// merge displaced and lines of yours the remote no longer holds
// (docs/format.md#conflicting-statements-of-one-tick), and a remote notes ref
// someone else rewrote (docs/format.md#a-remote-rewritten-by-someone-else).
func printSyncWarnings(w io.Writer, res *notemerge.NotesSync, remote string) {
	printRewrite(w, res, remote)
	for _, r := range res.Rejected {
		fmt.Fprintf(w, "warning: not moved: %s\n", r)
	}
	cref := strings.TrimPrefix(res.ConflictsRef, "refs/notes/")
	for _, x := range res.Conflicts {
		kept := whose(x.KeptSide, remote)
		fmt.Fprintf(w, "warning: %s %s: your notes and %s's attest this task differently — %s\n",
			cmdutil.Short(gitref.Hash(x.Commit)), printable.String(x.Subject), remote, differences(x.Differs, x.Kept, x.Displaced, ownership(x.KeptSide, remote), ownership(otherSide(x.KeptSide), remote)))
		same := "every clone makes the same choice"
		if x.Rule == notemerge.RuleTrusted {
			same = "every clone with the same trust makes the same choice"
		}
		fmt.Fprintf(w, "    kept %s statements, because %s (%s): %s\n", kept, notemerge.RuleText(x.Rule), same, printable.String(x.Kept.String()))
		fmt.Fprintf(w, "    %s moved to %s: %s; list them with taskproof notes conflicts (git notes --ref %s show %s) — see docs/format.md#conflicting-statements-of-one-tick\n",
			ownership(otherSide(x.KeptSide), remote), res.ConflictsRef, printable.String(x.Displaced.String()), cref, x.Commit)
	}
	elsewhere := map[string]bool{} // commit and payload SHA-256 of the statements reported displaced elsewhere
	for _, x := range res.DisplacedElsewhere {
		elsewhere[x.Commit+x.Displaced.PayloadSHA256] = true
		what := "the notes ref holds no statement for the task now"
		if x.Kept != nil {
			what = differences(x.Differs, *x.Kept, x.Displaced, "kept", "displaced")
		}
		fmt.Fprintf(w, "warning: %s %s: a statement was displaced by a conflicting one when another clone merged — %s\n",
			cmdutil.Short(gitref.Hash(x.Commit)), printable.String(x.Subject), what)
		if x.Kept != nil {
			fmt.Fprintf(w, "    kept, because %s: %s\n", notemerge.RuleText(x.Rule), printable.String(x.Kept.String()))
		}
		fmt.Fprintf(w, "    displaced, in %s (git notes --ref %s show %s): %s; this clone reports it once: list with taskproof notes conflicts, acknowledge it for every clone with taskproof notes conflicts --resolve %s && taskproof notes push — see docs/format.md#conflicting-statements-of-one-tick\n",
			res.ConflictsRef, cref, x.Commit, printable.String(x.Displaced.String()), shortSHA(x.Displaced.PayloadSHA256))
	}
	removed := make([]string, 0, len(res.Removed))
	for id := range res.Removed {
		removed = append(removed, string(id))
	}
	sort.Strings(removed)
	for _, id := range removed {
		if reportedDisplaced(res.Removed[gitref.Hash(id)], id, elsewhere) {
			continue // the same statements, told above as displaced by another clone's merge
		}
		n := bytes.Count(res.Removed[gitref.Hash(id)], []byte("\n"))
		fmt.Fprintf(w, "warning: %s: %s's notes no longer hold %d line(s) your notes held (another clone replaced or removed them: attest --force, attest carry); "+
			"they are kept in %s (git notes --ref %s show %s) — see docs/format.md#conflicting-statements-of-one-tick\n",
			cmdutil.Short(gitref.Hash(id)), res.Remote, n, res.ConflictsRef, cref, id)
	}
}

// differences says the fields that differ between two sides' statements of
// a tick, each with the two values: "reason: no_story (yours) / planning_work
// (origin's); time: …".
func differences(fields []string, a, b notemerge.StatementsSummary, aName, bName string) string {
	value := func(s notemerge.StatementsSummary, field string) string {
		switch field {
		case "verdict":
			return s.Verdict
		case "reason":
			return s.Reason
		case "signer":
			if len(s.Signers) == 0 {
				return "unsigned"
			}
			return strings.Join(s.Signers, ", ")
		case "time":
			return s.Time
		}
		return "statement sha256:" + shortSHA(s.PayloadSHA256)
	}
	var out []string
	for _, f := range fields {
		va, vb := value(a, f), value(b, f)
		if va == "" {
			va = "none"
		}
		if vb == "" {
			vb = "none"
		}
		out = append(out, fmt.Sprintf("%s: %s (%s) / %s (%s)", f, printable.String(va), aName, printable.String(vb), bName))
	}
	if len(out) == 0 {
		return "their statements differ"
	}
	return strings.Join(out, "; ")
}

// shortSHA is a statement's SHA-256 as messages write it: 12 digits.
func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// reportedDisplaced reports whether every task-verification statement of
// the lines removed from commit's note is one of those reported displaced
// by another clone's merge (elsewhere, by commit and payload SHA-256).
func reportedDisplaced(lines []byte, commit string, elsewhere map[string]bool) bool {
	ticks := notemerge.SummarizeNote(lines)
	n := 0
	for _, t := range ticks {
		if t.PayloadSHA256 == "" {
			continue
		}
		if !elsewhere[commit+t.PayloadSHA256] {
			return false
		}
		n++
	}
	return n > 0
}

// printRewrite names, on w, a rewrite of the remote's notes ref by someone
// else: the commit it was at, the lines of yours it lost, and whether this
// push put them back.
func printRewrite(w io.Writer, res *notemerge.NotesSync, remote string) {
	rw := res.Rewritten
	if rw == nil {
		return
	}
	now := "it has none now"
	if rw.Now != "" {
		now = "it is at " + cmdutil.Short(rw.Now) + " now"
	}
	lines, commits := 0, make([]string, 0, len(rw.Missing))
	for id, l := range rw.Missing {
		lines += bytes.Count(l, []byte("\n"))
		commits = append(commits, string(id))
	}
	sort.Strings(commits)
	var what string
	switch {
	case lines == 0:
		what = "no line of your notes is missing there"
	case rw.PushedBack:
		what = fmt.Sprintf("pushed back %d line(s) of %d note(s) it no longer held", lines, len(commits))
	default:
		what = fmt.Sprintf("%d line(s) of %d note(s) it held are missing there; your notes keep them, and `taskproof notes push %s` puts them back", lines, len(commits), remote)
	}
	fmt.Fprintf(w, "warning: %s's %s was rewritten by someone else (a forced push: %s, which this clone saw there last, is no longer in its history; %s): %s — see docs/format.md#a-remote-rewritten-by-someone-else\n",
		remote, res.Ref, cmdutil.Short(rw.Previous), now, what)
	named := map[string]int{}
	for _, m := range res.MissingUpstream {
		fmt.Fprintf(w, "warning:   %s %s (%s)\n", cmdutil.Short(gitref.Hash(m.Commit)), printable.String(m.Subject), m.Statement)
		named[m.Commit]++
	}
	for _, id := range commits {
		if n := bytes.Count(rw.Missing[gitref.Hash(id)], []byte("\n")); named[id] == 0 {
			fmt.Fprintf(w, "warning:   %s: %d line(s)\n", cmdutil.Short(gitref.Hash(id)), n)
		}
	}
}

// printSyncResult is notes push|fetch's text report.
func printSyncResult(w io.Writer, op string, res *gitref.SyncResult) {
	switch res.Action {
	case "up-to-date":
		fmt.Fprintf(w, "%s: %s is up to date with %s (%s)\n", op, res.Ref, res.Remote, cmdutil.Short(res.After))
	case "merged":
		fmt.Fprintf(w, "%s: merged %s from %s: %s (%d notes merged line by line)\n", op, res.Ref, res.Remote, cmdutil.Short(res.After), len(res.Merged))
	case "pushed":
		fmt.Fprintf(w, "%s: pushed %s to %s (%s)\n", op, res.Ref, res.Remote, cmdutil.Short(res.After))
	default:
		fmt.Fprintf(w, "%s: %s %s %s: %s -> %s\n", op, res.Action, res.Ref, res.Remote, cmdutil.Short(res.Before), cmdutil.Short(res.After))
	}
	if op == "push" && len(res.Merged) > 0 {
		fmt.Fprintf(w, "%s: merged the remote's notes first (%d notes merged line by line, %d attempts)\n", op, len(res.Merged), res.Attempts)
	}
}

// mergeTrust is the trust a notes merge prefers statements by
// (docs/format.md#conflicting-statements-of-one-tick): the trust flags', else
// git's gpg.ssh.allowedSignersFile; nil when neither gives any. A flag's
// trust that does not load fails the command; a configured file that does
// not is warned about, and the merge goes on without trust.
//
// The trust may be a file of the work tree (LoadTrustUnsafe): a notes merge
// verifies no head with it, it only orders statements of one tick.
func mergeTrust(c *cobra.Command, repo *gitref.Repo, opts *options.TrustOptions) (func([]byte) bool, error) {
	tr, _, err := trust.LoadTrustUnsafe(repo, opts.Sources)
	switch {
	case err == nil:
		return trust.MergeTrusted(tr, time.Now()), nil
	case errors.Is(err, trust.ErrNoTrust):
		return nil, nil
	case opts.Given():
		return nil, err
	}
	fmt.Fprintf(c.ErrOrStderr(), "warning: notes merge without trust: %s\n", cmdutil.MessageText(err.Error()))
	return nil, nil
}
