package gitref

// TrailerCommit is a commit of a range with its trailers.
type TrailerCommit struct {
	ID       Hash
	Trailers []Trailer
}
