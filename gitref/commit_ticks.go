package gitref

// CommitTicks returns the task box changes of one commit against its first parent
// (SPEC §1), without walking history: what `attest tick` needs for one commit, at
// a cost independent of history length. A root commit has none.
func (r *Repo) CommitTicks(commit Hash) ([]Tick, error) {
	c, err := r.commit(commit)
	if err != nil {
		return nil, err
	}
	tc := &tickCtx{r: r, parsed: map[parseKey]*parsedFile{}}
	return tc.commitTicks(c)
}
