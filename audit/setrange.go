package audit

import "github.com/taskproof/taskproof/gitref"

// SetRange sets what an audit reads from its one revision argument: with
// All, HEAD's history (rev is not read); otherwise rev, a range "A..B" or a
// revision (all of its history).
func (o *Options) SetRange(repo *gitref.Repo, rev string) error {
	var err error
	if o.All {
		o.Head, err = repo.Resolve("HEAD")
		return err
	}
	o.Base, o.Head, err = repo.ResolveRange(rev)
	return err
}
