package gitref

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Errors of ref updates.
var (
	// ErrRefChanged: a compare-and-swap ref update found the ref at another
	// value than expected (someone else moved it).
	ErrRefChanged = errors.New("ref changed concurrently")
	// ErrLocked is wrapped by LockError: the ref's lock file is held.
	ErrLocked = errors.New("ref is locked")
)

// LockError reports a ref lock file ($GIT_COMMON_DIR/<ref>.lock) that stayed in
// place: Stale is true when it is older than the store's stale age, which
// usually means a writer crashed; taskproof never deletes a lock it did not
// create — remove it by hand once no git or taskproof process is running.
type LockError struct {
	Path  string        // the lock file
	Age   time.Duration // how old the lock file is
	Stale bool          // older than the stale age
}

func (e *LockError) Error() string {
	if e.Stale {
		return fmt.Sprintf("lock file %s is %s old, left by a crashed writer? remove it if no git process is running", e.Path, e.Age.Round(time.Second))
	}
	return fmt.Sprintf("lock file %s is held by another writer (waited, still %s old)", e.Path, e.Age.Round(time.Millisecond))
}

// Unwrap returns ErrLocked.
func (e *LockError) Unwrap() error { return ErrLocked }

// LockOptions bound how long a ref update waits for another writer's lock.
type LockOptions struct {
	// StaleAge: a lock file older than this is reported as stale (a *LockError),
	// never deleted. Default 10 s.
	StaleAge time.Duration
	// Timeout: the longest a writer waits for locks held by others. Default 30 s.
	Timeout time.Duration
}

func (o LockOptions) withDefaults() LockOptions {
	if o.StaleAge <= 0 {
		o.StaleAge = 10 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	return o
}

// validRefName applies git's check-ref-format rules to a full ref name under refs/.
func validRefName(name string) bool {
	if !strings.HasPrefix(name, "refs/") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") {
		return false
	}
	for _, c := range []byte(name) {
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	for _, el := range strings.Split(name, "/") {
		if el == "" || strings.HasPrefix(el, ".") || strings.HasSuffix(el, ".lock") {
			return false
		}
	}
	return true
}

// refDir is the directory holding ref name: per-worktree refs stay in the
// worktree's git dir, all others are in the common dir.
func (r *Repo) refDir(name string) string {
	for _, p := range []string{"refs/bisect/", "refs/worktree/", "refs/rewritten/"} {
		if strings.HasPrefix(name, p) {
			return r.gitDir
		}
	}
	return r.commonDir
}

// ReadRef returns the commit id ref name points to, "" when the ref does not
// exist. A loose ref file wins over packed-refs, as in git.
func (r *Repo) ReadRef(name string) (Hash, error) {
	if !validRefName(name) {
		return "", fmt.Errorf("%w: %q", ErrBadRefName, name)
	}
	return readRef(r.refDir(name), name)
}

func readRef(dir, name string) (Hash, error) {
	id, target, err := readRefValue(dir, name)
	if err == nil && target != "" {
		p := filepath.Join(dir, filepath.FromSlash(name))
		return "", badRef(name, p, "ref: "+target, "a symbolic ref (refusing to follow it)")
	}
	return id, err
}

// readRefValue reads ref name's loose file, else its packed-refs line: the
// object id of a plain ref, or the target of a symbolic ref ("ref: <target>";
// packed refs are never symbolic). Both are "" when the ref does not exist.
func readRefValue(dir, name string) (id Hash, target string, err error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	b, err := os.ReadFile(p)
	switch {
	case err == nil:
		s := strings.TrimRight(string(b), "\n")
		if t, ok := strings.CutPrefix(s, "ref:"); ok {
			return "", strings.TrimSpace(t), nil
		}
		h, err := ParseHash(s)
		if err != nil {
			return "", "", badRef(name, p, s, "not an object id")
		}
		return h, "", nil
	case errors.Is(err, os.ErrNotExist):
	default:
		// A directory in the ref's place (refs/notes/speccoder/…) means no such ref.
		if fi, serr := os.Stat(p); serr == nil && fi.IsDir() {
			return "", "", nil
		}
		return "", "", fmt.Errorf("reading ref %s: %w", name, err)
	}
	id, err = readPackedRef(dir, name)
	return id, "", err
}

// listRefs returns every ref under refs/ that names an object, by name:
// the loose refs of the common dir (and a linked worktree's own refs/bisect/,
// refs/worktree/ and refs/rewritten/), then packed-refs for the names no loose
// file holds, as git lists them. Files whose names are no ref names are not
// refs and are skipped, as git skips them: another writer's lock
// (refs/heads/main.lock while git commits, refs/notes/speccoder.lock left by
// a killed writer, possibly empty). Symbolic refs are skipped (their target
// is listed); a ref file holding neither is a *BadRefError.
func (r *Repo) listRefs() (map[string]Hash, error) {
	out := map[string]Hash{}
	var walk func(dir, name string, own func(string) bool) error
	walk = func(dir, name string, own func(string) bool) error {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(name)))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("listing refs: %w", err)
		}
		for _, e := range entries {
			full := name + "/" + e.Name()
			if e.IsDir() {
				if err := walk(dir, full, own); err != nil {
					return err
				}
				continue
			}
			if !validRefName(full) || !own(full) {
				continue
			}
			id, target, err := readRefValue(dir, full)
			if err != nil {
				return err
			}
			if target == "" && id != "" {
				out[full] = id
			}
		}
		return nil
	}
	perWorktree := func(name string) bool { return r.refDir(name) == r.gitDir }
	if err := walk(r.commonDir, "refs", func(name string) bool { return r.gitDir == r.commonDir || !perWorktree(name) }); err != nil {
		return nil, err
	}
	if r.gitDir != r.commonDir {
		if err := walk(r.gitDir, "refs", perWorktree); err != nil {
			return nil, err
		}
	}
	var bad error
	err := packedRefs(r.commonDir, func(name, id string) bool {
		if _, loose := out[name]; loose || !validRefName(name) {
			return true
		}
		h, err := ParseHash(id)
		if err != nil {
			bad = badRef(name, filepath.Join(r.commonDir, "packed-refs"), id, "not an object id")
			return false
		}
		out[name] = h
		return true
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// readPackedRef looks name up in dir/packed-refs.
func readPackedRef(dir, name string) (Hash, error) {
	var found Hash
	var bad error
	err := packedRefs(dir, func(ref, id string) bool {
		if ref != name {
			return true
		}
		h, err := ParseHash(id)
		if err != nil {
			bad = badRef(name, filepath.Join(dir, "packed-refs"), id, "not an object id")
		}
		found = h
		return false
	})
	if err == nil {
		err = bad
	}
	return found, err
}

// packedRefs calls fn with the name and object id of each ref
// dir/packed-refs lists (peeled "^" lines skipped), in file order, until fn
// returns false.
func packedRefs(dir string, fn func(name, id string) bool) error {
	f, err := os.Open(filepath.Join(dir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading packed-refs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		if id, ref, ok := strings.Cut(line, " "); ok && !fn(ref, id) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading packed-refs: %w", err)
	}
	return nil
}

// refLock is a held <ref>.lock file (git's lock protocol).
type refLock struct {
	path, target string
	f            *os.File
}

// lockRef creates dir/<name>.lock with O_CREATE|O_EXCL, waiting (with jittered
// exponential backoff) while another writer holds it. A lock older than
// opts.StaleAge, or one still held after opts.Timeout, is a *LockError.
func lockRef(dir, name string, opts LockOptions) (*refLock, error) {
	opts = opts.withDefaults()
	target := filepath.Join(dir, filepath.FromSlash(name))
	path := target + ".lock"
	if err := os.MkdirAll(filepath.Dir(target), 0o777); err != nil {
		return nil, fmt.Errorf("creating directory for ref %s: %w", name, err)
	}
	deadline := time.Now().Add(opts.Timeout)
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return &refLock{path: path, target: target, f: f}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("creating lock file %s: %w", path, err)
		}
		fi, serr := os.Stat(path)
		if serr != nil {
			continue // released between our open and stat: try again at once
		}
		age := time.Since(fi.ModTime())
		if age > opts.StaleAge {
			return nil, &LockError{Path: path, Age: age, Stale: true}
		}
		if time.Now().After(deadline) {
			return nil, &LockError{Path: path, Age: age}
		}
		time.Sleep(wait/2 + rand.N(wait/2+1))
		if wait < 64*time.Millisecond {
			wait *= 2
		}
	}
}

// commit writes id to the lock file and renames it over the ref (git's protocol:
// readers see the old or the new value, never a partial one).
func (l *refLock) commit(id Hash) error {
	if _, err := l.f.WriteString(string(id) + "\n"); err != nil {
		l.release()
		return fmt.Errorf("writing lock file %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		l.release()
		return fmt.Errorf("syncing lock file %s: %w", l.path, err)
	}
	if err := l.f.Close(); err != nil {
		os.Remove(l.path)
		return fmt.Errorf("closing lock file %s: %w", l.path, err)
	}
	if testHookBeforeRename != nil {
		testHookBeforeRename()
	}
	if err := os.Rename(l.path, l.target); err != nil {
		os.Remove(l.path)
		return fmt.Errorf("moving %s over %s: %w", l.path, l.target, err)
	}
	return nil
}

// logUpdate appends the move of ref name from old ("" for a new ref) to new
// to its reflog, $GIT_DIR/logs/<name>, while the ref's lock is held, as git
// does for refs/notes/ (and refs/heads/, refs/remotes/): when the log exists,
// or core.logAllRefUpdates is "always", or it is true (the default in a
// repository with a work tree) and the ref is under one of those prefixes.
// The entry is git's: "<old> <new> <ident> <unix time> <zone>\t<message>", the
// ident taskproof's [Identity]. Writing the log is best effort: git itself
// moves a ref whose log it cannot write, with a warning.
func (r *Repo) logUpdate(name string, old, new Hash, msg string) {
	path := filepath.Join(r.refDir(name), "logs", filepath.FromSlash(name))
	if _, err := os.Stat(path); err != nil {
		r.logsOnce.Do(func() {
			r.logsMode = "false"
			if r.workTree != "" {
				r.logsMode = "true"
			}
			if v, ok, err := r.ConfigValue("core.logAllRefUpdates"); err == nil && ok {
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
	line := fmt.Sprintf("%s %s %s <%s> %d %s\t%s\n", old, new, Identity.Name, Identity.Email, now.Unix(), now.Format("-0700"), msg)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return
	}
	f.WriteString(line)
	f.Close()
}

// release drops the lock without changing the ref.
func (l *refLock) release() {
	l.f.Close()
	os.Remove(l.path)
}

// Test hooks: called after objects are written and before the ref moves (a
// crash there must leave the old ref readable).
var (
	testHookBeforeLock   func()
	testHookBeforeRename func()
)

// SetRef moves ref name from old to new by compare-and-swap under git's lock
// protocol ($GIT_COMMON_DIR/<name>.lock created with O_EXCL, new id written,
// renamed over the ref). old "" means the ref must not exist yet. A ref found
// at another value gives an error wrapping ErrRefChanged; a ref held only in
// packed-refs is read from there and updated by writing the loose ref. A
// write the file system refuses is a *StorageError.
func (r *Repo) SetRef(name string, old, new Hash, opts LockOptions) error {
	return storageFault(r.setRef(name, old, new, opts), name)
}

func (r *Repo) setRef(name string, old, new Hash, opts LockOptions) error {
	if !validRefName(name) {
		return fmt.Errorf("%w: %q", ErrBadRefName, name)
	}
	if _, err := ParseHash(string(new)); err != nil {
		return err
	}
	if _, err := r.peelToCommit(new.plumbing()); err != nil {
		return fmt.Errorf("setting %s: %w", name, err)
	}
	lock, err := lockRef(r.refDir(name), name, opts)
	if err != nil {
		return err
	}
	cur, err := readRef(r.refDir(name), name)
	if err != nil {
		lock.release()
		return err
	}
	if cur != old {
		lock.release()
		return fmt.Errorf("%w: %s is at %q, expected %q", ErrRefChanged, name, cur, old)
	}
	r.logUpdate(name, old, new, "taskproof: update")
	return lock.commit(new)
}
