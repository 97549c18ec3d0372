package gitconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/refs"
)

// Want is one setting `taskproof init` needs in the repository's config
// (the repository-local file, $GIT_COMMON_DIR/config).
type Want struct {
	// Key is "section.name" or "section.subsection.name" (e.g.
	// "remote.origin.fetch", "notes.rewrite.rebase"); the subsection may hold dots.
	Key string
	// Value is the value wanted.
	Value string
	// Multi marks a multi-valued key (remote.*.fetch, notes.rewriteRef): Value is
	// added unless Satisfied (or, when Satisfied is nil, an equal value) is already
	// there; the other values are kept. Otherwise the key's last value (the one git
	// uses) must equal Value, booleans compared as git reads them ("yes", "on", "1"
	// are true), and a value is added after it when it does not.
	Multi bool
	// Satisfied, when not nil, decides whether the key's current values (in file
	// order, nil when none) already give what is wanted.
	Satisfied func(values []string) bool
	// Replaces lists values of a multi-valued key that Value supersedes (what an
	// earlier version of the tool wrote): each is removed, and Value added unless
	// already Satisfied.
	Replaces []string
}

// Change is one change Ensure made (or would make, on a dry run).
type Change struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Old is the value that was in effect for a single-valued key ("" when unset);
	// empty for a value added to a multi-valued key.
	Old string `json:"old,omitempty"`
	// Added is true for a value added to a multi-valued key.
	Added bool `json:"added"`
	// Replaced is the superseded value (Want.Replaces) removed ("" when
	// none; several are joined by " ").
	Replaced string `json:"replaced,omitempty"`
}

// Ensure makes the repository's own config file ($GIT_COMMON_DIR/config)
// hold every want, and returns the changes, in the order of wants; wants already
// satisfied give none (so a second run changes nothing). With dryRun the file is
// not written.
//
// The file is read and written by the git program (`git config --file`), which
// keeps every line the user wrote, comments included, and replaces the file
// under git's lock protocol. Each change is one run of git: a run stopped
// half-way leaves some of the changes made, and running it again makes the
// rest. Errors wrap ErrConfig, and ErrLocked when the lock file is held.
func (c *Config) Ensure(wants []Want, dryRun bool) ([]Change, error) {
	commonDir := c.commonDir
	values := map[string][]string{} // by canonical key: the file's values as the edits leave them
	var changes []Change
	var edits [][]string // git config arguments, after --file
	for _, w := range wants {
		section, sub, name, err := SplitKey(w.Key)
		if err != nil || !validConfigName(section, true) || !validConfigName(name, false) {
			return nil, fmt.Errorf("%w: bad key %q", ErrConfig, w.Key)
		}
		if strings.ContainsAny(w.Value, "\n\x00") || strings.ContainsAny(sub, "\n\x00") {
			return nil, fmt.Errorf("%w: %s: a value or subsection cannot hold a newline or NUL", ErrConfig, w.Key)
		}
		k := CanonicalKey(w.Key)
		vs, ok := values[k]
		if !ok {
			if vs, err = c.LocalValues(w.Key); err != nil {
				return nil, err
			}
		}
		ch := Change{Key: w.Key, Value: w.Value, Added: w.Multi}
		if w.Multi {
			var replaced []string
			for _, old := range w.Replaces {
				if slices.Contains(vs, old) {
					vs = slices.DeleteFunc(vs, func(v string) bool { return v == old })
					edits = append(edits, []string{"--fixed-value", "--unset-all", w.Key, old})
					replaced = append(replaced, old)
				}
			}
			ch.Replaced = strings.Join(replaced, " ")
		}
		values[k] = vs
		switch {
		case ch.Replaced != "" && ((w.Satisfied != nil && w.Satisfied(vs)) || (w.Satisfied == nil && slices.Contains(vs, w.Value))):
			ch.Added = false
			changes = append(changes, ch)
			continue
		case w.Satisfied != nil && w.Satisfied(vs):
			continue
		case w.Satisfied == nil && w.Multi && slices.Contains(vs, w.Value):
			continue
		case w.Satisfied == nil && !w.Multi && len(vs) > 0 && sameConfigValue(vs[len(vs)-1], w.Value):
			continue
		}
		if !w.Multi && len(vs) > 0 {
			ch.Old = vs[len(vs)-1]
		}
		values[k] = append(vs, w.Value)
		edits = append(edits, []string{"--add", w.Key, w.Value})
		changes = append(changes, ch)
	}
	if dryRun {
		return changes, nil
	}
	for _, e := range edits {
		if _, err := gitConfigFile(commonDir, e...); err != nil {
			return nil, err
		}
	}
	return changes, nil
}

// LocalValues returns every value of key in the repository's own config
// file ($GIT_COMMON_DIR/config, the one Ensure edits), in file order.
// Errors wrap ErrConfig.
func (c *Config) LocalValues(key string) ([]string, error) {
	commonDir := c.commonDir
	if _, _, _, err := SplitKey(key); err != nil {
		return nil, fmt.Errorf("%w: bad key %q", ErrConfig, key)
	}
	if _, err := os.Stat(filepath.Join(commonDir, "config")); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	out, err := gitConfigFile(commonDir, "-z", "--get-all", key)
	var ge *exec.ExitError
	if errors.As(err, &ge) && ge.ExitCode() == 1 {
		return nil, nil // the key is not set
	}
	if err != nil {
		return nil, err
	}
	var vs []string
	for _, v := range strings.SplitAfter(string(out), "\x00") {
		if v != "" {
			vs = append(vs, strings.TrimSuffix(v, "\x00"))
		}
	}
	return vs, nil
}

// gitConfigFile runs `git config --file $GIT_COMMON_DIR/config args…` and
// returns its output. A failure wraps ErrConfig (and the *exec.ExitError),
// ErrLocked when git found the lock file held, and is a storage error (gitref.ErrStorage) when
// the system refused the write.
func gitConfigFile(commonDir string, args ...string) ([]byte, error) {
	path := filepath.Join(commonDir, "config")
	cmd := exec.Command("git", append([]string{"config", "--file", path}, args...)...)
	cmd.Dir = commonDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		return out, nil
	}
	msg := strings.TrimSpace(stderr.String())
	var ge *exec.ExitError
	if !errors.As(err, &ge) {
		return nil, fmt.Errorf("%w: running git config (git is required): %w", ErrConfig, err)
	}
	lock := path + ".lock"
	switch {
	case strings.Contains(msg, "File exists"):
		return nil, fmt.Errorf("%w: %s exists (another git process is writing the config; remove it if none is): %w", ErrConfig, lock, refs.ErrLocked)
	case strings.Contains(msg, "Read-only file system"):
		return nil, gitobj.StorageFault(fmt.Errorf("%w: creating %s: %w", ErrConfig, lock, &os.PathError{Op: "open", Path: lock, Err: syscall.EROFS}), "")
	case strings.Contains(msg, "Permission denied"):
		return nil, gitobj.StorageFault(fmt.Errorf("%w: creating %s: %w", ErrConfig, lock, &os.PathError{Op: "open", Path: lock, Err: syscall.EACCES}), "")
	case strings.Contains(msg, "No space left on device"):
		return nil, gitobj.StorageFault(fmt.Errorf("%w: writing %s: %w", ErrConfig, path, &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}), "")
	}
	// git does not always say why ("failed to write new configuration file
	// <config>.lock"): a trial write beside the config finds the system's
	// error.
	if perr := gitobj.ProbeWrite(commonDir); perr != nil {
		if se, ok := gitobj.StorageFault(perr, "").(*gitobj.StorageError); ok {
			se.Err = fmt.Errorf("%w: git config %s: %s\na trial write in %s: %w", ErrConfig, strings.Join(args, " "), msg, commonDir, perr)
			return nil, se
		}
	}
	return nil, fmt.Errorf("%w: git config %s: %s: %w", ErrConfig, strings.Join(args, " "), msg, err)
}

// sameConfigValue compares two config values, booleans as git reads them.
func sameConfigValue(a, b string) bool {
	if a == b {
		return true
	}
	ba, oka := gitBool(a)
	bb, okb := gitBool(b)
	return oka && okb && ba == bb
}

// gitBool parses a value as git's --type=bool does.
func gitBool(v string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0", "":
		return false, true
	}
	return false, false
}

// validConfigName reports whether s is a valid section (dots allowed only for
// the legacy form, which is never written) or variable name: alphanumerics and
// '-', a variable starting with a letter.
func validConfigName(s string, section bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case (c >= '0' && c <= '9') || c == '-':
			if !section && i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
