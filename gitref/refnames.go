package gitref

import "strings"

// BranchAndTagNames are the full names of the repository's branches,
// remote-tracking branches and tags (refs/heads/*, refs/remotes/*,
// refs/tags/*) whose tips are commits, sorted: what a person names a
// revision by, for completing one.
func (r *Repo) BranchAndTagNames() ([]string, error) {
	tips, err := r.refTips()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range tips {
		for _, p := range []string{"refs/heads/", "refs/remotes/", "refs/tags/"} {
			if strings.HasPrefix(t.name, p) {
				out = append(out, t.name)
				break
			}
		}
	}
	return out, nil
}
