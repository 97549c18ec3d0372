// Package gitref is taskproof's git layer: it opens repositories, resolves
// revisions, reads commits, trees and files, keeps the notes store that holds
// attestations (docs/format.md#storage) and finds the ticks of tasks files in a commit range
// (docs/format.md#units-and-task-lines, docs/format.md#gate-rules).
//
// gitref is the only taskproof package that imports go-git. It exposes a small
// porcelain built on go-git's plumbing: object ids are lowercase hex strings
// ([Hash]), and files are read through [Repo.File] or the io/fs view [Repo.FS].
// How objects are read is tuned by one [Open] option, [Access]. The machinery
// is in internal packages: objstore (the object store: a pool of go-git
// storages with their own pack readers, loose objects, decoded commits),
// packidx and packstore (pack indexes read in place, pack files and the
// object cache), refs (loose and packed refs under git's lock protocol, short
// names resolved in git's order), gitconfig (git's configuration, read as git
// reads it and written through `git config`), rawtree and treefs (raw tree
// objects, the io/fs view), rangewalk and trailer (the commits of a range,
// commit message trailers), patchid (patch identities), notesync (the notes
// tree and notes shared between clones) and gitobj (the object id and errors
// they share).
//
// A Repo is safe for concurrent use by several goroutines (see [Repo]); the
// notes store's compare-and-swap makes concurrent writers — goroutines sharing a
// Repo, several Repos, or several processes — safe.
package gitref

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskproof/taskproof/gitref/gitconfig"
	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/objstore"
	"github.com/taskproof/taskproof/gitref/internal/refs"
)

// Sentinel errors. Use errors.Is; the errors returned wrap them with the
// directory, revision or ref concerned.
var (
	// ErrNotRepository: the directory is not inside a git work tree, linked
	// worktree or bare repository.
	ErrNotRepository = errors.New("not a git repository")
	// ErrUnsupportedRepository: the repository uses a format go-git cannot read
	// (SHA-256 object ids, the reftable ref backend).
	ErrUnsupportedRepository = gitobj.ErrUnsupportedRepository
	// ErrUnknownRevision: a revision does not name a commit of the repository.
	ErrUnknownRevision = refs.ErrUnknownRevision
	// ErrBadRange: a range expression is not "REV", "A..B" or "..B"/"A..".
	ErrBadRange = errors.New("bad revision range")
	// ErrNotFound: a path does not exist in a commit's tree, or an object is absent.
	ErrNotFound = gitobj.ErrNotFound
	// ErrBadRefName: a ref name is not a valid name under refs/.
	ErrBadRefName = errors.New("bad ref name")
	// ErrTooLarge: a blob over a size limit (notes are limited to 4 MiB:
	// docs/format.md#limits); the message names the object, its size and
	// the limit.
	ErrTooLarge = gitobj.ErrTooLarge
	// ErrConfig is wrapped by errors of reading git's configuration (a file
	// that cannot be read or parsed, a `git config` that fails, an include
	// that cannot be followed) and of editing the repository's own config
	// file (gitconfig.Config.Ensure: the file cannot be read or written, or
	// a wanted key is not a valid config key).
	ErrConfig = gitconfig.ErrConfig
)

// Hash is a git object id as lowercase hex (40 characters for SHA-1). The empty
// Hash means "none" (no parent, ref absent). h.IsZero() reports the empty
// Hash; h.String() is its hex form.
type Hash = gitobj.Hash

// ParseHash validates s as a full lowercase hex SHA-1 object id.
func ParseHash(s string) (Hash, error) { return gitobj.ParseHash(s) }

func isLowerHex(s string) bool { return gitobj.IsLowerHex(s) }

func fromPlumbing(h plumbing.Hash) Hash { return gitobj.FromPlumbing(h) }

func toPlumbing(h Hash) plumbing.Hash { return gitobj.ToPlumbing(h) }

// Repo is an open repository. Close it when done: it keeps its pack files open
// for speed.
//
// A Repo is safe for concurrent use by several goroutines: every method may be
// called concurrently with any other, except Close. Its objects are read
// through a pool of go-git storages, each used by one goroutine at a time
// (gitref/internal/objstore says how).
type Repo struct {
	gitDir    string // the repository's (or linked worktree's) git dir
	commonDir string // $GIT_COMMON_DIR: objects, shared refs, packed-refs
	workTree  string // "" for a bare repository

	store   *objstore.Store      // objects, read through a pool of go-git storages
	commits objstore.CommitCache // decoded commits (see commit)

	shallowOnce   sync.Once
	shallow       map[plumbing.Hash]bool                    // the shallow clone's edge (see shallowSet)
	shallowListed bool                                      // .git/shallow lists commits
	damage        atomic.Pointer[gitobj.MissingObjectError] // see Intact

	// Read once from the repository's config, for the errors and writes
	// that ask again and again: the promisor remote of a partial clone
	// (promisorRemote), whether a ref without a log gets one (logsRef).
	promisorOnce sync.Once
	promisor     string
	logsOnce     sync.Once
	logsMode     string

	// Facts of commits, which never change, for a range carry that asks
	// them once to check every pair and again to carry it: PatchID by
	// commit, IsAncestor by pair.
	patchIDs  sync.Map // Hash → string
	ancestors sync.Map // [2]Hash → bool
}

// errClosed is returned by a Repo used after Close.
var errClosed = objstore.ErrClosed

// Open opens the repository containing dir: dir may be anywhere inside a work
// tree, a linked worktree (`git worktree add`), a bare repository or a .git
// directory. It returns an error wrapping ErrNotRepository when there is none,
// and ErrUnsupportedRepository for SHA-256 or reftable repositories, which
// go-git v5 cannot read. An Access, when given, tunes how the Repo reads
// objects; the zero Access suits most commands.
func Open(dir string, access ...Access) (*Repo, error) {
	gitDir, workTree, err := discover(dir)
	if err != nil {
		return nil, err
	}
	commonDir, err := commonDirOf(gitDir)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(commonDir); err != nil {
		return nil, err
	}
	store, err := objstore.Open(gitDir, commonDir, workTree)
	if err != nil {
		return nil, err
	}
	r := &Repo{gitDir: gitDir, commonDir: commonDir, workTree: workTree, store: store}
	for _, a := range access {
		r.apply(a)
	}
	return r, nil
}

// Close releases the repository's open files. The Repo must not be used after;
// methods called after Close return an error.
func (r *Repo) Close() error {
	if r == nil {
		return nil
	}
	return r.store.Close()
}

// WorkTree is the work tree's root, "" for a bare repository.
func (r *Repo) WorkTree() string { return r.workTree }

// discover finds the git dir for dir the way git does: walking up from dir, a
// ".git" directory or "gitdir:" file, or a directory that is itself a git dir.
func discover(dir string) (gitDir, workTree string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %v", ErrNotRepository, dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return "", "", fmt.Errorf("%w: %s: %v", ErrNotRepository, dir, err)
	}
	for d := abs; ; {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() && isGitDir(dotgit) {
				return dotgit, d, nil
			}
			if fi.Mode().IsRegular() {
				g, err := readGitFile(dotgit)
				if err != nil {
					return "", "", err
				}
				return g, d, nil
			}
		}
		if isGitDir(d) {
			return d, "", nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", fmt.Errorf("%w: %s (or any of its parents)", ErrNotRepository, abs)
		}
		d = parent
	}
}

// isGitDir reports whether d looks like a git directory: HEAD, objects/, refs/.
func isGitDir(d string) bool {
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if _, err := os.Stat(filepath.Join(d, "commondir")); err == nil {
		return true // a linked worktree's git dir: objects and refs are in the common dir
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readGitFile reads a ".git" file ("gitdir: <path>") of a linked worktree or
// submodule.
func readGitFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("%w: reading %s: %v", ErrNotRepository, p, err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	g, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", fmt.Errorf("%w: %s does not start with \"gitdir:\"", ErrNotRepository, p)
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(filepath.Dir(p), g)
	}
	if !isGitDir(g) {
		return "", fmt.Errorf("%w: %s points to %s, which is not a git directory", ErrNotRepository, p, g)
	}
	return filepath.Clean(g), nil
}

// commonDirOf reads gitDir/commondir (linked worktrees); gitDir itself otherwise.
func commonDirOf(gitDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, os.ErrNotExist) {
		return gitDir, nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: reading %s/commondir: %v", ErrNotRepository, gitDir, err)
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c), nil
}

// checkFormat refuses repositories go-git v5 cannot read correctly: SHA-256
// object ids (extensions.objectFormat) and reftable refs (extensions.refStorage).
func checkFormat(commonDir string) error {
	f, err := os.Open(filepath.Join(commonDir, "config"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("reading repository config: %w", err)
	}
	defer f.Close()
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			line = strings.TrimSpace(line[end+1:])
		}
		if (section != "extensions" && section != "core") || line == "" {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.ToLower(strings.Trim(strings.TrimSpace(v), `"`))
		if section == "core" {
			if k == "repositoryformatversion" && v != "" && v != "0" && v != "1" {
				return fmt.Errorf("%w: %s has core.repositoryFormatVersion %s; git and taskproof read versions 0 and 1", ErrUnsupportedRepository, commonDir, v)
			}
			continue
		}
		switch {
		case k == "objectformat" && v != "" && v != "sha1":
			return fmt.Errorf("%w: %s uses %s object ids (extensions.objectFormat); taskproof's git layer (go-git v5) reads SHA-1 repositories only",
				ErrUnsupportedRepository, commonDir, v)
		case k == "refstorage" && v != "" && v != "files":
			return fmt.Errorf("%w: %s uses the %s ref backend (extensions.refStorage); only the files backend is supported",
				ErrUnsupportedRepository, commonDir, v)
		}
	}
	return sc.Err()
}
