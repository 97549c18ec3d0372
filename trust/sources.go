package trust

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/taskproof/taskproof/gitref"
)

// Kinds of [SourceRev]: the input a REV:PATH names.
const (
	SourceAllowedSigners = "allowed signers" // [Sources].AllowedSignersRev
	SourcePolicy         = "policy"          // policy.Source.Rev
)

// SourceRev is a trust or policy input read from a commit: Rev is "REV:PATH" as
// given, Commit what REV resolved to, Kind SourceAllowedSigners or SourcePolicy.
// [LoadTrust] and policy.LoadSource record it; a verify.Verifier refuses to verify it.
type SourceRev struct {
	Kind   string
	Rev    string
	Commit gitref.Hash
}

// Sources name where the verifier's trust comes from
// (docs/format.md#choices-where-the-brief-leaves-room, "Trust and policy come
// from outside what is verified"): files the caller gives, a file read from a
// revision the caller names (e.g. the base branch), or git's
// gpg.ssh.allowedSignersFile — never the head being verified.
type Sources struct {
	// AllowedSigners is an allowed signers file (git's format).
	AllowedSigners string
	// AllowedSignersRev is "REV:PATH": an allowed signers file read from git.
	AllowedSignersRev string
	// Keyrings are OpenPGP public keyring files (armored or binary).
	Keyrings []string
	// RawKeys are PEM public key files.
	RawKeys []string
	// NoGitConfig skips git's gpg.ssh.allowedSignersFile fallback.
	NoGitConfig bool
	// Sigstore trust (docs/format.md#note-lines), used when TrustedRoot or
	// SigstorePublicGood is set: see [SigstoreOptions].
	TrustedRoot        string // --trusted-root FILE
	SigstorePublicGood bool   // --sigstore-public-good (TUF: network on first use)
	CertIdentity       string // --certificate-identity (exact)
	CertIdentityRegexp string // --certificate-identity-regexp (anchored)
	CertOIDCIssuer     string // --certificate-oidc-issuer (exact)
	// SigstoreTlogThreshold and SigstoreTimestampThreshold: nil means the
	// defaults (1 and 0); a tlog threshold of 0 is accepted (as
	// SigstoreOptions.TlogThresholdZeroUnsafe) only when given explicitly.
	SigstoreTlogThreshold      *int
	SigstoreTimestampThreshold *int
}

// explicit reports whether src names any trust input of its own.
func (src Sources) explicit() bool {
	return src.AllowedSigners != "" || src.AllowedSignersRev != "" || len(src.Keyrings) > 0 || len(src.RawKeys) > 0 ||
		src.TrustedRoot != "" || src.SigstorePublicGood
}

// LoadTrust builds the verifier's [Trust] from src, reading git's
// gpg.ssh.allowedSignersFile only when src names no trust input at all: a
// verifier who names their trust gets that trust and nothing a git
// configuration adds (docs/format.md#trust-from-gits-configuration). Trust
// never comes from the work tree being verified: a trust file the checked-out
// head holds is refused ([CheckOutsideWorkTree]; [LoadTrustUnsafe] reads it),
// and so is a configured allowed signers file that is relative or lies inside
// the work tree. It returns the descriptions of the
// inputs used (for reports). Errors match [ErrTrust]; no input at all is
// [ErrNoTrust].
func LoadTrust(repo *gitref.Repo, src Sources) (*Trust, []string, error) {
	if err := CheckOutsideWorkTree(repo, src); err != nil {
		return nil, nil, err
	}
	return LoadTrustUnsafe(repo, src)
}

// LoadTrustUnsafe is [LoadTrust] without [CheckOutsideWorkTree]: it reads
// trust files the head being verified holds. For callers that verify nothing
// of the work tree's head with it (audit's view of a history, the signatures
// of an envelope carried from elsewhere).
func LoadTrustUnsafe(repo *gitref.Repo, src Sources) (*Trust, []string, error) {
	var opts []Option
	var used []string
	var revs []SourceRev
	as, desc, rev, err := loadAllowedSignersInput(repo, src)
	if err != nil {
		return nil, nil, err
	}
	if as != nil {
		opts = append(opts, WithAllowedSigners(as))
		used = append(used, desc)
	}
	if rev != nil {
		revs = append(revs, *rev)
	}
	for _, k := range src.Keyrings {
		kr, err := LoadKeyring(k)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, WithKeyring(kr))
		used = append(used, "keyring "+k)
	}
	for _, k := range src.RawKeys {
		rk, err := LoadRawKey(k)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, WithRawKeys(rk))
		used = append(used, "key "+k)
	}
	sg, desc, err := loadSigstore(src)
	if err != nil {
		return nil, nil, err
	}
	if sg != nil {
		// A trusted root without a certificate identity serves only the
		// bundles signed with a trusted raw key; alone it would trust nobody.
		if sg.identityOpt == nil && len(src.RawKeys) == 0 {
			return nil, nil, fmt.Errorf("%w: a trusted root without a certificate identity trusts no signer: give --certificate-identity (or --certificate-identity-regexp) with --certificate-oidc-issuer, or --key for bundles signed with a key", ErrSigstoreOptions)
		}
		opts = append(opts, WithSigstore(sg))
		used = append(used, desc)
	}
	if len(opts) == 0 {
		return nil, nil, fmt.Errorf("%w: give an allowed signers file (or one read from git as REV:PATH, or git's gpg.ssh.allowedSignersFile), an OpenPGP keyring, a PEM public key or Sigstore trust", ErrNoTrust)
	}
	t, err := NewTrust(opts...)
	if errors.Is(err, ErrNoTrust) {
		// Inputs were given, and hold no key: say so, not that none was given.
		verb := "holds"
		if len(used) > 1 {
			verb = "hold"
		}
		return nil, nil, fmt.Errorf("%w: %s %s no keys: nothing could verify (an allowed signers line is PRINCIPALS KEYTYPE BASE64-KEY)", ErrTrust, strings.Join(used, ", "), verb)
	}
	if err != nil {
		return nil, nil, err
	}
	t.revs = revs
	return t, used, nil
}

// loadAllowedSignersInput reads the one allowed signers file src names: a
// file, a file read from git (rev records the commit), or git's
// gpg.ssh.allowedSignersFile when src names no trust input and not
// NoGitConfig (absolute and outside the work tree). It returns nil when none
// is given or configured, and desc describes the input for reports.
func loadAllowedSignersInput(repo *gitref.Repo, src Sources) (as *AllowedSigners, desc string, rev *SourceRev, err error) {
	switch {
	case src.AllowedSigners != "" && src.AllowedSignersRev != "":
		return nil, "", nil, fmt.Errorf("%w: give an allowed signers file or one read from git (REV:PATH), not both", ErrTrust)
	case src.AllowedSigners != "":
		as, err := LoadAllowedSigners(src.AllowedSigners)
		return as, "allowed signers " + src.AllowedSigners, nil, err
	case src.AllowedSignersRev != "":
		r, path, ok := strings.Cut(src.AllowedSignersRev, ":")
		if !ok || r == "" || path == "" {
			return nil, "", nil, fmt.Errorf("%w: allowed signers from git %q: want REV:PATH", ErrTrust, src.AllowedSignersRev)
		}
		c, ref, err := repo.ResolveTrusted(r)
		if err != nil {
			return nil, "", nil, err
		}
		b, err := repo.File(c, path)
		if err != nil {
			return nil, "", nil, fmt.Errorf("%w: allowed signers %s: %v", ErrTrust, src.AllowedSignersRev, err)
		}
		as, err := ParseAllowedSigners(b, src.AllowedSignersRev)
		if err != nil {
			return nil, "", nil, err
		}
		return as, "allowed signers " + src.AllowedSignersRev + " (" + through(ref, c) + ")", &SourceRev{Kind: SourceAllowedSigners, Rev: src.AllowedSignersRev, Commit: c}, nil
	case !src.NoGitConfig && !src.explicit():
		return loadConfiguredAllowedSigners(repo)
	}
	return nil, "", nil, nil
}

// loadConfiguredAllowedSigners reads git's gpg.ssh.allowedSignersFile, which
// must be absolute and outside the work tree: relative or inside, it would be
// the project's trust, chosen by the head being verified. Nil when unset.
func loadConfiguredAllowedSigners(repo *gitref.Repo) (*AllowedSigners, string, *SourceRev, error) {
	cfg, err := repo.Config()
	if err != nil {
		return nil, "", nil, fmt.Errorf("%w: %v", ErrTrust, err)
	}
	// Expanded as git expands the path ("~/…", "~user/…").
	p, ok, err := cfg.Path("gpg.ssh.allowedSignersFile")
	if err != nil {
		return nil, "", nil, fmt.Errorf("%w: %v", ErrTrust, err)
	}
	if !ok || p == "" {
		return nil, "", nil, nil
	}
	if !filepath.IsAbs(p) {
		return nil, "", nil, fmt.Errorf("%w: gpg.ssh.allowedSignersFile %q is relative, so it would be read from the work tree being verified; give an allowed signers file outside it, or one read from the base branch (REV:PATH)", ErrTrust, p)
	}
	if wt := repo.WorkTree(); wt != "" && within(p, wt) {
		return nil, "", nil, fmt.Errorf("%w: gpg.ssh.allowedSignersFile %s is inside the work tree being verified; read it from the base branch instead (REV:PATH)", ErrTrust, p)
	}
	as, err := LoadAllowedSigners(p)
	return as, "allowed signers " + p + " (gpg.ssh.allowedSignersFile)", nil, err
}

// within reports whether path p lies inside dir (after resolving symlinks where
// possible).
func within(p, dir string) bool {
	rel, err := filepath.Rel(resolvePath(dir), resolvePath(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !errors.Is(err, os.ErrNotExist)
}

// resolvePath is s with its symbolic links resolved, or cleaned when they
// cannot be.
func resolvePath(s string) string {
	if r, err := filepath.EvalSymlinks(s); err == nil {
		return r
	}
	return filepath.Clean(s)
}

// through names the commit a revision resolved to and the full ref it
// resolved through ("refs/remotes/origin/main at <id>"; the id alone for a
// commit id).
func through(ref string, c gitref.Hash) string {
	if ref == "" {
		return string(c)
	}
	return ref + " at " + string(c)
}

// HeldByHead reports whether the file at path p is a file of the checked-out
// head: it lies inside repo's work tree (symbolic links resolved) at a path
// HEAD's tree holds, or under a submodule HEAD pins, so the head being
// verified would choose it (docs/format.md#choices-where-the-brief-leaves-room,
// "Trust and policy come from outside what is verified"). A file the head does
// not hold there (a second checkout of the base branch in a subdirectory, a
// file CI wrote) is the verifier's. False for "" and for a bare repository.
func HeldByHead(repo *gitref.Repo, p string) bool {
	wt := repo.WorkTree()
	if wt == "" || p == "" {
		return false
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if !within(p, wt) {
		return false
	}
	head, err := repo.Resolve("HEAD")
	if err != nil {
		return true // no commit checked out to tell by: inside is the head's
	}
	rel, err := filepath.Rel(resolvePath(wt), resolvePath(p))
	if err != nil {
		return true
	}
	fsys, err := repo.FS(head)
	if err != nil {
		return true
	}
	// HEAD holds the file, or a submodule on its path: the head pins that
	// submodule's commit, so its files are the head's choice too.
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range parts {
		fi, err := fs.Stat(fsys, strings.Join(parts[:i+1], "/"))
		if err != nil {
			return false
		}
		if fi.Mode()&fs.ModeIrregular != 0 {
			return true
		}
	}
	return true
}

// OutsideWorkTreeFix is what an error of [CheckOutsideWorkTree] (and of a
// policy file the head holds) tells the verifier to do instead.
const OutsideWorkTreeFix = "give a file outside it, or read it from the base branch (REV:PATH)"

// CheckOutsideWorkTree returns an error naming the first trust input file in
// src — allowed signers, OpenPGP keyrings, public keys, Sigstore trusted root
// — that is a file of the checked-out head ([HeldByHead]): the head being
// verified would choose its own trust. It matches [ErrTrust]; nil for a bare
// repository. [LoadTrust] runs it first.
func CheckOutsideWorkTree(repo *gitref.Repo, src Sources) error {
	files := []struct{ what, path string }{{"allowed signers file", src.AllowedSigners}, {"trusted root", src.TrustedRoot}}
	for _, k := range src.Keyrings {
		files = append(files, struct{ what, path string }{"keyring", k})
	}
	for _, k := range src.RawKeys {
		files = append(files, struct{ what, path string }{"public key file", k})
	}
	for _, f := range files {
		if HeldByHead(repo, f.path) {
			return fmt.Errorf("%w: the %s %s is a file of the work tree being verified (HEAD holds it), so the head would choose its own trust; %s", ErrTrust, f.what, f.path, OutsideWorkTreeFix)
		}
	}
	return nil
}
