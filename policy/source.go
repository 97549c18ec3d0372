package policy

import (
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
)

// Source names where the verifier's policy comes from: a file
// the caller gives, or a file read from a revision the caller names (e.g. the
// base branch, "origin/main:.taskproof/policy.toml") — never the head being
// verified. Neither: the embedded default policy.
type Source struct {
	// File is a policy file (--policy).
	File string
	// Rev is "REV:PATH": a policy file read from git (--policy-rev).
	Rev string
}

// LoadSource loads the policy src names, or returns the embedded default when
// src is empty. A policy read from git records the commit it was read from
// ([Policy.Commit]): a verify.Verifier refuses to verify that commit with it
// (verify.FromVerifiedError). Errors match ErrPolicy (unreadable, invalid,
// both sources given), or are git's for an unknown REV.
func LoadSource(repo *gitref.Repo, src Source) (*Policy, error) {
	p, _, err := LoadSourceRef(repo, src)
	return p, err
}

// LoadSourceRef is [LoadSource], also returning the full ref REV resolved
// through ("" for a file, the default policy or a commit id). REV is resolved
// as [gitref.Repo.ResolveTrusted] resolves it: a tag, or another remote's ref,
// does not stand in for a branch (docs/format.md#ambiguous-ref-names).
func LoadSourceRef(repo *gitref.Repo, src Source) (*Policy, string, error) {
	switch {
	case src.File != "" && src.Rev != "":
		return nil, "", &Error{File: src.File, Msg: "give a policy file or one read from git (REV:PATH), not both"}
	case src.File != "":
		p, err := Load(src.File)
		return p, "", err
	case src.Rev != "":
		rev, path, ok := strings.Cut(src.Rev, ":")
		if !ok || rev == "" || path == "" {
			return nil, "", &Error{File: src.Rev, Msg: "policy from git: want REV:PATH"}
		}
		c, ref, err := repo.ResolveTrusted(rev)
		if err != nil {
			return nil, "", err
		}
		b, err := repo.File(c, path)
		if err != nil {
			return nil, "", &Error{File: src.Rev, Msg: fmt.Sprintf("cannot read at %s: %v", c, err)}
		}
		p, err := ParseFromCommit(b, src.Rev, string(c))
		return p, ref, err
	}
	return Default(), "", nil
}
