package gitref

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/taskproof/taskproof/gitref/internal/refs"
)

// Errors of ref updates.
var (
	// ErrRefChanged: a compare-and-swap ref update found the ref at another
	// value than expected (someone else moved it).
	ErrRefChanged = refs.ErrRefChanged
	// ErrLocked: a ref's lock file ($GIT_COMMON_DIR/<ref>.lock) stayed in
	// place. The message says when it is older than the stale age, which
	// usually means a writer crashed; taskproof never deletes a lock it did
	// not create — remove it by hand once no git or taskproof process is
	// running.
	ErrLocked = refs.ErrLocked
)

// validRefName applies git's check-ref-format rules to a full ref name under refs/.
func validRefName(name string) bool { return refs.ValidName(name) }

// refDir is the directory holding ref name: per-worktree refs stay in the
// worktree's git dir, all others are in the common dir.
func (r *Repo) refDir(name string) string { return refs.Dir(r.gitDir, r.commonDir, name) }

// readRef is refs.Read as a Hash.
func readRef(dir, name string) (Hash, error) {
	id, err := refs.Read(dir, name)
	return Hash(id), err
}

// readRefValue is refs.ReadValue with the id as a Hash.
func readRefValue(dir, name string) (Hash, string, error) {
	id, target, err := refs.ReadValue(dir, name)
	return Hash(id), target, err
}

// ReadRef returns the commit id ref name points to, "" when the ref does not
// exist. A loose ref file wins over packed-refs, as in git.
func (r *Repo) ReadRef(name string) (Hash, error) {
	if !validRefName(name) {
		return "", fmt.Errorf("%w: %q", ErrBadRefName, name)
	}
	return readRef(r.refDir(name), name)
}

// listRefs returns every ref under refs/ that names an object, by name (see
// refs.List).
func (r *Repo) listRefs() (map[string]Hash, error) {
	m, err := refs.List(r.gitDir, r.commonDir)
	out := make(map[string]Hash, len(m))
	for k, v := range m {
		out[k] = Hash(v)
	}
	return out, err
}

// logUpdate appends the move of ref name from old ("" for a new ref) to new
// to its reflog, $GIT_DIR/logs/<name>, while the ref's lock is held, as git
// does for refs/notes/ (and refs/heads/, refs/remotes/): when the log exists,
// or core.logAllRefUpdates is "always", or it is true (the default in a
// repository with a work tree) and the ref is under one of those prefixes.
// The entry is git's: "<old> <new> <ident> <unix time> <zone>\t<message>", the
// ident taskproof's identity. Writing the log is best effort: git itself
// moves a ref whose log it cannot write, with a warning.
func (r *Repo) logUpdate(name string, old, new Hash, msg string) {
	path := filepath.Join(r.refDir(name), "logs", filepath.FromSlash(name))
	if _, err := os.Stat(path); err != nil {
		r.logsOnce.Do(func() {
			r.logsMode = "false"
			if r.workTree != "" {
				r.logsMode = "true"
			}
			if v, ok, err := r.configValue("core.logAllRefUpdates"); err == nil && ok {
				r.logsMode = strings.ToLower(v)
			}
		})
		mode := r.logsMode
		logged := mode == "always" || ((mode == "true" || mode == "yes" || mode == "on" || mode == "1") &&
			(strings.HasPrefix(name, "refs/notes/") || strings.HasPrefix(name, "refs/heads/") || strings.HasPrefix(name, "refs/remotes/")))
		if !logged {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return
		}
	}
	if old == "" {
		old = Hash(strings.Repeat("0", 40))
	}
	now := time.Now()
	line := fmt.Sprintf("%s %s %s <%s> %d %s\t%s\n", old, new, identity.Name, identity.Email, now.Unix(), now.Format("-0700"), msg)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return
	}
	f.WriteString(line)
	f.Close()
}

// testHookBeforeLock, when set (by tests), is called after a notes update's
// objects are written and before the ref is locked.
var testHookBeforeLock func()

// SetRef moves ref name from old to new by compare-and-swap under git's lock
// protocol ($GIT_COMMON_DIR/<name>.lock created with O_EXCL, new id written,
// renamed over the ref). old "" means the ref must not exist yet. A ref found
// at another value gives an error wrapping ErrRefChanged; a ref held only in
// packed-refs is read from there and updated by writing the loose ref. A
// write the file system refuses matches ErrStorage. Another writer's lock
// is waited for up to 30 s; one older than 10 s is reported as stale (and
// never deleted).
func (r *Repo) SetRef(name string, old, new Hash) error {
	return r.setRefLocked(name, old, new, refs.LockOptions{})
}

// setRefLocked is SetRef with opts bounding the wait for other writers' locks.
func (r *Repo) setRefLocked(name string, old, new Hash, opts refs.LockOptions) error {
	return storageFault(r.setRef(name, old, new, opts), name)
}

func (r *Repo) setRef(name string, old, new Hash, opts refs.LockOptions) error {
	if !validRefName(name) {
		return fmt.Errorf("%w: %q", ErrBadRefName, name)
	}
	if _, err := ParseHash(string(new)); err != nil {
		return err
	}
	if _, err := r.peelToCommit(toPlumbing(new)); err != nil {
		return fmt.Errorf("setting %s: %w", name, err)
	}
	lock, err := refs.Acquire(r.refDir(name), name, opts)
	if err != nil {
		return err
	}
	cur, err := readRef(r.refDir(name), name)
	if err != nil {
		lock.Release()
		return err
	}
	if cur != old {
		lock.Release()
		return fmt.Errorf("%w: %s is at %q, expected %q", ErrRefChanged, name, cur, old)
	}
	r.logUpdate(name, old, new, "taskproof: update")
	return lock.Commit(string(new))
}
