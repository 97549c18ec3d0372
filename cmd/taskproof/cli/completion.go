package cli

import (
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/tick"
)

// Shell completion (taskproof completion bash|zsh|fish|powershell) completes
// values, not only command and flag names: the choices of a flag that takes
// one of a few words (--format, --verdict, --signer, --red-kind,
// --regression-reason), revisions (--base, --commit, the REV and RANGE
// arguments), REV:PATH (--allowed-signers-rev, --policy-rev), remotes, and
// directories for a DIR. Choice flags register their words where they are
// defined ([cmdutil.Choices]); [registerCompletions] adds the rest by what a flag or
// argument names, once the tree is built.

// revisionArgs are the commands whose arguments are revisions or ranges.
var revisionArgs = map[string]bool{
	"taskproof verify": true, "taskproof ticks": true, "taskproof audit": true,
	"taskproof attest show": true, "taskproof attest sign": true, "taskproof attest carry": true,
	"taskproof policy explain": true,
}

// remoteArgs are the commands whose one argument is a remote.
var remoteArgs = map[string]bool{"taskproof notes push": true, "taskproof notes fetch": true}

// completionHelp is the help of each completion script's command, in
// taskproof's words (cobra's own speaks of a terminal's sessions).
var completionHelp = map[string]string{
	"bash": `Generate the autocompletion script for the bash shell.

This script depends on the 'bash-completion' package.
If it is not installed already, you can install it via your OS's package manager.

To load completions in the shell you are in:

	source <(taskproof completion bash)

To load completions for every new shell, execute once:

#### Linux:

	taskproof completion bash > /etc/bash_completion.d/taskproof

#### macOS:

	taskproof completion bash > $(brew --prefix)/etc/bash_completion.d/taskproof

You will need to start a new shell for this setup to take effect.
`,
	"zsh": `Generate the autocompletion script for the zsh shell.

If shell completion is not already enabled in your environment you will need
to enable it.  You can execute the following once:

	echo "autoload -U compinit; compinit" >> ~/.zshrc

To load completions in the shell you are in:

	source <(taskproof completion zsh)

To load completions for every new shell, execute once:

#### Linux:

	taskproof completion zsh > "${fpath[1]}/_taskproof"

#### macOS:

	taskproof completion zsh > $(brew --prefix)/share/zsh/site-functions/_taskproof

You will need to start a new shell for this setup to take effect.
`,
	"fish": `Generate the autocompletion script for the fish shell.

To load completions in the shell you are in:

	taskproof completion fish | source

To load completions for every new shell, execute once:

	taskproof completion fish > ~/.config/fish/completions/taskproof.fish

You will need to start a new shell for this setup to take effect.
`,
	"powershell": `Generate the autocompletion script for powershell.

To load completions in the shell you are in:

	taskproof completion powershell | Out-String | Invoke-Expression

To load completions for every new shell, add the output of the above command
to your powershell profile.
`,
}

// completionWording gives the completion scripts' commands taskproof's help
// ([completionHelp]).
func completionWording(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		for _, sub := range c.Commands() {
			if h, ok := completionHelp[sub.Name()]; ok {
				sub.Long = h
			}
		}
	}
}

// registerCompletions walks the tree under root and adds the completion of
// values that read the repository: revisions for --base, --commit and the
// commands of [revisionArgs], REV:PATH for a flag whose value is named so,
// remotes for --remote and the commands of [remoteArgs], directories for a
// flag whose value is a DIR, the regression reasons and the signer kinds.
func registerCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if _, ok := c.GetFlagCompletionFunc(f.Name); ok {
				return
			}
			name, _ := pflag.UnquoteUsage(f)
			var fn cobra.CompletionFunc
			switch {
			case f.Name == "base" || f.Name == "commit":
				fn = completeRevisions
			case name == "REV:PATH":
				fn = completeRevPath
			case f.Name == "remote":
				fn = completeRemotes
			case f.Name == "task" && c.Flags().Lookup("commit") != nil:
				fn = completeTickedTasks
			case f.Name == "regression-reason":
				fn = completeRegressionReason
			case f.Name == "signer":
				fn = fixed("ssh", "openpgp", "raw", "sigstore")
			case name == "DIR":
				_ = c.MarkFlagDirname(f.Name)
			}
			if fn != nil {
				_ = c.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
		switch path := c.CommandPath(); {
		case c.ValidArgsFunction != nil:
		case revisionArgs[path]:
			c.ValidArgsFunction = completeRevisions
		case remoteArgs[path]:
			c.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return completeRemotes(c, args, toComplete)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func fixed(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return cmdutil.WithPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completionRepo opens the repository --repo names for a completion, nil when
// it cannot (completion then offers nothing).
func completionRepo(c *cobra.Command) *gitref.Repo {
	dir, _ := c.Flags().GetString("repo")
	repo, err := gitref.Open(dir)
	if err != nil {
		return nil
	}
	return repo
}

// revisionNames are the names a revision is written with, as the strict
// reading of the base and trust revisions accepts them
// (docs/format.md#ambiguous-ref-names): HEAD, branches by their short name,
// remote-tracking branches as REMOTE/BRANCH, tags as tags/NAME.
func revisionNames(repo *gitref.Repo) []string {
	names, err := repo.BranchAndTagNames()
	if err != nil {
		return nil
	}
	out := []string{"HEAD"}
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, "refs/heads/"):
			out = append(out, strings.TrimPrefix(n, "refs/heads/"))
		case strings.HasPrefix(n, "refs/remotes/") && !strings.HasSuffix(n, "/HEAD"):
			out = append(out, strings.TrimPrefix(n, "refs/remotes/"))
		case strings.HasPrefix(n, "refs/tags/"):
			out = append(out, "tags/"+strings.TrimPrefix(n, "refs/tags/"))
		}
	}
	return out
}

// completeRevisions completes a revision, or the end of a range A..B after
// its "..".
func completeRevisions(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	repo := completionRepo(c)
	if repo == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer repo.Close()
	before, word := "", toComplete
	if i := strings.LastIndex(toComplete, ".."); i >= 0 {
		before, word = toComplete[:i+2], toComplete[i+2:]
	}
	var out []cobra.Completion
	for _, n := range cmdutil.WithPrefix(revisionNames(repo), word) {
		out = append(out, before+n)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeRevPath completes REV:PATH: a revision followed by ":", then the
// paths of that revision's tree.
func completeRevPath(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	repo := completionRepo(c)
	if repo == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer repo.Close()
	rev, p, ok := strings.Cut(toComplete, ":")
	if !ok {
		var out []cobra.Completion
		for _, n := range cmdutil.WithPrefix(revisionNames(repo), toComplete) {
			out = append(out, n+":")
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	commit, err := repo.Resolve(rev)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	fsys, err := repo.FS(commit)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	dir := "."
	if i := strings.LastIndex(p, "/"); i >= 0 {
		dir = p[:i]
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, e := range entries {
		full := e.Name()
		if dir != "." {
			full = path.Join(dir, e.Name())
		}
		if e.IsDir() {
			full += "/"
		}
		if strings.HasPrefix(full, p) {
			out = append(out, rev+":"+full)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeRemotes completes the names of the repository's remotes
// (remote.NAME.url).
func completeRemotes(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	repo := completionRepo(c)
	if repo == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer repo.Close()
	cfg, err := repo.Config()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, e := range cfg.Entries() {
		if rest, ok := strings.CutPrefix(e.Key, "remote."); ok && strings.HasSuffix(rest, ".url") {
			if n := strings.TrimSuffix(rest, ".url"); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return cmdutil.WithPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeRegressionReason completes REASON[:key=value]: the reasons, with
// the key a reason needs ("not_red:red_class="), then the red classes.
func completeRegressionReason(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if head, ok := strings.CutSuffix(toComplete[:strings.LastIndex(toComplete, "=")+1], "red_class="); ok && head == "not_red:" {
		var out []string
		for _, c := range []predicate.RedClass{predicate.ClassAssertion, predicate.ClassAbsent, predicate.ClassBuildError,
			predicate.ClassCollectionError, predicate.ClassTimeout, predicate.ClassNoTests, predicate.ClassFlaky,
			predicate.ClassUnclassified, predicate.ClassPassed} {
			out = append(out, "not_red:red_class="+string(c))
		}
		return cmdutil.WithPrefix(out, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for reason, key := range attest.RegressionReasonKeys() {
		if key != "" && reason != "already_passing" {
			reason += ":" + key + "="
		}
		out = append(out, reason)
	}
	sort.Strings(out)
	out = cmdutil.WithPrefix(out, toComplete)
	directive := cobra.ShellCompDirectiveNoFileComp
	if len(out) > 0 && !slices.ContainsFunc(out, func(s string) bool { return !strings.HasSuffix(s, "=") }) {
		directive |= cobra.ShellCompDirectiveNoSpace // the value follows
	}
	return out, directive
}

// completeTickedTasks completes --task with the IDs of the tasks --commit
// (default HEAD) ticks, each described by its title.
func completeTickedTasks(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	repo := completionRepo(c)
	if repo == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer repo.Close()
	rev, _ := c.Flags().GetString("commit")
	commit, err := repo.Resolve(rev)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ticks, err := tick.OfCommit(repo, commit, nil)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, t := range ticks {
		if (t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked) && !t.Unrecognized {
			if v := cobra.CompletionWithDesc(t.TaskID, t.Task.Title); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return cmdutil.WithPrefix(out, toComplete), cobra.ShellCompDirectiveNoFileComp
}
