package gitref

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// ConfigValue returns the value git would give for `git config <key>` (key as
// "section.name" or "section.subsection.name", e.g. "gpg.ssh.allowedSignersFile"),
// reading, lowest precedence first: the system file (/etc/gitconfig, skipped when
// GIT_CONFIG_NOSYSTEM is set, or $GIT_CONFIG_SYSTEM), the global file
// ($GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config and ~/.gitconfig), and the
// repository's config. The last value wins, as in git. `include` and
// `includeIf` directives are not followed. ok is false when no file sets key.
// A config file that exists but cannot be read or parsed is an error naming it.
func (r *Repo) ConfigValue(key string) (value string, ok bool, err error) {
	section, sub, name, err := splitConfigKey(key)
	if err != nil {
		return "", false, err
	}
	for _, path := range r.configFiles() {
		v, found, err := readConfigValue(path, section, sub, name)
		if err != nil {
			return "", false, err
		}
		if found {
			value, ok = v, true
		}
	}
	return value, ok, nil
}

func splitConfigKey(key string) (section, sub, name string, err error) {
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

func (r *Repo) configFiles() []string {
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
		if xdg := os.Getenv("XDG_CONFIG_HOME"); xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		} else if home, err := os.UserHomeDir(); err == nil {
			files = append(files, filepath.Join(home, ".config", "git", "config"))
		}
		if home, err := os.UserHomeDir(); err == nil {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	return append(files, filepath.Join(r.commonDir, "config"))
}

func readConfigValue(path, section, sub, name string) (string, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && path == os.DevNull) {
		if f != nil {
			f.Close()
		}
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading git config %s: %w", path, err)
	}
	defer f.Close()
	cfg := format.New()
	if err := format.NewDecoder(f).Decode(cfg); err != nil {
		return "", false, fmt.Errorf("parsing git config %s: %w", path, err)
	}
	if !cfg.HasSection(section) {
		return "", false, nil
	}
	s := cfg.Section(section)
	var opts format.Options
	if sub == "" {
		opts = s.Options
	} else {
		if !s.HasSubsection(sub) {
			return "", false, nil
		}
		opts = s.Subsection(sub).Options
	}
	if !opts.Has(name) {
		return "", false, nil
	}
	all := opts.GetAll(name)
	return all[len(all)-1], true, nil
}
