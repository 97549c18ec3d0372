package userpath

import (
	"os/user"
	"path/filepath"
	"testing"
)

func TestExpand(t *testing.T) {
	t.Setenv("HOME", "/home/ada")
	me, err := user.Current()
	if err != nil {
		t.Skip("no current user:", err)
	}
	for in, want := range map[string]string{
		"~":                      "/home/ada",
		"~/":                     "/home/ada",
		"~/keys/id":              "/home/ada/keys/id",
		"~" + me.Username:        me.HomeDir,
		"~" + me.Username + "/x": filepath.Join(me.HomeDir, "x"),
		"/etc/allowed":           "/etc/allowed",
		"keys/~id":               "keys/~id",
	} {
		got, err := Expand(in)
		if err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := Expand("~no-such-user-taskproof/x"); err == nil {
		t.Error("Expand of an unknown user's home: no error")
	}
}
