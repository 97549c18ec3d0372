package gitref

import "github.com/taskproof/taskproof/gitref/internal/trailer"

// Trailer is one trailer of a commit message: "Key: value" in its trailer
// block (git-interpret-trailers(1)). Key is as written; Value is trimmed, its
// continuation lines joined with single spaces.
type Trailer = trailer.Trailer

// ParseTrailers returns the trailers of a commit message by the rules of `git
// interpret-trailers --parse` with git's default configuration (separator
// ':', comment character '#'): the trailer block is the message's last
// paragraph, before git's scissors line or a patch, never its title; it is
// one when all its lines are trailers or continuations, or when it holds a
// line git writes itself (Signed-off-by, cherry picked from) and at least a
// quarter of its lines are trailers. A message without a trailer block gives
// nil.
func ParseTrailers(message string) []Trailer { return trailer.Parse(message) }

// TrailerValues returns the values of the trailers whose key is key, compared
// case-insensitively as git does, in message order.
func TrailerValues(ts []Trailer, key string) []string { return trailer.Values(ts, key) }
