package specfmt

import (
	"fmt"
	"io/fs"
	"strings"
)

// UnitForTasksPath returns the unit whose tasks file is at path (repository-relative,
// '/'-separated, as git names it), and false when path is not a unit's tasks file
// (SPEC §1). The recognised paths are exactly:
//
//	specs/<feature>/tasks.md                      speckit, Dir "specs/<feature>"
//	.specify/specs/<feature>/tasks.md             speckit, Dir ".specify/specs/<feature>"
//	openspec/changes/<id>/tasks.md                openspec, Dir "openspec/changes/<id>" (id ≠ "archive")
//	openspec/changes/archive/<id>/tasks.md        openspec, Dir "openspec/changes/archive/<id>"
//	.kiro/specs/<name>/tasks.md                   kiro, Dir ".kiro/specs/<name>"
//
// Feature is Dir's last element. Any other tasks.md (templates, nested copies) is not
// a unit, nor is a path that is not clean (empty, ".", ".." elements, a leading or
// doubled '/', a backslash).
func UnitForTasksPath(path string) (Unit, bool) {
	if !fs.ValidPath(path) || strings.Contains(path, `\`) {
		return Unit{}, false
	}
	el := strings.Split(path, "/")
	if el[len(el)-1] != "tasks.md" {
		return Unit{}, false
	}
	dirEl := el[:len(el)-1]
	var f Format
	switch {
	case len(dirEl) == 2 && dirEl[0] == "specs":
		f = Speckit
	case len(dirEl) == 3 && dirEl[0] == ".specify" && dirEl[1] == "specs":
		f = Speckit
	case len(dirEl) == 3 && dirEl[0] == "openspec" && dirEl[1] == "changes" && dirEl[2] != "archive":
		f = OpenSpec
	case len(dirEl) == 4 && dirEl[0] == "openspec" && dirEl[1] == "changes" && dirEl[2] == "archive":
		f = OpenSpec
	case len(dirEl) == 3 && dirEl[0] == ".kiro" && dirEl[1] == "specs":
		f = Kiro
	default:
		return Unit{}, false
	}
	return Unit{Format: f, Feature: dirEl[len(dirEl)-1], Dir: strings.Join(dirEl, "/")}, true
}

// validate checks that u names a known format and a clean directory.
func (u Unit) validate() error {
	switch u.Format {
	case Speckit, OpenSpec, Kiro:
	default:
		return fmt.Errorf("%w %q", ErrUnknownFormat, u.Format)
	}
	if u.Dir == "." || !fs.ValidPath(u.Dir) || strings.Contains(u.Dir, `\`) {
		return fmt.Errorf("%w: dir %q is not a clean repository-relative path", ErrInvalidUnit, u.Dir)
	}
	return nil
}
