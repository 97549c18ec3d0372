package objstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	cfgformat "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/packidx"
)

// packSet is the repository's packs (objects/pack/pack-*.pack with their
// index), their indexes opened once per Repo and shared by the pool's
// handles. Safe for concurrent use.
type packSet struct {
	dir string // <common dir>/objects/pack

	mu     sync.Mutex
	listed bool
	stamp  packStamp
	packs  []*pack                 // as listed last
	byName map[plumbing.Hash]*pack // every pack opened
}

// pack is one pack of a packSet.
type pack struct {
	sum  plumbing.Hash // the pack's checksum, its name
	name string        // "objects/pack/pack-<sum>.pack", relative to the common dir
	idx  *packidx.Index
}

// list returns the packs, listing objects/pack first when it has not been
// listed or has changed since (see packStamp).
func (s *packSet) list(stamp func() packStamp) ([]*pack, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listed {
		return s.packs, nil
	}
	now := stamp()
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", s.dir, err)
	}
	names := make(map[string]bool, len(ents))
	for _, e := range ents {
		names[e.Name()] = true
	}
	var packs []*pack
	for _, e := range ents {
		stem, ok := strings.CutSuffix(e.Name(), ".pack")
		hexSum, isPack := strings.CutPrefix(stem, "pack-")
		if !ok || !isPack || !names[stem+".idx"] || len(hexSum) != 40 || !gitobj.IsLowerHex(hexSum) {
			continue // not a pack, or one still being written (its .idx comes last)
		}
		sum := plumbing.NewHash(hexSum)
		p := s.byName[sum]
		if p == nil {
			idx, err := packidx.Open(filepath.Join(s.dir, stem+".idx"), sum)
			if errors.Is(err, os.ErrNotExist) {
				continue // removed since the listing
			}
			if err != nil {
				return nil, err
			}
			p = &pack{sum: sum, name: "objects/pack/" + e.Name(), idx: idx}
			if s.byName == nil {
				s.byName = map[plumbing.Hash]*pack{}
			}
			s.byName[sum] = p
		}
		packs = append(packs, p)
	}
	s.packs, s.stamp, s.listed = packs, now, true
	return packs, nil
}

// relist makes the next list read objects/pack again, and reports whether
// that can change anything: false when objects/pack is, for sure, as it was
// when last listed.
func (s *packSet) relist(now packStamp) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listed && now.stable && s.stamp.stable && now.mod.Equal(s.stamp.mod) && now.size == s.stamp.size {
		return false
	}
	s.listed = false
	return true
}

// invalidate makes the next list read objects/pack again.
func (s *packSet) invalidate() {
	s.mu.Lock()
	s.listed = false
	s.mu.Unlock()
}

// handleStorer is a handle's go-git storage with objects read as Repo.object
// reads them (the Repo's packs first), for the go-git repository over it
// (revision parsing reads commits and tags).
type handleStorer struct {
	*filesystem.Storage
	s  *Store
	hd *handle
}

// readOnlyExtensions are the repository extensions (lower case, as go-git
// reads them) that change nothing for a reader of objects and refs:
// worktreeConfig (taskproof reads git's configuration through git itself, or
// its own reader, which follows config.worktree), preciousObjects (never
// delete objects: taskproof deletes none) and partialClone (objects may be
// missing: a missing object is a git precondition taskproof reports). go-git
// refuses every extension but noop when it opens a repository; these are
// hidden from it. objectFormat and refStorage are refused before
// (checkFormat); any other stays for go-git to refuse.
var readOnlyExtensions = map[string]bool{"worktreeconfig": true, "preciousobjects": true, "partialclone": true}

// Config is the repository's config with readOnlyExtensions hidden, and
// without the remote fetch refspecs go-git cannot parse (git's negative
// refspecs "^refs/heads/x", a source without destination "refs/heads/main"):
// taskproof fetches and pushes with the git program, which reads them, and
// go-git would refuse to open the repository over them.
func (s handleStorer) Config() (*config.Config, error) {
	cfg, err := s.Storage.Config()
	if errors.Is(err, config.ErrRefSpecMalformedSeparator) || errors.Is(err, config.ErrRefSpecMalformedWildcard) {
		cfg, err = s.lenientConfig()
	}
	if err != nil || cfg.Raw == nil || !cfg.Raw.HasSection("extensions") {
		return cfg, err
	}
	ext := cfg.Raw.Section("extensions")
	v0 := cfg.Core.RepositoryFormatVersion == "" || cfg.Core.RepositoryFormatVersion == "0"
	kept := ext.Options[:0:0]
	for _, o := range ext.Options {
		k, v := strings.ToLower(o.Key), strings.ToLower(o.Value)
		// git reads no extension of a format-0 repository (but the
		// read-only ones above); checkFormat refused object formats and ref
		// backends other than sha1 and files.
		if v0 || readOnlyExtensions[k] || (k == "objectformat" && v == "sha1") || (k == "refstorage" && v == "files") {
			continue
		}
		kept = append(kept, o)
	}
	ext.Options = kept
	return cfg, nil
}

// lenientConfig reads the repository's config file as go-git does, leaving
// out the remote fetch refspecs it cannot parse.
func (s handleStorer) lenientConfig() (*config.Config, error) {
	b, err := os.ReadFile(filepath.Join(s.s.commonDir, "config"))
	if err != nil {
		return nil, err
	}
	raw := cfgformat.New()
	if err := cfgformat.NewDecoder(bytes.NewReader(b)).Decode(raw); err != nil {
		return nil, err
	}
	if raw.HasSection("remote") {
		for _, sub := range raw.Section("remote").Subsections {
			kept := sub.Options[:0:0]
			for _, o := range sub.Options {
				if o.IsKey("fetch") && config.RefSpec(o.Value).Validate() != nil {
					continue
				}
				kept = append(kept, o)
			}
			sub.Options = kept
		}
	}
	var buf bytes.Buffer
	if err := cfgformat.NewEncoder(&buf).Encode(raw); err != nil {
		return nil, err
	}
	cfg := config.NewConfig()
	if err := cfg.Unmarshal(buf.Bytes()); err != nil {
		return nil, err
	}
	return cfg, nil
}

func (s handleStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	return s.s.objectWith(s.hd, t, h, 0)
}

func (s handleStorer) HasEncodedObject(h plumbing.Hash) error {
	_, err := s.s.objectWith(s.hd, plumbing.AnyObject, h, 0)
	return err
}

func (s handleStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	return s.s.objectSizeWith(s.hd, h)
}
