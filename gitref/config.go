package gitref

import "github.com/taskproof/taskproof/gitref/gitconfig"

// Config reads git's configuration for the repository as git reads it
// (docs/format.md#reading-gits-configuration): every file git reads (system,
// global, repository, worktree), the include.path and includeIf.<condition>.path
// files they name, and the GIT_CONFIG_COUNT / GIT_CONFIG_KEY_<n> /
// GIT_CONFIG_VALUE_<n> environment, in git's order; the last value of a key
// wins, as in `git config --get`. It runs the git program (`git config -l
// -z`, with GIT_DIR set to the repository's git dir so that includeIf
// "gitdir:…" and "onbranch:…" match it) when git is on PATH, else an
// in-process reader over the same files. The snapshot's Get, Path and
// Entries read it (Entries' keys in the canonical form git prints: section
// and name lower case, subsection as written); its HooksDir, LocalValues and
// Ensure read core.hooksPath and read or edit the repository's own config
// file (package gitconfig). Errors match [ErrConfig].
func (r *Repo) Config() (*gitconfig.Config, error) {
	return gitconfig.Read(r.gitDir, r.commonDir, r.workTree)
}

// configValue returns the value git would give for `git config --get <key>`
// (key as "section.name" or "section.subsection.name"), read as [Repo.Config]
// reads; ok is false when nothing sets key. Errors match [ErrConfig].
func (r *Repo) configValue(key string) (value string, ok bool, err error) {
	if _, _, _, err := gitconfig.SplitKey(key); err != nil {
		return "", false, err
	}
	c, err := r.Config()
	if err != nil {
		return "", false, err
	}
	value, ok = c.Get(key)
	return value, ok, nil
}
