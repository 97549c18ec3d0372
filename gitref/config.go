package gitref

import "github.com/taskproof/taskproof/gitref/internal/gitconfig"

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
// and name lower case, subsection as written). Errors match [ErrConfig].
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

// ConfigWant is one setting `taskproof init` needs in the repository's own
// config file: Key ("section.name" or "section.subsection.name"), Value, and
// for a multi-valued key (Multi) the values it Replaces and when the values
// there already give what is wanted (Satisfied).
type ConfigWant = gitconfig.Want

// ConfigChange is one change EnsureConfig made (or would make, on a dry run):
// Key and Value; Old, the value that was in effect for a single-valued key;
// Added, for a value added to a multi-valued key; Replaced, the superseded
// values removed.
type ConfigChange = gitconfig.Change

// EnsureConfig makes the repository's own config file ($GIT_COMMON_DIR/config)
// hold every want, and returns the changes, in the order of wants; wants
// already satisfied give none (so a second run changes nothing). With dryRun
// the file is not written. The file is read and written by the git program
// (`git config --file`), which keeps every line the user wrote, comments
// included. Errors wrap ErrConfig, and ErrLocked when the lock file is held; a
// write the file system refuses is a *StorageError.
func (r *Repo) EnsureConfig(wants []ConfigWant, dryRun bool) ([]ConfigChange, error) {
	return gitconfig.Ensure(r.commonDir, wants, dryRun)
}

// LocalConfigValues returns every value of key in the repository's own config
// file ($GIT_COMMON_DIR/config, the one EnsureConfig edits), in file order.
// Errors wrap ErrConfig.
func (r *Repo) LocalConfigValues(key string) ([]string, error) {
	return gitconfig.LocalValues(r.commonDir, key)
}
