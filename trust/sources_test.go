package trust

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
)

// TestLoadTrustRefusesTheHeadsFiles: trust never comes from the work tree
// being verified. LoadTrust refuses a trust file the checked-out head holds
// (by path, through a symbolic link, or as a keyring or key), and reads the
// same content from outside the work tree, from a file in the work tree the
// head does not hold, or from the head's commit as REV:PATH (which the
// verifier then refuses to judge that commit with). LoadTrustUnsafe reads it.
func TestLoadTrustRefusesTheHeadsFiles(t *testing.T) {
	k := newSSHKey(t)
	allowed := `dev@example.invalid namespaces="in-toto" ` + k.line + "\n"
	dir := testenv.NewRepo(t)
	head := testenv.CommitFiles(t, dir, "trust", map[string]string{".github/allowed_signers": allowed, "keys/key.pem": "not a key\n"})
	untracked := filepath.Join(dir, "base", "allowed_signers")
	outside := filepath.Join(t.TempDir(), "allowed_signers")
	for _, p := range []string{untracked, outside} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(allowed), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(dir, ".github", "allowed_signers"), link); err != nil {
		t.Fatal(err)
	}
	repo, err := gitref.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()

	inHead := filepath.Join(dir, ".github", "allowed_signers")
	for _, tc := range []struct {
		name string
		src  Sources
		want string // "" loads
	}{
		{"allowed signers the head holds", Sources{AllowedSigners: inHead}, "allowed signers file " + inHead},
		{"the same through a symbolic link", Sources{AllowedSigners: link}, "allowed signers file " + link},
		{"a public key file the head holds", Sources{RawKeys: []string{filepath.Join(dir, "keys", "key.pem")}}, "public key file"},
		{"a keyring the head holds", Sources{Keyrings: []string{filepath.Join(dir, "keys", "key.pem")}}, "keyring"},
		{"a file in the work tree the head does not hold", Sources{AllowedSigners: untracked}, ""},
		{"a file outside the work tree", Sources{AllowedSigners: outside}, ""},
		{"the head's file read from git", Sources{AllowedSignersRev: head + ":.github/allowed_signers"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.src.NoGitConfig = true
			tr, _, err := LoadTrust(repo, tc.src)
			if tc.want == "" {
				if err != nil || tr == nil {
					t.Fatalf("LoadTrust: %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrTrust) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "HEAD holds it") {
				t.Fatalf("LoadTrust: %v, want ErrTrust naming %q as the head's", err, tc.want)
			}
			if cerr := CheckOutsideWorkTree(repo, tc.src); cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("CheckOutsideWorkTree: %v, want LoadTrust's refusal", cerr)
			}
			if tc.src.AllowedSigners == "" {
				return // the key file is no key: only the refusal is checked
			}
			if tr, _, err := LoadTrustUnsafe(repo, tc.src); err != nil || tr == nil {
				t.Errorf("LoadTrustUnsafe: %v, want the head's file read", err)
			}
		})
	}
}
