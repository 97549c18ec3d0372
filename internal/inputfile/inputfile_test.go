package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("Read at the limit = %q, %v", b, err)
	}
	if _, err := Read(p, 4); !errors.Is(err, ErrLimit) {
		t.Errorf("Read over the limit: %v, want ErrLimit", err)
	}
	if _, err := Read("/dev/zero", 1<<10); !errors.Is(err, ErrLimit) {
		t.Errorf("Read of /dev/zero: %v, want ErrLimit", err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "absent"), 5); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of an absent file: %v, want ErrNotExist", err)
	}
}

// TestReadRegularFileAgain: a regular file is read anew each time (a
// library caller that rewrites it sees the new bytes).
func TestReadRegularFileAgain(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	for _, want := range []string{"one", "two"} {
		if err := os.WriteFile(p, []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, err := Read(p, 16); err != nil || string(b) != want {
			t.Errorf("Read = %q, %v; want %q", b, err, want)
		}
	}
}

// TestReadPipeOnce: a pipe's bytes are read once and given again to a
// second read, which would otherwise find the pipe empty.
func TestReadPipeOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString("alice ssh-ed25519 AAAA\n")
		f.Close()
	}()
	for i := range 2 {
		if b, err := Read(p, 1<<10); err != nil || string(b) != "alice ssh-ed25519 AAAA\n" {
			t.Fatalf("read %d = %q, %v", i+1, b, err)
		}
	}
}
