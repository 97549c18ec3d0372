// Package gitconfig reads git's configuration for one repository the way git
// reads it (docs/format.md#reading-gits-configuration): through the git
// program when it is installed, else with an in-process reader over the same
// files in git's order.
package gitconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-git/gcfg"

	"github.com/taskproof/taskproof/internal/userpath"
)

// Config is a snapshot of git's configuration for one repository, read the way
// git reads it (docs/format.md#reading-gits-configuration): every file git
// reads (system, global, repository, worktree), the include.path and
// includeIf.<condition>.path files they name, and the GIT_CONFIG_COUNT /
// GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n> environment, in git's order. The
// last value of a key wins, as in `git config --get`.
//
// The snapshot also knows its repository: [Config.HooksDir] reads
// core.hooksPath as git does, and [Config.Ensure] and [Config.LocalValues]
// read and edit the repository's own config file ($GIT_COMMON_DIR/config)
// through the git program (which leaves the snapshot as it was read).
type Config struct {
	entries                     []Entry
	gitDir, commonDir, workTree string
	// Source says how the snapshot was read: "git config -l -z" or
	// "in-process reader (git not found on PATH)".
	Source string
}

// Entry is one key = value of a [Config], in reading order. Key is the
// canonical form git prints: section and name lower case, subsection as written
// ("gpg.ssh.allowedsignersfile", `includeif.gitdir:~/work/.path`).
type Entry struct {
	Key, Value string
	// NoValue is set for a key written without "=" (a boolean true).
	NoValue bool
}

// ErrConfig is wrapped by the errors of reading git's configuration: a file
// that cannot be read or parsed, a `git config` that fails, an include that
// cannot be followed.
var ErrConfig = errors.New("git config")

// Read reads git's configuration for the repository at gitDir (its common
// dir commonDir, its work tree workTree or ""): by running the git program
// (`git config -l -z`, with GIT_DIR set to the repository's git dir so that
// includeIf "gitdir:…" and "onbranch:…" match it) when git is on PATH, else
// with the in-process reader, which follows include and includeIf gitdir:,
// gitdir/i: and onbranch: conditions (hasconfig: is an error naming it).
// Errors match [ErrConfig].
func Read(gitDir, commonDir, workTree string) (*Config, error) {
	var c *Config
	var err error
	if git, lookErr := exec.LookPath("git"); lookErr == nil {
		c, err = fromGit(git, gitDir, workTree)
	} else {
		c, err = InProcess(gitDir, commonDir)
	}
	if err != nil {
		return nil, err
	}
	c.gitDir, c.commonDir, c.workTree = gitDir, commonDir, workTree
	return c, nil
}

// HooksDir returns the directory git runs hooks from: core.hooksPath (a
// relative value is relative to the work tree, as git reads it; "~/" and
// "~user/" are home directories), else <git common dir>/hooks.
func (c *Config) HooksDir() (string, error) {
	v, ok, err := c.Path("core.hooksPath")
	if err != nil {
		return "", err
	}
	if !ok || v == "" {
		return filepath.Join(c.commonDir, "hooks"), nil
	}
	if filepath.IsAbs(v) {
		return v, nil
	}
	base := c.workTree
	if base == "" {
		base = c.gitDir
	}
	return filepath.Join(base, v), nil
}

// Get returns key's last value (`git config --get`); ok is false when unset. A
// key written without "=" has the value "true".
func (c *Config) Get(key string) (value string, ok bool) {
	all := c.GetAll(key)
	if len(all) == 0 {
		return "", false
	}
	return all[len(all)-1], true
}

// GetAll returns every value of key in reading order (`git config --get-all`).
func (c *Config) GetAll(key string) []string {
	want := CanonicalKey(key)
	var out []string
	for _, e := range c.entries {
		if e.Key == want {
			if e.NoValue {
				out = append(out, "true")
			} else {
				out = append(out, e.Value)
			}
		}
	}
	return out
}

// Path returns key's last value as a path, expanded as `git config
// --type=path` expands it: a leading "~/" is the home directory ($HOME), a
// leading "~user/" that user's. ok is false when unset.
func (c *Config) Path(key string) (path string, ok bool, err error) {
	v, ok := c.Get(key)
	if !ok {
		return "", false, nil
	}
	p, err := userpath.Expand(v)
	if err != nil {
		return "", true, fmt.Errorf("%w: %s: %v", ErrConfig, key, err)
	}
	return p, true, nil
}

// Entries returns every entry of the snapshot in reading order.
func (c *Config) Entries() []Entry { return append([]Entry(nil), c.entries...) }

// CanonicalKey lower-cases a key's section and name, keeping the subsection.
func CanonicalKey(key string) string {
	first := strings.Index(key, ".")
	last := strings.LastIndex(key, ".")
	if first < 0 {
		return strings.ToLower(key)
	}
	if first == last {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last+1] + strings.ToLower(key[last+1:])
}

func fromGit(git, gitDir, workTree string) (*Config, error) {
	cmd := exec.Command(git, "config", "-l", "-z")
	cmd.Dir = gitDir
	if workTree != "" {
		cmd.Dir = workTree
	}
	cmd.Env = append(os.Environ(), "GIT_DIR="+gitDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: running git config -l -z in %s: %v: %s", ErrConfig, cmd.Dir, err, strings.TrimSpace(stderr.String()))
	}
	entries, err := parseConfigList(out)
	if err != nil {
		return nil, err
	}
	return &Config{entries: entries, Source: "git config -l -z"}, nil
}

// parseConfigList reads `git config -l -z` output: entries "key\nvalue\x00",
// or "key\x00" for a key without a value.
func parseConfigList(out []byte) ([]Entry, error) {
	var entries []Entry
	for len(out) > 0 {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			return nil, fmt.Errorf("%w: git config -l -z output does not end in NUL", ErrConfig)
		}
		rec := out[:i]
		out = out[i+1:]
		k, v, hasValue := bytes.Cut(rec, []byte("\n"))
		if len(k) == 0 {
			return nil, fmt.Errorf("%w: git config -l -z output holds an empty key", ErrConfig)
		}
		entries = append(entries, Entry{Key: CanonicalKey(string(k)), Value: string(v), NoValue: !hasValue})
	}
	return entries, nil
}

// maxIncludeDepth is git's limit on nested includes.
const maxIncludeDepth = 10

// configReader is the in-process reader's state for one snapshot.
type configReader struct {
	gitDir  string
	entries []Entry
}

// InProcess reads the configuration as Read does without the git program.
func InProcess(gitDir, commonDir string) (*Config, error) {
	cr := &configReader{gitDir: gitDir}
	for _, path := range configFiles(commonDir) {
		if err := cr.readFile(path, 0, false); err != nil {
			return nil, err
		}
	}
	if v, ok := (&Config{entries: cr.entries}).Get("extensions.worktreeConfig"); ok && configBool(v) {
		if err := cr.readFile(filepath.Join(gitDir, "config.worktree"), 0, false); err != nil {
			return nil, err
		}
	}
	if err := cr.readEnv(); err != nil {
		return nil, err
	}
	return &Config{entries: cr.entries, Source: "in-process reader (git not found on PATH)"}, nil
}

func configFiles(commonDir string) []string {
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if p := os.Getenv("GIT_CONFIG_SYSTEM"); p != "" {
			files = append(files, p)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if p, set := os.LookupEnv("GIT_CONFIG_GLOBAL"); set {
		if p != "" {
			files = append(files, p)
		}
	} else {
		home, _ := userpath.Expand("~")
		if xdg := os.Getenv("XDG_CONFIG_HOME"); xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		} else if home != "" {
			files = append(files, filepath.Join(home, ".config", "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	return append(files, filepath.Join(commonDir, "config"))
}

// readFile appends path's entries, following includes. A missing file is
// skipped (as git skips a missing global file or include); included marks a
// file named by an include.
func (cr *configReader) readFile(path string, depth int, included bool) error {
	if depth > maxIncludeDepth {
		return fmt.Errorf("%w: %s: includes nested deeper than %d", ErrConfig, path, maxIncludeDepth)
	}
	if path == os.DevNull {
		return nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (included && errors.Is(err, fs.ErrPermission)) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: reading %s: %v", ErrConfig, path, err)
	}
	return gcfgRead(path, data, func(section, sub, name, value string, blank bool) error {
		if name == "" {
			return nil // a section header
		}
		key := strings.ToLower(section) + "."
		if sub != "" {
			key += sub + "."
		}
		key += strings.ToLower(name)
		cr.entries = append(cr.entries, Entry{Key: key, Value: value, NoValue: blank})
		if blank {
			return nil
		}
		switch {
		case key == "include.path":
			return cr.include(path, value, depth)
		case strings.EqualFold(section, "includeif") && strings.ToLower(name) == "path":
			match, err := cr.condition(path, sub)
			if err != nil {
				return err
			}
			if match {
				return cr.include(path, value, depth)
			}
		}
		return nil
	})
}

func gcfgRead(path string, data []byte, cb func(section, sub, name, value string, blank bool) error) error {
	if err := gcfg.ReadWithCallback(bytes.NewReader(data), cb); err != nil {
		if errors.Is(err, ErrConfig) {
			return err
		}
		return fmt.Errorf("%w: parsing %s: %v", ErrConfig, path, err)
	}
	return nil
}

// include reads the file an include names: "~" expanded, a relative path
// taken from the including file's directory.
func (cr *configReader) include(from, value string, depth int) error {
	p, err := userpath.Expand(value)
	if err != nil {
		return fmt.Errorf("%w: %s: include %q: %v", ErrConfig, from, value, err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	return cr.readFile(p, depth+1, true)
}

// condition evaluates an includeIf condition (git-config(1) "Conditional
// includes"); conditions git does not know are false, as in git.
func (cr *configReader) condition(from, cond string) (bool, error) {
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return cr.gitdirMatches(from, strings.TrimPrefix(cond, "gitdir:"), false)
	case strings.HasPrefix(cond, "gitdir/i:"):
		return cr.gitdirMatches(from, strings.TrimPrefix(cond, "gitdir/i:"), true)
	case strings.HasPrefix(cond, "onbranch:"):
		pat := strings.TrimPrefix(cond, "onbranch:")
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		head, err := os.ReadFile(filepath.Join(cr.gitDir, "HEAD"))
		if err != nil {
			return false, nil
		}
		ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
		if !ok {
			return false, nil
		}
		return wildmatch(pat, ref, false), nil
	case strings.HasPrefix(cond, "hasconfig:"):
		return false, fmt.Errorf("%w: %s: includeIf %q is not evaluated by taskproof's in-process reader; install git so that taskproof reads the configuration through it", ErrConfig, from, cond)
	}
	return false, nil
}

// gitdirMatches applies git's gitdir: pattern rules: "~/" expanded, "./"
// relative to the including file, a pattern not starting with "/" matched
// anywhere ("**/" prepended), a trailing "/" matching everything below.
func (cr *configReader) gitdirMatches(from, pat string, fold bool) (bool, error) {
	switch {
	case strings.HasPrefix(pat, "~"):
		p, err := userpath.Expand(pat)
		if err != nil {
			return false, fmt.Errorf("%w: %s: includeIf gitdir:%s: %v", ErrConfig, from, pat, err)
		}
		if strings.HasSuffix(pat, "/") && !strings.HasSuffix(p, "/") {
			p += "/"
		}
		pat = p
	case strings.HasPrefix(pat, "./"):
		pat = filepath.Dir(from) + pat[1:]
	case !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	dirs := []string{cr.gitDir}
	if abs, err := filepath.Abs(cr.gitDir); err == nil {
		dirs = append(dirs, abs)
	}
	if real, err := filepath.EvalSymlinks(cr.gitDir); err == nil {
		dirs = append(dirs, real)
	}
	for _, d := range dirs {
		if wildmatch(pat, filepath.ToSlash(d), fold) {
			return true, nil
		}
	}
	return false, nil
}

// wildmatch reports whether name matches the glob pat with git's pathname
// rules: "*" and "?" stop at "/", "**" between slashes matches any number of
// directories, "[…]" is a character class ("!" or "^" negates).
func wildmatch(pat, name string, fold bool) bool {
	var re strings.Builder
	re.WriteString("^")
	if fold {
		re.WriteString("(?i)")
	}
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case strings.HasPrefix(pat[i:], "**/"):
			re.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(pat[i:], "**"):
			re.WriteString(".*")
			i++
		case c == '*':
			re.WriteString("[^/]*")
		case c == '?':
			re.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(pat[i+1:], ']')
			if end < 0 {
				re.WriteString(`\[`)
				continue
			}
			class := pat[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			re.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	rx, err := regexp.Compile(re.String())
	return err == nil && rx.MatchString(name)
}

// readEnv appends GIT_CONFIG_COUNT's GIT_CONFIG_KEY_<n> = GIT_CONFIG_VALUE_<n>
// pairs, refusing a count or pair git would refuse.
func (cr *configReader) readEnv() error {
	countText, ok := os.LookupEnv("GIT_CONFIG_COUNT")
	if !ok || countText == "" {
		return nil
	}
	n, err := strconv.Atoi(countText)
	if err != nil || n < 0 {
		return fmt.Errorf("%w: bogus GIT_CONFIG_COUNT %q", ErrConfig, countText)
	}
	for i := range n {
		k, ok := os.LookupEnv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
		if !ok || k == "" {
			return fmt.Errorf("%w: GIT_CONFIG_KEY_%d is missing or empty", ErrConfig, i)
		}
		v, ok := os.LookupEnv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))
		if !ok {
			return fmt.Errorf("%w: GIT_CONFIG_VALUE_%d is missing", ErrConfig, i)
		}
		if _, _, _, err := SplitKey(k); err != nil {
			return fmt.Errorf("%w: GIT_CONFIG_KEY_%d: %v", ErrConfig, i, err)
		}
		cr.entries = append(cr.entries, Entry{Key: CanonicalKey(k), Value: v})
	}
	return nil
}

// configBool reads a git boolean as true for "true", "yes", "on" and non-zero
// numbers.
func configBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on":
		return true
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return err == nil && n != 0
}

// SplitKey splits a key "section.name" or "section.subsection.name" (the
// subsection may hold dots).
func SplitKey(key string) (section, sub, name string, err error) {
	first := strings.Index(key, ".")
	last := strings.LastIndex(key, ".")
	if first <= 0 || last == len(key)-1 {
		return "", "", "", fmt.Errorf("config key %q: want section.name or section.subsection.name", key)
	}
	section, name = key[:first], key[last+1:]
	if first != last {
		sub = key[first+1 : last]
	}
	return section, sub, name, nil
}
