package gitref

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// TreePaths lists, sorted, every '/'-separated path whose entry differs
// between the trees of commits a and b: added, modified and deleted files
// (a rename is its old and its new path). It reads the trees only, and is the
// cheap first look of a comparison of two changes ([Repo.FileChanges]).
func (r *Repo) TreePaths(a, b Hash) ([]string, error) {
	ta, err := r.rootTree(a)
	if err != nil {
		return nil, err
	}
	tb, err := r.rootTree(b)
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(ta, tb)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", a, b, err)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range changes {
		for _, name := range []string{c.From.Name, c.To.Name} {
			if name != "" && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func (r *Repo) rootTree(c Hash) (*object.Tree, error) {
	id, err := r.commitTree(c)
	if err != nil {
		return nil, err
	}
	return r.tree(id)
}

// FileChanges identifies, file by file, the change from commit a's tree to
// commit b's: path → the SHA-256 of the lines `git diff-tree -p -U0` shows
// for the file, without the lines that say where (hunk headers, line numbers)
// or name blobs (index lines; kept for a binary file, whose content the
// patch does not show). What a file's change is: the lines it loses and
// gains, in order, whitespace included, its mode and whether it is added or
// deleted — not the lines around them, so the same change applied to a base
// that changed other lines nearby is the same. It runs the git program (an
// error matching ErrGitProgram when it cannot).
func (r *Repo) FileChanges(a, b Hash) (map[string]string, error) {
	for _, c := range []Hash{a, b} {
		if _, err := ParseHash(string(c)); err != nil {
			return nil, err
		}
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrGitProgram, err)
	}
	args := []string{"-c", "core.quotePath=true", "diff-tree", "-r", "-p", "-U0", "--no-renames", "--full-index",
		"--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", string(a), string(b)}
	diff := exec.Command(git, args...)
	diff.Env = append(os.Environ(), "GIT_DIR="+r.gitDir, "LC_ALL=C")
	patch, err := diff.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: git diff-tree -p -U0 %s %s: %v", ErrGitProgram, a, b, err)
	}
	return fileSections(patch)
}

// fileSections splits a patch into its files' sections and identifies each
// (see [Repo.FileChanges]).
func fileSections(patch []byte) (map[string]string, error) {
	out := map[string]string{}
	var name string
	var section [][]byte
	flush := func() {
		if name == "" {
			return
		}
		binary := false
		for _, l := range section {
			binary = binary || bytes.HasPrefix(l, []byte("Binary files "))
		}
		h := sha256.New()
		for _, l := range section {
			if bytes.HasPrefix(l, []byte("@@")) || (!binary && bytes.HasPrefix(l, []byte("index "))) {
				continue
			}
			h.Write(l)
		}
		out[name] = hex.EncodeToString(h.Sum(nil))
	}
	for _, l := range bytes.SplitAfter(patch, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if header, ok := bytes.CutPrefix(l, []byte("diff --git ")); ok {
			flush()
			p, err := headerPath(strings.TrimSuffix(string(header), "\n"))
			if err != nil {
				return nil, err
			}
			name, section = p, nil
		}
		section = append(section, l)
	}
	flush()
	return out, nil
}

// headerPath is the path a "diff --git a/P b/P" header names (renames are
// off, so both halves name it), unquoted when git quoted it.
func headerPath(h string) (string, error) {
	if strings.HasPrefix(h, `"`) {
		// "a/P" "b/P", each C-quoted: the first half is a Go-readable
		// quoted string up to its closing quote.
		end := 1
		for end < len(h) && h[end] != '"' {
			if h[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(h) {
			return "", fmt.Errorf("%w: a diff header git wrote cannot be read: %q", ErrGitProgram, h)
		}
		p, err := strconv.Unquote(h[:end+1])
		if err != nil || !strings.HasPrefix(p, "a/") {
			return "", fmt.Errorf("%w: a diff header git wrote cannot be read: %q", ErrGitProgram, h)
		}
		return p[2:], nil
	}
	// a/P b/P: P's length is half of what is left without "a/" and " b/".
	n := len(h) - len("a/") - len(" b/")
	if n < 0 || n%2 != 0 || !strings.HasPrefix(h, "a/") {
		return "", fmt.Errorf("%w: a diff header git wrote cannot be read: %q", ErrGitProgram, h)
	}
	return h[2 : 2+n/2], nil
}
