// Package refs reads and writes git refs as files under git's lock
// protocol: loose ref files, packed-refs, and <ref>.lock files created
// exclusively and renamed over the ref. Object ids are lowercase hex strings.
package refs

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

// Errors of refs.
var (
	// ErrRefChanged: a compare-and-swap ref update found the ref at another
	// value than expected (someone else moved it).
	ErrRefChanged = errors.New("ref changed concurrently")
	// ErrLocked is wrapped by LockError: the ref's lock file is held.
	ErrLocked = errors.New("ref is locked")
	// ErrBadRef is wrapped by BadRefError.
	ErrBadRef = errors.New("ref does not hold an object id")
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

// BadRefError reports a ref file (or packed-refs entry) that does not hold an
// object id. It matches ErrBadRef.
type BadRefError struct {
	Ref  string // the ref name
	Path string // the file it was read from
	Text string // what the file holds, cut to 60 bytes
	Why  string // e.g. "a symbolic ref (refusing to follow it)"
}

func (e *BadRefError) Error() string {
	// git refuses to update or delete a broken ref: the file goes first.
	return fmt.Sprintf("ref %s (%s) holds %q, %s: remove the file (`rm %s`), then set the ref again (`git update-ref %s <commit>`, or fetch it)",
		e.Ref, e.Path, e.Text, e.Why, e.Path, e.Ref)
}

// Unwrap returns ErrBadRef.
func (e *BadRefError) Unwrap() error { return ErrBadRef }

// Bad returns the BadRefError of ref name read from path holding text.
func Bad(name, path, text, why string) *BadRefError {
	if len(text) > 60 {
		text = text[:60] + "…"
	}
	return &BadRefError{Ref: name, Path: path, Text: text, Why: why}
}

// validID reports whether s is a full lowercase hex SHA-1 object id.
func validID(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ValidName applies git's check-ref-format rules to a full ref name under refs/.
func ValidName(name string) bool {
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

// Dir is the directory holding ref name: per-worktree refs stay in the
// worktree's git dir gitDir, all others are in the common dir commonDir.
func Dir(gitDir, commonDir, name string) string {
	for _, p := range []string{"refs/bisect/", "refs/worktree/", "refs/rewritten/"} {
		if strings.HasPrefix(name, p) {
			return gitDir
		}
	}
	return commonDir
}

// Read returns the object id ref name (in dir) holds, "" when the ref does not
// exist. A loose ref file wins over packed-refs, as in git; a symbolic ref
// is a *BadRefError (never followed).
func Read(dir, name string) (string, error) {
	id, target, err := ReadValue(dir, name)
	if err == nil && target != "" {
		p := filepath.Join(dir, filepath.FromSlash(name))
		return "", Bad(name, p, "ref: "+target, "a symbolic ref (refusing to follow it)")
	}
	return id, err
}

// ReadValue reads ref name's loose file, else its packed-refs line: the
// object id of a plain ref, or the target of a symbolic ref ("ref: <target>";
// packed refs are never symbolic). Both are "" when the ref does not exist.
func ReadValue(dir, name string) (id, target string, err error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	b, err := os.ReadFile(p)
	switch {
	case err == nil:
		s := strings.TrimRight(string(b), "\n")
		if t, ok := strings.CutPrefix(s, "ref:"); ok {
			return "", strings.TrimSpace(t), nil
		}
		if !validID(s) {
			return "", "", Bad(name, p, s, "not an object id")
		}
		return s, "", nil
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

// List returns every ref under refs/ that names an object, by name:
// the loose refs of the common dir (and a linked worktree's own refs/bisect/,
// refs/worktree/ and refs/rewritten/), then packed-refs for the names no loose
// file holds, as git lists them. Files whose names are no ref names are not
// refs and are skipped, as git skips them: another writer's lock
// (refs/heads/main.lock while git commits, refs/notes/speccoder.lock left by
// a killed writer, possibly empty). Symbolic refs are skipped (their target
// is listed); a ref file holding neither is a *BadRefError.
func List(gitDir, commonDir string) (map[string]string, error) {
	out := map[string]string{}
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
			if !ValidName(full) || !own(full) {
				continue
			}
			id, target, err := ReadValue(dir, full)
			if err != nil {
				return err
			}
			if target == "" && id != "" {
				out[full] = id
			}
		}
		return nil
	}
	perWorktree := func(name string) bool { return Dir(gitDir, commonDir, name) == gitDir }
	if err := walk(commonDir, "refs", func(name string) bool { return gitDir == commonDir || !perWorktree(name) }); err != nil {
		return nil, err
	}
	if gitDir != commonDir {
		if err := walk(gitDir, "refs", perWorktree); err != nil {
			return nil, err
		}
	}
	var bad error
	err := Packed(commonDir, func(name, id string) bool {
		if _, loose := out[name]; loose || !ValidName(name) {
			return true
		}
		if !validID(id) {
			bad = Bad(name, filepath.Join(commonDir, "packed-refs"), id, "not an object id")
			return false
		}
		out[name] = id
		return true
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// readPackedRef looks name up in dir/packed-refs.
func readPackedRef(dir, name string) (string, error) {
	var found string
	var bad error
	err := Packed(dir, func(ref, id string) bool {
		if ref != name {
			return true
		}
		if !validID(id) {
			bad = Bad(name, filepath.Join(dir, "packed-refs"), id, "not an object id")
			id = ""
		}
		found = id
		return false
	})
	if err == nil {
		err = bad
	}
	return found, err
}

// Packed calls fn with the name and object id of each ref
// dir/packed-refs lists (peeled "^" lines skipped), in file order, until fn
// returns false.
func Packed(dir string, fn func(name, id string) bool) error {
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

// Lock is a held <ref>.lock file (git's lock protocol).
type Lock struct {
	path, target string
	f            *os.File
}

// Acquire creates dir/<name>.lock with O_CREATE|O_EXCL, waiting (with jittered
// exponential backoff) while another writer holds it. A lock older than
// opts.StaleAge, or one still held after opts.Timeout, is a *LockError.
func Acquire(dir, name string, opts LockOptions) (*Lock, error) {
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
			return &Lock{path: path, target: target, f: f}, nil
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

// Commit writes id to the lock file and renames it over the ref (git's protocol:
// readers see the old or the new value, never a partial one).
func (l *Lock) Commit(id string) error {
	if _, err := l.f.WriteString(id + "\n"); err != nil {
		l.Release()
		return fmt.Errorf("writing lock file %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		l.Release()
		return fmt.Errorf("syncing lock file %s: %w", l.path, err)
	}
	if err := l.f.Close(); err != nil {
		os.Remove(l.path)
		return fmt.Errorf("closing lock file %s: %w", l.path, err)
	}
	if TestHookBeforeRename != nil {
		TestHookBeforeRename()
	}
	if err := os.Rename(l.path, l.target); err != nil {
		os.Remove(l.path)
		return fmt.Errorf("moving %s over %s: %w", l.path, l.target, err)
	}
	return nil
}

// Release drops the lock without changing the ref.
func (l *Lock) Release() {
	l.f.Close()
	os.Remove(l.path)
}

// TestHookBeforeRename, when set (by tests), is called after a lock file is
// written and before it is renamed over the ref: a crash there must leave the
// old ref readable.
var TestHookBeforeRename func()
