package attest

import (
	"runtime/debug"
	"strings"
)

// linkVersion is set at link time by release builds and `make build`
// (-ldflags "-X github.com/taskproof/taskproof/attest.linkVersion=v1.2.3").
var linkVersion string

// Version is taskproof's version, written into a VSA's verifier.version and
// printed by `taskproof --version`: the link-time version when one was set, else
// the module version `go install …@vX` records, else "devel" with the VCS
// revision the go command stamped into the build ("devel+1a2b3c4d5e6f", with
// "-dirty" for a modified work tree), else "devel".
var Version = buildVersion(linkVersion, debug.ReadBuildInfo)

func buildVersion(linked string, read func() (*debug.BuildInfo, bool)) string {
	if linked != "" {
		return linked
	}
	info, ok := read()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return "devel+" + strings.ToLower(rev) + dirty
}
