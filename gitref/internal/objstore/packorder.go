package objstore

import (
	"cmp"
	"slices"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
)

// PackOrder returns the positions of ids (0 … len(ids)-1) in the order their
// objects are stored: by the pack that holds each (the first of the packs as
// listed, as reads pick it), then by offset in it; objects no pack holds
// (loose, alternates) come last, in the order given.
//
// A pack stores a delta after its base, mostly right after it (git
// fast-import and `git notes` deltify each blob against the one written
// before), so reading many objects of one kind in this order finds each base
// in a small object cache where any other order inflates the chain again.
// Ids that do not parse are placed with the objects no pack holds: reading
// them reports the error.
func (s *Store) PackOrder(ids []gitobj.Hash) ([]int, error) {
	packs, err := s.packs.list(s.packStamp)
	if err != nil {
		return nil, err
	}
	type place struct {
		pack int   // index in packs; len(packs) for none
		off  int64 // offset in the pack
		pos  int   // index in ids
	}
	places := make([]place, len(ids))
	for i, id := range ids {
		places[i] = place{pack: len(packs), pos: i}
		h, err := gitobj.ParseHash(string(id))
		if err != nil {
			continue
		}
		ph := gitobj.ToPlumbing(h)
		for k, p := range packs {
			at, ok := p.idx.Find(ph)
			if !ok {
				continue
			}
			off, err := p.idx.Offset(at)
			if err != nil {
				return nil, err
			}
			places[i].pack, places[i].off = k, off
			break
		}
	}
	slices.SortFunc(places, func(a, b place) int {
		return cmp.Or(cmp.Compare(a.pack, b.pack), cmp.Compare(a.off, b.off), cmp.Compare(a.pos, b.pos))
	})
	order := make([]int, len(places))
	for i, p := range places {
		order[i] = p.pos
	}
	return order, nil
}
