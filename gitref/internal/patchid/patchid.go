// Package patchid identifies changes the way a reviewer compares them: the
// patch `git diff-tree -p` prints for a commit or between two trees, hashed
// without what depends on the base (blob ids, line numbers), as a whole
// (Of: a commit's change, or a range's taken together, to compare with a
// cherry-pick or a squash merge) or file by file (Files). The patch is the git
// program's, run on the repository with LC_ALL=C; an error matches
// gitobj.gitobj.ErrGitProgram when it cannot run.
package patchid

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
)

// Of is the identity of `git diff-tree -p` of commits (one: its change
// against its first parent; two: from the first's tree to the second's): the
// SHA-256 of the patch without the lines that depend on the base (blob ids in
// "index" lines, line numbers in "@@" headers), whitespace kept; "" for an
// empty patch. gitDir is the repository's git dir.
func Of(gitDir string, commits ...gitobj.Hash) (string, error) {
	args := []string{"diff-tree", "-p", "--no-color", "--no-ext-diff", "--no-textconv", "--no-commit-id"}
	for _, c := range commits {
		if _, err := gitobj.ParseHash(string(c)); err != nil {
			return "", err
		}
		args = append(args, string(c))
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%w: %v", gitobj.ErrGitProgram, err)
	}
	diff := exec.Command(git, args...)
	diff.Env = append(os.Environ(), "GIT_DIR="+gitDir, "LC_ALL=C")
	patch, err := diff.Output()
	if err != nil {
		return "", fmt.Errorf("%w: git %s: %v", gitobj.ErrGitProgram, strings.Join(args, " "), err)
	}
	if len(bytes.TrimSpace(patch)) == 0 {
		return "", nil
	}
	h := sha256.New()
	for _, line := range bytes.SplitAfter(patch, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("index ")) || bytes.HasPrefix(line, []byte("@@")) {
			continue
		}
		h.Write(line)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Files identifies, file by file, the change from commit a's tree to commit
// b's: path → the SHA-256 of the lines `git diff-tree -p -U0` shows for the
// file, without the lines that say where (hunk headers, line numbers) or name
// blobs (index lines; kept for a binary file, whose content the patch does not
// show). gitDir is the repository's git dir.
func Files(gitDir string, a, b gitobj.Hash) (map[string]string, error) {
	for _, c := range []gitobj.Hash{a, b} {
		if _, err := gitobj.ParseHash(string(c)); err != nil {
			return nil, err
		}
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", gitobj.ErrGitProgram, err)
	}
	args := []string{"-c", "core.quotePath=true", "diff-tree", "-r", "-p", "-U0", "--no-renames", "--full-index",
		"--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", string(a), string(b)}
	diff := exec.Command(git, args...)
	diff.Env = append(os.Environ(), "GIT_DIR="+gitDir, "LC_ALL=C")
	patch, err := diff.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: git diff-tree -p -U0 %s %s: %v", gitobj.ErrGitProgram, a, b, err)
	}
	return fileSections(patch)
}

// fileSections splits a patch into its files' sections and identifies each
// (see Files).
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
			return "", fmt.Errorf("%w: a diff header git wrote cannot be read: %q", gitobj.ErrGitProgram, h)
		}
		p, err := strconv.Unquote(h[:end+1])
		if err != nil || !strings.HasPrefix(p, "a/") {
			return "", fmt.Errorf("%w: a diff header git wrote cannot be read: %q", gitobj.ErrGitProgram, h)
		}
		return p[2:], nil
	}
	// a/P b/P: P's length is half of what is left without "a/" and " b/".
	n := len(h) - len("a/") - len(" b/")
	if n < 0 || n%2 != 0 || !strings.HasPrefix(h, "a/") {
		return "", fmt.Errorf("%w: a diff header git wrote cannot be read: %q", gitobj.ErrGitProgram, h)
	}
	return h[2 : 2+n/2], nil
}
