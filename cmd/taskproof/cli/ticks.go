package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"
	"text/tabwriter"

	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"
	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

func newTicksCmd() *cobra.Command {
	o := &ticksOptions{}
	c := &cobra.Command{
		Use:   "ticks [RANGE]",
		Short: "List the ticks (and unticks, and edits of ticked lines) of tasks files in a commit range",
		Example: `  taskproof ticks                   # all of HEAD's history
  taskproof ticks origin/main..HEAD --format json`,
		Long: `ticks lists, per commit, the task lines whose box went from open to ticked against
the commit's first parent, following tasks files across renames and moves
(docs/format.md#units-and-task-lines).
RANGE is "A..B" or a revision (all of its history); the default is HEAD.
Unticks (ticked → open) and edits of a ticked line's text are listed as their own kinds.
A task added already ticked to a tasks file the parent has (or ticked under a new
derived ID) is a tick with "born" set; the ticked tasks of a tasks file new in the
commit are not ticks and are listed as kind born_ticked. line_hash is the SHA-256
of the commit's task line read as open, what an attestation binds
(docs/format.md#hash-recipes).
Checkbox items without a task ID are tasks: their ID is derived from the title
("h-" + 12 hex digits of its SHA-256). Ticks in a tasks file that repeats a task ID
are listed with the reason the ID alone is ambiguous: each is a tick of its line,
attested and verified by its line_hash — unless another line with that ID reads the
same (equal line_hash), which no attestation can tell apart.

Output: text (kind, commit, path:line, task, line_hash prefix, note) or --format json
{"schema_version":1,"ticks":[{"kind","commit","parent","merge","path","old_path",
"line","old_line","task_id","unit","line_before","line_after","line_hash",
"text_changed","born","derived","ambiguous"}]} (kind: tick, untick, edit or
born_ticked, or not_regular for a symbolic link or submodule where a tasks file or a
directory holding one is; line_before is "" and old_line 0 when born). Ticks in a
file named tasks.md (any case) that no unit layout claims are listed with reason
unrecognized_tasks_file; a unit's tasks file moved to a path where it is no tasks
file is listed as kind moved_out, old_path => path, with reason tasks_file_moved_out
("unreadable" says why, when the added file could not be read to tell); the gate
fails both (docs/format.md#tasks-files). --policy
adds the unit layouts and ignored paths of the verifier's policy. "reading" says
which readings see a task's box: "github" (GitHub's rendering), "tool" (the
format's own tool alone: OpenSpec's task counter, spec-workflow-mcp's task parser)
or "github+tool" (docs/format.md#the-formats-own-readings).
--explain adds, after the ticks, each tasks file they are in with its unit format,
the layout that recognised it and the readings it is read with (JSON: "files":
[{"path","unit","project_root","layout","builtin","readings"}]).
A tasks file that cannot be read (not text, over 4 MiB, a Git LFS pointer:
docs/format.md#tasks-files) is refused; no ticks is a listing, not an error.` + "\n\n" + cmdutil.ExitHelp(),
		Args: cobra.MaximumNArgs(1),
	}
	c.Flags().BoolVar(&o.firstParent, "first-parent", false, "follow only the first parent of each commit")
	c.Flags().BoolVar(&o.explain, "explain", false, "also list each tasks file with the layout and the readings that recognised it")
	c.Flags().StringVar(&o.policyFile, "policy", "", "the verifier's policy `FILE`, for the unit layouts and ignored paths it adds")
	o.format = options.NewFormat("text", "text", "json")
	o.format.AddFlags(c)
	c.RunE = func(c *cobra.Command, args []string) error { return o.run(c.Context(), c, args) }
	return c
}

// ticksOptions are ticks' flags.
type ticksOptions struct {
	firstParent, explain bool
	policyFile           string
	format               *options.FormatOptions
}

// run is ticks with ctx: walk the range and write its ticks as the walk
// hands them out.
func (o *ticksOptions) run(ctx context.Context, c *cobra.Command, args []string) error {
	f, err := o.format.Get()
	if err != nil {
		return err
	}
	dir, _ := c.Flags().GetString("repo")
	repo, err := gitref.Open(dir, tick.WalkOnce())
	if err != nil {
		return err
	}
	defer repo.Close()
	base, head, err := repo.ResolveRange(cmdutil.ArgOr(args, "HEAD"))
	if err != nil {
		return err
	}
	var layouts *specfmt.Layouts
	if o.policyFile != "" {
		pol, err := policy.Load(o.policyFile)
		if err != nil {
			return err
		}
		layouts = pol.Layouts()
	}
	ticks := tick.Stream(repo, base, head, tick.Options{FirstParent: o.firstParent, Layouts: layouts})
	var files *explained
	if o.explain {
		files = &explained{layouts: layouts, seen: map[string]bool{}}
		ticks = files.collect(ticks)
	}
	if f == "json" {
		return writeTicksJSON(c.OutOrStdout(), ticks, files)
	}
	if err := writeTicksText(c.OutOrStdout(), ticks); err != nil {
		return err
	}
	return files.writeText(c.OutOrStdout())
}

// tickRecord is one record of `ticks --format json` (schema_version 1).
type tickRecord struct {
	Kind        string       `json:"kind"`
	Commit      string       `json:"commit"`
	Parent      string       `json:"parent"`
	Merge       bool         `json:"merge"`
	Path        string       `json:"path"`
	OldPath     string       `json:"old_path"`
	Line        int          `json:"line"`
	OldLine     int          `json:"old_line"`
	TaskID      string       `json:"task_id"`
	Unit        specfmt.Unit `json:"unit"`
	ProjectRoot string       `json:"project_root,omitempty"` // a nested project's root (docs/format.md#project-root)
	LineBefore  string       `json:"line_before"`
	LineAfter   string       `json:"line_after"`
	LineHash    string       `json:"line_hash"`
	TextChanged bool         `json:"text_changed"`
	// Born: the task has no line at the parent (a tick of a task added already
	// ticked, or a born_ticked record).
	Born bool `json:"born"`
	// Derived: the task line has no written ID; task_id is derived from its
	// title ("h-" + 12 hex digits of SHA-256, "-n" for repeats).
	Derived bool `json:"derived"`
	// Ambiguous is why the task cannot be named unambiguously (its tasks file
	// repeats a task ID); absent when it can.
	Ambiguous string `json:"ambiguous,omitempty"`
	// Reason is why the gate fails the record whatever its evidence:
	// unrecognized_tasks_file, tasks_file_not_regular (with Irregular:
	// "symlink" or "submodule") or tasks_file_moved_out (with Unreadable
	// when the added file could not be read); absent otherwise.
	Reason     string `json:"reason,omitempty"`
	Irregular  string `json:"irregular,omitempty"`
	Unreadable string `json:"unreadable,omitempty"`
	// Reading is which readings see the task's box: github, tool or
	// github+tool; absent for a record of no task line.
	Reading string `json:"reading,omitempty"`
}

// newTickRecord is t's record.
func newTickRecord(t tick.Tick) tickRecord {
	return tickRecord{
		Kind: string(t.Kind), Commit: string(t.Commit), Parent: string(t.Parent), Merge: t.Merge,
		Path: t.Path, OldPath: t.OldPath, Line: t.Line, OldLine: t.OldLine, TaskID: t.TaskID,
		Unit: t.Unit, ProjectRoot: t.Root, LineBefore: t.Before, LineAfter: t.After, LineHash: t.LineHash,
		TextChanged: t.TextChanged, Born: t.Born, Derived: t.Derived, Ambiguous: t.Ambiguous,
		Reason: tickReason(t), Irregular: t.Irregular, Unreadable: t.Unreadable, Reading: tickReading(t),
	}
}

// tickReading is tickRecord.Reading.
func tickReading(t tick.Tick) string {
	if t.Kind == tick.KindNotRegular || t.Kind == tick.KindMovedOut || t.Task.Line == "" {
		return ""
	}
	return t.Task.Reading.String()
}

// explained collects the tasks files of the ticks streamed through it, for
// --explain: which layout recognised each, with which readings.
type explained struct {
	layouts *specfmt.Layouts
	seen    map[string]bool
	files   []fileRecord
}

// fileRecord is one tasks file of `ticks --explain`.
type fileRecord struct {
	Path        string       `json:"path"`
	Unit        specfmt.Unit `json:"unit"`
	ProjectRoot string       `json:"project_root,omitempty"`
	// Layout is the tasks-file pattern that recognised the file (relative to
	// ProjectRoot), "" for an unrecognized one.
	Layout   string   `json:"layout"`
	Builtin  bool     `json:"builtin"`
	Readings []string `json:"readings"`
}

func (e *explained) collect(ticks iter.Seq2[tick.Tick, error]) iter.Seq2[tick.Tick, error] {
	return func(yield func(tick.Tick, error) bool) {
		for t, err := range ticks {
			if err == nil && t.Kind != tick.KindNotRegular && t.Kind != tick.KindMovedOut && !e.seen[t.Path] {
				e.seen[t.Path] = true
				r := fileRecord{Path: t.Path, Unit: t.ProjectUnit(), ProjectRoot: t.Root}
				if !t.Unrecognized {
					if lay, builtin, ok := e.layouts.LayoutOf(strings.TrimPrefix(t.Path, specfmt.ProjectPrefix(t.Root))); ok {
						r.Layout, r.Builtin = lay.Tasks, builtin
					}
					r.Readings = specfmt.Readings(t.Unit.Format)
				}
				e.files = append(e.files, r)
			}
			if !yield(t, err) {
				return
			}
		}
	}
}

// writeText writes the files after the ticks' text (nothing when e is nil).
func (e *explained) writeText(w io.Writer) error {
	if e == nil {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\ntasks file\tformat\tlayout\treadings\n")
	for _, f := range e.files {
		layout, format := f.Layout, string(f.Unit.Format)
		switch {
		case layout == "":
			layout, format = "none (unrecognized_tasks_file)", "-"
		case f.Builtin:
			layout += " (built-in)"
		default:
			layout += " (policy)"
		}
		if f.ProjectRoot != "" {
			layout += " under project " + f.ProjectRoot
		}
		if f.Unit.Format.Kin(specfmt.CCSDD) {
			format = "kiro/cc-sdd"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", printable.String(f.Path), format, printable.String(layout), strings.Join(f.Readings, "; "))
	}
	return tw.Flush()
}

// tickReason is tickRecord.Reason.
func tickReason(t tick.Tick) string {
	switch {
	case t.Kind == tick.KindNotRegular:
		return "tasks_file_not_regular"
	case t.Kind == tick.KindMovedOut:
		return "tasks_file_moved_out"
	case t.Unrecognized:
		return "unrecognized_tasks_file"
	}
	return ""
}

// writeTicksJSON writes {"schema_version":1,"ticks":[…]} indented by two
// spaces, as json.Encoder with SetIndent("", "  ") writes the whole document,
// one record at a time as the walk hands the ticks out: no list of the
// records, and no document-sized buffer. On the walk's error it stops there
// (what was written is not a document) and returns the error.
// With files (--explain), the tasks files follow the ticks.
func writeTicksJSON(w io.Writer, ticks iter.Seq2[tick.Tick, error], files *explained) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	n := 0
	for t, err := range ticks {
		if err != nil {
			return err
		}
		b, err := json.MarshalIndent(newTickRecord(t), "    ", "  ")
		if err != nil {
			return err
		}
		if n == 0 {
			bw.WriteString("{\n  \"schema_version\": 1,\n  \"ticks\": [\n    ")
		} else {
			bw.WriteString(",\n    ")
		}
		n++
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	if n == 0 {
		bw.WriteString("{\n  \"schema_version\": 1,\n  \"ticks\": []")
	} else {
		bw.WriteString("\n  ]")
	}
	if files != nil {
		b, err := json.MarshalIndent(files.files, "  ", "  ")
		if err != nil {
			return err
		}
		if files.files == nil {
			b = []byte("[]")
		}
		bw.WriteString(",\n  \"files\": ")
		bw.Write(b)
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeTicksText writes the ticks as the walk hands them out, aligned by
// tabwriter (which holds the lines' text until Flush, not the ticks).
func writeTicksText(w io.Writer, ticks iter.Seq2[tick.Tick, error]) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for t, err := range ticks {
		if err != nil {
			return err
		}
		path := t.Path
		if t.OldPath != t.Path {
			path = t.OldPath + " => " + t.Path
		}
		var notes []string
		if t.Born && t.Kind == tick.KindTick {
			notes = append(notes, "born (no line at the parent)")
		}
		if t.Ambiguous != "" {
			notes = append(notes, "ambiguous: "+t.Ambiguous)
		}
		if r := tickReason(t); r != "" {
			notes = append(notes, r)
		}
		if tickReading(t) == specfmt.ReadByTool.String() {
			if t.Unit.Format == specfmt.Speckit {
				notes = append(notes, "the raw line reads this box done (as an agent following spec-kit's prompts reads it); GitHub shows none")
			} else {
				notes = append(notes, "the format's own tool reads this box; GitHub shows none")
			}
		}
		if t.Kind == tick.KindNotRegular {
			notes = append(notes, t.Irregular)
		}
		if t.Unreadable != "" {
			notes = append(notes, "cannot be read: "+t.Unreadable)
		}
		note := strings.Join(notes, "; ")
		// Paths, IDs and notes come from the repository: escaped as in every text report
		// (docs/format.md#control-characters-in-reports).
		fmt.Fprintf(tw, "%s\t%s\t%s:%d\t%s\t%s\t%s\n", t.Kind, t.Commit[:12], printable.String(path), t.Line, printable.String(t.TaskID), t.LineHash[:min(12, len(t.LineHash))], printable.String(note))
	}
	return tw.Flush()
}
