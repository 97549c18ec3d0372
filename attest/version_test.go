package attest

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	info := func(main string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: main}, Settings: settings}, true
		}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "1A2B3C4D5E6F7A8B9C0D"}
	dirty := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	clean := debug.BuildSetting{Key: "vcs.modified", Value: "false"}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, c := range []struct {
		name   string
		linked string
		read   func() (*debug.BuildInfo, bool)
		want   string
	}{
		{"linked wins", "v1.2.3", info("v9.9.9", rev), "v1.2.3"},
		{"go install version", "", info("v0.4.0", rev), "v0.4.0"},
		{"local build with revision", "", info("(devel)", rev, clean), "devel+1a2b3c4d5e6f"},
		{"modified work tree", "", info("(devel)", rev, dirty), "devel+1a2b3c4d5e6f-dirty"},
		{"no vcs stamp", "", info("(devel)"), "devel"},
		{"no build info", "", none, "devel"},
	} {
		if got := buildVersion(c.linked, c.read); got != c.want {
			t.Errorf("%s: buildVersion = %q, want %q", c.name, got, c.want)
		}
	}
}
