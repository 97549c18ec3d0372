package specfmt

import (
	"fmt"
	pathpkg "path"
	"strings"
)

// ReadToolFile reads a file of the tree a path is classified in: its content
// and true, or false when nothing is at path. An error is returned for what
// is there but cannot be read as a regular file (a symbolic link or submodule
// on the way, a file over [MaxToolConfig]).
type ReadToolFile func(path string) (content []byte, found bool, err error)

// ToolTasksFile reports why path, a Markdown file that no unit layout claims
// ([Layouts.Classify] gives no unit), is a file the project's own tool reads
// tasks from as its configuration says at the tree read reads
// (docs/format.md#tasks-files-a-tool-configures), and "" when it is not.
// taskproof does not read those tasks as a unit's: the caller treats the file
// as an unrecognized tasks file, so a box ticked in it fails the gate, named
// with this reason.
//
//   - OpenSpec: a Markdown file in a change's directory
//     (openspec/changes/<id>/…, openspec/changes/archive/<id>/…) other than its
//     tasks.md, when the change's schema may track it: the schema is named by
//     the change's .openspec.yaml, else openspec/config.yaml (or .yml), else
//     "spec-driven"; it is read at openspec/schemas/<name>/schema.yaml (the
//     project's schemas win over the tool's, as in OpenSpec), and tracks only
//     tasks.md when its apply.tracks is "tasks.md". The built-in
//     "spec-driven" does. Any other schema — tracking another file, naming no
//     apply.tracks, or not in the repository (a user's schema) — or a
//     configuration taskproof cannot read, may track it.
//   - BMAD: a story file (its name a story key) at or under a directory the
//     project's _bmad/bmm/config.yaml names for stories (implementation_artifacts,
//     sprint_artifacts, dev_story_location, {output_folder}/implementation-artifacts)
//     or .bmad-core/core-config.yaml's devStoryLocation; anywhere in the tree
//     when such a configuration file cannot be read.
func ToolTasksFile(path string, read ReadToolFile) string {
	if !strings.HasSuffix(path, ".md") || IsTasksFileName(pathpkg.Base(path)) {
		return ""
	}
	if why := openSpecTracked(path, read); why != "" {
		return why
	}
	return bmadStory(path, read)
}

// openSpecTracked is ToolTasksFile's OpenSpec half.
func openSpecTracked(path string, read ReadToolFile) string {
	el := strings.Split(path, "/")
	if len(el) < 4 || el[0] != "openspec" || el[1] != "changes" {
		return ""
	}
	change := el[:3]
	if el[2] == "archive" {
		if len(el) < 5 {
			return ""
		}
		change = el[:4]
	}
	dir := strings.Join(change, "/")
	scalar := func(file string, keys ...string) (string, bool, string) {
		b, found, err := read(file)
		if err != nil {
			return "", false, fmt.Sprintf("OpenSpec's %s cannot be read (%v)", file, err)
		}
		if !found {
			return "", false, ""
		}
		v, ok, err := yamlScalar(b, keys...)
		if err != nil {
			return "", false, fmt.Sprintf("OpenSpec's %s cannot be read (%v)", file, err)
		}
		return v, ok, ""
	}
	name, ok, why := scalar(dir+"/.openspec.yaml", "schema")
	for _, cfg := range []string{"openspec/config.yaml", "openspec/config.yml"} {
		if ok || why != "" {
			break
		}
		name, ok, why = scalar(cfg, "schema")
	}
	if why != "" {
		return why
	}
	if !ok {
		name = "spec-driven"
	}
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".yml")
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\:`) {
		return fmt.Sprintf("change %s names the OpenSpec schema %q, which taskproof cannot resolve", dir, name)
	}
	schema := "openspec/schemas/" + name + "/schema.yaml"
	b, found, err := read(schema)
	switch {
	case err != nil:
		return fmt.Sprintf("OpenSpec schema %s cannot be read (%v)", schema, err)
	case !found && name == "spec-driven":
		return "" // OpenSpec's own schema tracks tasks.md
	case !found:
		return fmt.Sprintf("change %s uses the OpenSpec schema %q, which is not in the repository (%s): the files it tracks cannot be known", dir, name, schema)
	}
	tracks, ok, err := yamlScalar(b, "apply", "tracks")
	switch {
	case err != nil:
		return fmt.Sprintf("OpenSpec schema %s cannot be read (%v)", schema, err)
	case !ok:
		return fmt.Sprintf("OpenSpec schema %s names no apply.tracks: the file it tracks cannot be known", schema)
	case tracks != "tasks.md":
		return fmt.Sprintf("OpenSpec schema %s tracks %q, and taskproof judges a change's tasks.md only: track tasks.md, or ignore the path in the verifier's policy ([unit_paths] ignore)", schema, tracks)
	}
	return ""
}

// bmadConfigs are BMAD's configuration files and the keys naming where its
// stories are, v6 first.
var bmadConfigs = []struct {
	file string
	keys []string
}{
	{"_bmad/bmm/config.yaml", []string{"implementation_artifacts", "sprint_artifacts", "dev_story_location"}},
	{".bmad-core/core-config.yaml", []string{"devStoryLocation"}},
}

// bmadStory is ToolTasksFile's BMAD half.
func bmadStory(path string, read ReadToolFile) string {
	name := pathpkg.Base(path)
	if !storyKey("-")(name) && !storyKey(".")(name) {
		return ""
	}
	for _, c := range bmadConfigs {
		dirs, err := bmadStoryDirs(c.file, c.keys, read)
		if err != nil {
			return fmt.Sprintf("BMAD's %s cannot be read (%v): a story file anywhere may be one its workflows tick", c.file, err)
		}
		for _, d := range dirs {
			if strings.HasPrefix(path, d+"/") {
				return fmt.Sprintf("BMAD's %s puts stories in %s, which no unit layout covers: add [[units]] format = \"bmad\" tasks = \"%s/*.md\" to the verifier's policy", c.file, d, d)
			}
		}
	}
	return ""
}

// bmadStoryDirs are the story directories file names (repository-relative,
// clean): each key's value with {project-root} and {output_folder} resolved,
// and {output_folder}/implementation-artifacts, BMAD v6's default. A value
// that does not resolve to a clean path is an error.
func bmadStoryDirs(file string, keys []string, read ReadToolFile) ([]string, error) {
	b, found, err := read(file)
	if err != nil || !found {
		return nil, err
	}
	resolve := func(v, output string) (string, error) {
		s := strings.ReplaceAll(v, "{project-root}", "")
		if output != "" {
			s = strings.ReplaceAll(s, "{output_folder}", output)
		}
		s = strings.Trim(strings.TrimPrefix(s, "./"), "/")
		if s == "" || strings.ContainsAny(s, "{}\\") || pathpkg.Clean(s) != s || s == "." || strings.HasPrefix(s, "..") {
			return "", fmt.Errorf("%q is no path in the repository", v)
		}
		return s, nil
	}
	var dirs []string
	out, ok, err := yamlScalar(b, "output_folder")
	if err != nil {
		return nil, err
	}
	if ok {
		if out, err = resolve(out, ""); err != nil {
			return nil, fmt.Errorf("output_folder %w", err)
		}
		dirs = append(dirs, out+"/implementation-artifacts")
	}
	for _, k := range keys {
		v, ok, err := yamlScalar(b, k)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		d, err := resolve(v, out)
		if err != nil {
			return nil, fmt.Errorf("%s %w", k, err)
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}
