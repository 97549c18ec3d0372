package tick

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// markdownExts are the file name extensions GitHub renders as Markdown
// (its task lists as checkboxes), lower case.
var markdownExts = []string{".md", ".markdown", ".mdown", ".mdwn", ".mkd", ".mkdn", ".mkdown"}

// isMarkdownName reports whether a file name has a Markdown extension, in
// any letter case.
func isMarkdownName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return slices.Contains(markdownExts, ext)
}

// removedUnitFiles are the parent's unit tasks files (not unrecognized ones)
// that no pair keeps: the files a commit removes without moving them to a
// tasks file.
func removedUnitFiles(olds []tasksFile, pairs []filePair) []tasksFile {
	kept := make(map[string]bool, len(pairs))
	for _, pr := range pairs {
		kept[pr.old.path] = true
	}
	var gone []tasksFile
	for _, o := range olds {
		if !kept[o.path] && !o.unrecognized {
			gone = append(gone, o)
		}
	}
	return gone
}

// movedOut finds, among strays (Markdown files commit c adds that are no
// tasks files, the policy ignoring none of them), those that gone (unit
// tasks files of the parent p that c removes, paired with no tasks file)
// moved to: paired by the move rule ([tickCtx.pair]), each stray parsed as
// the removed file's format. Each pair is a KindMovedOut tick
// (docs/format.md#tasks-files, "Tasks files that leave"). A stray that
// cannot be read as a tasks file (over 4 MiB, not text, nested too deep)
// while a removed file is left unpaired is a KindMovedOut tick too, with
// Unreadable set: the gate cannot tell whether the tasks went there, so it
// fails closed. In a merge, a move another parent already has (the stray
// there, the removed file not) is that parent's, not the merge's.
func (tc *tickCtx) movedOut(c, p gitref.Link, gone, strays []tasksFile) ([]Tick, error) {
	// A removed file without tasks leaves none behind (an empty file's blob
	// is every empty file's).
	withTasks := gone[:0:0]
	for _, g := range gone {
		of, err := tc.parse(g)
		if err != nil {
			return nil, tasksFileErr("", g.path, err)
		}
		if len(of.tasks) > 0 {
			withTasks = append(withTasks, g)
		}
	}
	gone = withTasks
	var formats []specfmt.Format
	for _, g := range gone {
		if !slices.Contains(formats, g.unit.Format) {
			formats = append(formats, g.unit.Format)
		}
	}
	used := map[string]bool{}         // strays paired
	left := map[string]bool{}         // removed files paired
	unreadable := map[string]string{} // stray path → why it cannot be read
	var out []Tick
	base := Tick{Kind: KindMovedOut, Commit: c.ID, Parent: p.ID, Merge: len(c.Parents) > 1}
	for _, format := range formats {
		var olds, news []tasksFile
		for _, g := range gone {
			if g.unit.Format == format {
				olds = append(olds, g)
			}
		}
		for _, s := range strays {
			if used[s.path] || unreadable[s.path] != "" {
				continue
			}
			s.unit = strayUnit(format, s.path)
			why, err := tc.readStray(s)
			if err != nil {
				return nil, err
			}
			if why != "" {
				unreadable[s.path] = why
				continue
			}
			news = append(news, s)
		}
		pairs, _, err := tc.pair(olds, news)
		if err != nil {
			return nil, err
		}
		for _, pr := range pairs {
			used[pr.new.path], left[pr.old.path] = true, true
			t := base
			t.Path, t.OldPath, t.Unit, t.Root = pr.new.path, pr.old.path, pr.old.unit, pr.old.root
			out = append(out, t)
		}
	}
	if len(unreadable) > 0 {
		for _, g := range gone {
			if left[g.path] {
				continue
			}
			for _, s := range strays {
				if why := unreadable[s.path]; why != "" {
					t := base
					t.Path, t.OldPath, t.Unit, t.Root, t.Unreadable = s.path, g.path, g.unit, g.root, why
					out = append(out, t)
				}
			}
			break // one removed file names what could not be read
		}
	}
	if len(c.Parents) < 2 || len(out) == 0 {
		return out, nil
	}
	kept := out[:0]
	for _, t := range out {
		mine, err := tc.notYetMoved(c, p.ID, t.OldPath, t.Path)
		if err != nil {
			return nil, err
		}
		if mine {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

// notYetMoved reports whether no parent of the merge c other than p has the
// move of oldPath to newPath already (a regular file at newPath and none at
// oldPath): a merge bringing in a move another parent made does not make it.
func (tc *tickCtx) notYetMoved(c gitref.Link, p gitref.Hash, oldPath, newPath string) (bool, error) {
	for _, q := range c.Parents {
		if q == p {
			continue
		}
		fsys, err := tc.r.FS(q)
		if err != nil {
			return false, err
		}
		hasNew, err := regularAt(fsys, newPath)
		if err != nil {
			return false, err
		}
		hasOld, err := regularAt(fsys, oldPath)
		if err != nil {
			return false, err
		}
		if hasNew && !hasOld {
			return false, nil
		}
	}
	return true, nil
}

// regularAt reports whether fsys (a commit's tree) has a regular file at
// path.
func regularAt(fsys fs.FS, path string) (bool, error) {
	fi, err := fs.Stat(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return fi.Mode().IsRegular(), nil
}

// strayUnit is the unit a stray Markdown file at path is parsed as, to pair
// it with a removed tasks file of format: its directory's.
func strayUnit(format specfmt.Format, path string) specfmt.Unit {
	dir := parentDir(path)
	if dir == "" || strings.Contains(dir, `\`) {
		dir = "_" // the root, or a name specfmt refuses
	}
	return specfmt.Unit{Format: format, Feature: dir[strings.LastIndexByte(dir, '/')+1:], Dir: dir}
}

// readStray parses s as a tasks file of its unit into tc's parses, reading at
// most specfmt.MaxTasksFileSize bytes of it. why is what makes it unreadable
// as a tasks file ("" when it was read); err is a failure to read the
// repository.
func (tc *tickCtx) readStray(s tasksFile) (why string, err error) {
	k := parseKey{s.blob, s.unit}
	if _, ok := tc.parsed[k]; ok {
		return "", nil
	}
	b, err := tc.r.Blob(s.blob, gitref.BlobRead{Limit: specfmt.MaxTasksFileSize})
	if errors.Is(err, gitref.ErrTooLarge) {
		return specfmt.ErrNotText.Error(), nil
	}
	if err != nil {
		return "", err
	}
	p, err := parseTasks(s.unit, b)
	if err != nil {
		var tfe *TasksFileError
		if errors.As(tasksFileErr("", s.path, err), &tfe) {
			return err.Error(), nil
		}
		return "", err
	}
	if len(tc.parsed) >= parsedMax {
		clear(tc.parsed)
	}
	tc.parsed[k] = p
	return "", nil
}
