package gitref

// TrailerCommit is a commit of a range with its trailers.
type TrailerCommit struct {
	ID       Hash
	Trailers []Trailer
}

// CommitsWithTrailer returns the commits of base..head ("" base: all of head's
// history), parents before children, whose message has a trailer named key
// (compared case-insensitively), each with its trailers ([ParseTrailers]).
func (r *Repo) CommitsWithTrailer(base, head Hash, key string) ([]TrailerCommit, error) {
	cs, err := r.rangeCommits(base, head, false)
	if err != nil {
		return nil, err
	}
	var out []TrailerCommit
	for _, c := range cs {
		ts := ParseTrailers(c.Message)
		if len(TrailerValues(ts, key)) > 0 {
			out = append(out, TrailerCommit{ID: fromPlumbing(c.Hash), Trailers: ts})
		}
	}
	return out, nil
}
