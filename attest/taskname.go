package attest

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// A task is named on the command line (attest tick --task, attest decide
// --task) by its ID, or by its title or the start of it: a task without a
// written ID (most OpenSpec and many Kiro tasks) has only an ID derived from
// its title (h-af3edcd914ac), which nobody types (docs/format.md#naming-a-task).

// namedTask is a task a name can pick: its ID and its title.
type namedTask struct{ id, title string }

// resolveTaskNames turns the names given for tasks into task IDs among
// tasks, in order, each once. A name is, in this order: the ID of a task;
// the title of tasks of one ID; the start of the title (case folded) of
// tasks of one ID; or IDs separated by commas (`--task T001,T002`). A name
// whose title or start matches tasks of several IDs is an [ErrRequest]
// naming them; a name that matches nothing is returned as it is, for the
// caller to say the task is not there.
func resolveTaskNames(names []string, tasks []namedTask) ([]string, error) {
	var out []string
	add := func(id string) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, name := range names {
		ids, err := resolveTaskName(name, tasks)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 && strings.Contains(name, ",") {
			var parts []string
			for _, p := range strings.Split(name, ",") {
				if p = strings.TrimSpace(p); p != "" && hasID(tasks, p) {
					parts = append(parts, p)
				}
			}
			if len(parts) == strings.Count(name, ",")+1 {
				ids = parts
			}
		}
		if len(ids) == 0 {
			ids = []string{name}
		}
		for _, id := range ids {
			add(id)
		}
	}
	return out, nil
}

func hasID(tasks []namedTask, id string) bool {
	return slices.ContainsFunc(tasks, func(t namedTask) bool { return t.id == id })
}

// resolveOneTask is the ID a decision's task name picks among tasks
// ([resolveTaskNames]); name itself when it picks none.
func resolveOneTask(name string, tasks []namedTask) (string, error) {
	ids, err := resolveTaskName(name, tasks)
	if err != nil || len(ids) == 0 {
		return strings.TrimSpace(name), err
	}
	return ids[0], nil
}

// resolveTaskName is the ID name picks (see [resolveTaskNames]); nil when it
// picks none.
func resolveTaskName(name string, tasks []namedTask) ([]string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, fmt.Errorf("%w: an empty task name", ErrRequest)
	}
	if hasID(tasks, name) {
		return []string{name}, nil
	}
	for _, match := range []func(title string) bool{
		func(title string) bool { return title == name },
		func(title string) bool { return hasFoldPrefix(title, name) },
	} {
		var ids []string
		var which []string
		for _, t := range tasks {
			if match(t.title) && !slices.Contains(ids, t.id) {
				ids = append(ids, t.id)
				which = append(which, fmt.Sprintf("%s %q", t.id, t.title))
			}
		}
		switch {
		case len(ids) == 1:
			return ids, nil
		case len(ids) > 1:
			return nil, fmt.Errorf("%w: task name %q matches %d tasks (%s): give more of the title, or the ID", ErrRequest, name, len(ids), strings.Join(which, ", "))
		}
	}
	return nil, nil
}

// hasFoldPrefix reports whether s starts with prefix, case folded.
func hasFoldPrefix(s, prefix string) bool {
	for prefix != "" {
		if s == "" {
			return false
		}
		r1, n1 := utf8.DecodeRuneInString(s)
		r2, n2 := utf8.DecodeRuneInString(prefix)
		if r1 != r2 && !strings.EqualFold(string(r1), string(r2)) {
			return false
		}
		s, prefix = s[n1:], prefix[n2:]
	}
	return true
}

// taskList names tasks for a message: the ID, and the title too for a task
// whose ID is derived from it.
func taskList(tasks []namedTask) string {
	var out []string
	for _, t := range tasks {
		s := t.id
		if strings.HasPrefix(t.id, "h-") && t.title != "" {
			s = fmt.Sprintf("%s %q", t.id, t.title)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}
