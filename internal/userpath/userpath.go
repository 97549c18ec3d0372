// Package userpath expands a leading "~" in a path the way git expands paths
// in its configuration (core.hooksPath, gpg.ssh.allowedSignersFile,
// user.signingKey, include.path).
package userpath

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// Expand expands a leading "~" the way git's interpolate_path does:
// "~" and "~/…" from $HOME (the user's home directory when HOME is unset),
// "~user" and "~user/…" from that user's home directory. Other paths are
// returned unchanged.
func Expand(p string) (string, error) {
	if !strings.HasPrefix(p, "~") {
		return p, nil
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	var home string
	if name == "" {
		home = os.Getenv("HOME")
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("expanding %s: %v", p, err)
			}
			home = h
		}
	} else {
		u, err := user.Lookup(name)
		if err != nil {
			return "", fmt.Errorf("expanding %s: %v", p, err)
		}
		home = u.HomeDir
	}
	if rest == "" && !strings.Contains(p, "/") {
		return home, nil
	}
	return filepath.Join(home, rest), nil
}
