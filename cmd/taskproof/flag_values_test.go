package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/taskproof/taskproof/cmd/taskproof/cli"
)

// TestBadNumericFlagValues runs the real binary with a count or a duration
// the flag's type parses but the command refuses: a usage error (exit 2)
// naming the flag and the value, found before any trust is loaded (a
// negative threshold used to reach the Sigstore trust, exit 3) or any
// default is put in its place (a timeout not above zero used to become
// 30s); with --format json, the usage result.
func TestBadNumericFlagValues(t *testing.T) {
	r := newCLIRepo(t)
	root := filepath.Join(t.TempDir(), "trusted_root.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "--branch", "--base", r.c0, "--sigstore-tlog-threshold", "-1"}, "--sigstore-tlog-threshold -1: want a count"},
		{[]string{"verify", r.c1, "--trusted-root", root, "--sigstore-public-good", "--sigstore-tlog-threshold=-3"}, "--sigstore-tlog-threshold -3: want a count"},
		{[]string{"verify", "--branch", "--base", r.c0, "--sigstore-timestamp-threshold", "-1"}, "--sigstore-timestamp-threshold -1: want a count"},
		{[]string{"attest", "tick", "--commit", r.c1, "--verdict", "verified", "--unsigned", "--sigstore-timeout", "-1s"}, `invalid argument "-1s" for "--sigstore-timeout" flag: want a duration more than zero`},
		{[]string{"attest", "carry", r.c1, r.c3, "--sigstore-timeout", "0"}, `invalid argument "0" for "--sigstore-timeout" flag: want a duration more than zero`},
		{[]string{"attest", "sign", r.c1, "--sigstore-timeout=-5m"}, `invalid argument "-5m" for "--sigstore-timeout" flag: want a duration more than zero`},
		// The counts the commands already refused stay usage errors.
		{[]string{"notes", "push", "--attempts", "-1"}, "--attempts -1: want 1 to 100"},
		{[]string{"audit", "--max-share", "-0.5"}, "max share -0.5: want a share between 0 and 1"},
	} {
		stdout, stderr, code := r.taskproof(t, nil, tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "taskproof: ") || !strings.Contains(stderr, tc.want) {
			t.Errorf("taskproof %q: exit %d, want 2 with %q\nstdout %q\nstderr %q", tc.args, code, tc.want, stdout, stderr)
		}
		if tc.args[0] == "verify" {
			stdout, _, code := r.taskproof(t, nil, append(tc.args, "--format", "json")...)
			if res := usageResult(t, stdout); code != 2 || !strings.Contains(res.Error.Message, tc.want) {
				t.Errorf("taskproof %q --format json: exit %d, %+v", tc.args, code, res)
			}
		}
	}
	// The thresholds that are counts still pass the flag check: 2 without
	// a trusted root is the trust error it was.
	if _, stderr, code := r.taskproof(t, nil, "verify", r.c1, "--sigstore-tlog-threshold", "2", "--sigstore-timestamp-threshold", "0"); code != 3 || !strings.Contains(stderr, "needs a trusted root") {
		t.Errorf("thresholds 2 and 0: exit %d\n%s", code, stderr)
	}
}

// pathFlags are the flags of taskproof's commands (command path, flag) whose
// value names a file, a directory, a key, REV:PATH, a revision, a ref, a
// remote, a name or a time, by the value's name in their help, as the
// commands' help shows it.
func pathFlags(t *testing.T) [][2]string {
	t.Helper()
	var out [][2]string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && !c.HasSubCommands() {
			c.LocalFlags().VisitAll(func(f *pflag.Flag) {
				if name, _ := pflag.UnquoteUsage(f); slices.Contains([]string{"FILE", "FILES", "DIR", "KEY", "REV:PATH", "REV", "REF", "REMOTE", "NAME", "TIME", "DATE"}, name) && f.Name != "repo" {
					out = append(out, [2]string{c.CommandPath(), f.Name})
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cli.New())
	return out
}

// TestEmptyPathFlags runs the real binary with each flag that names a file,
// a directory, a key or REV:PATH given an empty value (an unset variable):
// a usage error (exit 2) naming the flag, never the flag taken as left out
// (an empty --allowed-signers would fall back to git's
// gpg.ssh.allowedSignersFile, an empty --json-report wrote nothing). --repo
// (-C) keeps git's meaning of -C "": the current directory.
func TestEmptyPathFlags(t *testing.T) {
	r := newCLIRepo(t)
	flags := pathFlags(t)
	have := map[string]bool{}
	for _, pf := range flags {
		have[pf[0]+" --"+pf[1]] = true
	}
	for _, want := range []string{"taskproof verify --json-report", "taskproof verify --allowed-signers", "taskproof verify --allowed-signers-rev",
		"taskproof verify --keyring", "taskproof verify --key", "taskproof verify --trusted-root", "taskproof verify --policy", "taskproof verify --policy-rev",
		"taskproof ticks --policy", "taskproof attest tick --evidence", "taskproof attest tick --red-output", "taskproof attest tick --unit",
		"taskproof attest tick --test-files", "taskproof attest tick --key", "taskproof attest tick --identity-token-file", "taskproof attest decide --unit",
		"taskproof attest carry --allowed-signers", "taskproof attest carry --trusted-key", "taskproof notes fetch --keyring",
		"taskproof verify --base", "taskproof verify --at", "taskproof audit --since", "taskproof init --remote", "taskproof attest decide --by"} {
		if !have[want] {
			t.Errorf("%s is not among the path flags %v", want, flags)
		}
	}
	for _, pf := range flags {
		args := append(strings.Fields(strings.TrimPrefix(pf[0], "taskproof")), "--"+pf[1], "")
		stdout, stderr, code := r.taskproof(t, nil, args...)
		want := `taskproof: invalid argument "" for "--` + pf[1] + `" flag: empty `
		if code != 2 || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("taskproof %q: exit %d, want 2 with %q\nstdout %q\nstderr %q", args, code, want, stdout, stderr)
		}
	}
	// An empty item of a comma-separated list is refused the same way.
	for _, list := range []string{"a.gpg,,b.gpg", "a.gpg,", `"",a.gpg`} {
		if _, stderr, code := r.taskproof(t, nil, "verify", r.c1, "--keyring", list); code != 2 || !strings.Contains(stderr, `"--keyring" flag: an empty FILE in the list`) {
			t.Errorf("--keyring %s: exit %d\n%s", list, code, stderr)
		}
	}
	// A comma inside a quoted item is part of the name, as pflag reads it:
	// no empty item, the keyring is read (and is absent: exit 3).
	if _, stderr, code := r.taskproof(t, nil, "verify", r.c1, "--keyring", `"a,.gpg"`); code != 3 || strings.Contains(stderr, "empty") {
		t.Errorf(`--keyring "a,.gpg": exit %d\n%s`, code, stderr)
	}
	// verify's machine formats write the usage result, given before or after.
	for _, args := range [][]string{
		{"verify", "--format", "json", "--json-report", ""},
		{"verify", "--json-report=", "--format=json"},
	} {
		stdout, _, code := r.taskproof(t, nil, args...)
		if res := usageResult(t, stdout); code != 2 || !strings.Contains(res.Error.Message, `"--json-report" flag: empty FILE`) {
			t.Errorf("taskproof %q: exit %d, %+v", args, code, res)
		}
	}
	// --notes-ref, every command's, the same.
	if _, stderr, code := r.taskproof(t, nil, "--notes-ref", "", "ticks"); code != 2 || !strings.Contains(stderr, `"--notes-ref" flag: empty REF`) {
		t.Errorf("--notes-ref \"\": exit %d\n%s", code, stderr)
	}
	// -C "" is git's: the directory stays the current one.
	if stdout, stderr, code := r.taskproof(t, nil, "-C", "", "ticks", "--format", "json"); code != 0 || !strings.Contains(stdout, "T003") {
		t.Errorf("-C \"\": exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestJSONReportOfUsageErrorsInEitherOrder runs the real binary's verify
// with --json-report FILE before and after a flag it cannot parse, in both
// spellings: FILE holds the usage result either way (cobra stops parsing at
// the bad flag, so a --json-report after it used to write nothing), as it
// does for a usage error a flag check finds after parsing.
func TestJSONReportOfUsageErrorsInEitherOrder(t *testing.T) {
	r := newCLIRepo(t)
	dir := t.TempDir()
	for i, args := range [][]string{
		{"verify", "--json-report", "FILE", "--bogus"},
		{"verify", "--bogus", "--json-report", "FILE"},
		{"verify", "--json-report=FILE", "--branch", "--bogus"},
		{"verify", "--branch", "--bogus", "--json-report=FILE"},
		{"verify", "--branch", "--at", "yesterday-ish", "--json-report", "FILE"},
		{"verify", "--insecure-allow-unsigned=maybe", "--json-report", "FILE", "--format", "json"},
		{"verify", "--branch", "--sigstore-tlog-threshold", "-1", "--json-report", "FILE"},
	} {
		path := filepath.Join(dir, "r"+string(rune('a'+i))+".json")
		for j := range args {
			args[j] = strings.ReplaceAll(args[j], "FILE", path)
		}
		_, stderr, code := r.taskproof(t, nil, args...)
		if code != 2 {
			t.Errorf("taskproof %q: exit %d, want 2\n%s", args, code, stderr)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("taskproof %q wrote no --json-report: %v", args, err)
			continue
		}
		res := usageResult(t, string(b))
		if msg := strings.TrimSpace(strings.TrimPrefix(stderr, "taskproof: ")); !strings.HasPrefix(msg, res.Error.Message) {
			t.Errorf("taskproof %q: the file's message %q is not stderr's %q", args, res.Error.Message, stderr)
		}
	}
	// After "--" nothing is a flag: no file is named.
	path := filepath.Join(dir, "after-dashes.json")
	if _, _, code := r.taskproof(t, nil, "verify", "--bogus", "--", "--json-report", path); code != 2 {
		t.Errorf("--bogus -- --json-report: exit %d", code)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("a --json-report after -- was written")
	}
}
