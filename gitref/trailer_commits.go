package gitref

import "github.com/taskproof/taskproof/trailer"

// TrailerCommit is a commit of a range with its trailers.
type TrailerCommit struct {
	ID       Hash
	Trailers []trailer.Trailer
}
