package gitref

// TrailerCommit is a commit of a range with its trailers.
type TrailerCommit struct {
	ID       Hash
	Trailers []Trailer
}

// WithTrailer returns the commits of cs, in their order, whose message has a
// trailer named key (compared case-insensitively), each with its trailers
// ([ParseTrailers]). cs is a range's listing ([Repo.RangeCommits]), so that
// the range's trailers are read from the listing a walk of it makes anyway.
func WithTrailer(cs []*Commit, key string) []TrailerCommit {
	var out []TrailerCommit
	for _, c := range cs {
		ts := ParseTrailers(c.Message)
		if len(TrailerValues(ts, key)) > 0 {
			out = append(out, TrailerCommit{ID: c.ID, Trailers: ts})
		}
	}
	return out
}
