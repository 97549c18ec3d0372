package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInsecureBothSpellings: an unsafe switch given under both its name and
// its deprecated spelling is a usage error (exit 2) whatever the values and
// their order, for each of the three renamed switches; nothing is verified
// or carried, and a machine --format writes the usage result.
func TestInsecureBothSpellings(t *testing.T) {
	r := newVFRepo(t)
	trust := []string{"--allowed-signers", r.allowed}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// r.t3 is ticked with an unsigned statement: any of these passing
		// it would be exit 0.
		{[]string{"verify", r.t3, "--insecure-allow-unsigned=false", "--require-signed=false"}, "give one: --insecure-allow-unsigned (--require-signed is its deprecated spelling)"},
		{[]string{"verify", r.t3, "--require-signed=false", "--insecure-allow-unsigned=false"}, "give one: --insecure-allow-unsigned (--require-signed is its deprecated spelling)"},
		{[]string{"verify", r.t3, "--insecure-allow-unsigned", "--require-signed=true"}, "give one: --insecure-allow-unsigned (--require-signed is its deprecated spelling)"},
		{[]string{"verify", r.t3, "--require-signed", "--insecure-allow-unsigned"}, "give one: --insecure-allow-unsigned (--require-signed is its deprecated spelling)"},
		{[]string{"verify", r.t3, "--insecure-allow-unsigned", "--require-signed=false"}, "give one: --insecure-allow-unsigned (--require-signed is its deprecated spelling)"},
		{[]string{"verify", r.t2, "--insecure-ignore-tlog=false", "--sigstore-tlog-threshold", "0"}, "give one: --insecure-ignore-tlog (--sigstore-tlog-threshold 0 is its deprecated spelling)"},
		{[]string{"verify", r.t2, "--sigstore-tlog-threshold", "0", "--insecure-ignore-tlog"}, "give one: --insecure-ignore-tlog (--sigstore-tlog-threshold 0 is its deprecated spelling)"},
		{[]string{"verify", r.t2, "--insecure-ignore-tlog", "--sigstore-tlog-threshold", "2"}, "--insecure-ignore-tlog accepts bundles without a transparency log entry, --sigstore-tlog-threshold 2 requires some: give one"},
		{[]string{"attest", "carry", r.t2, r.t3, "--insecure-skip-verify", "--unverified-from-insecure=false", "--unsigned"}, "give one: --insecure-skip-verify (--unverified-from-insecure is its deprecated spelling)"},
		{[]string{"attest", "carry", r.t2, r.t3, "--unverified-from-insecure=false", "--insecure-skip-verify", "--unsigned"}, "give one: --insecure-skip-verify (--unverified-from-insecure is its deprecated spelling)"},
		{[]string{"attest", "carry", r.t2, r.t3, "--insecure-skip-verify=false", "--unverified-from-insecure", "--unsigned"}, "give one: --insecure-skip-verify (--unverified-from-insecure is its deprecated spelling)"},
	} {
		args := append(tc.args, trust...)
		note := r.git(t, "notes", "--ref", "refs/notes/speccoder", "list")
		out, errOut := r.run(t, 2, args...)
		if out != "" || !strings.Contains(errOut, "taskproof: "+tc.want) || strings.Contains(errOut, "WARNING") {
			t.Errorf("taskproof %q:\nstdout %q\nstderr %q\nwant %q", args, out, errOut, tc.want)
		}
		if after := r.git(t, "notes", "--ref", "refs/notes/speccoder", "list"); after != note {
			t.Errorf("taskproof %q changed the notes:\n%s\n%s", args, note, after)
		}
		if tc.args[0] == "verify" {
			out, _ := r.run(t, 2, append(args, "--format", "json")...)
			if res := usageResult(t, out); !strings.Contains(res.Error.Message, tc.want) {
				t.Errorf("taskproof %q --format json: %+v", args, res)
			}
		}
	}
	// The values agree and neither is a deprecated spelling: no conflict.
	r.run(t, 3, append([]string{"verify", r.t2, "--insecure-ignore-tlog=false", "--sigstore-tlog-threshold", "2"}, trust...)...)
}

// TestInsecureWarning: a switch that weakens the gate or the carry says so,
// one line on stderr, under either spelling; stdout (the report) is the same
// bytes with either spelling, and no warning is written without the switch.
func TestInsecureWarning(t *testing.T) {
	r := newVFRepo(t)
	trust := []string{"--allowed-signers", r.allowed, "--format", "json"}
	const unsigned = "WARNING: --insecure-allow-unsigned: unsigned statements are accepted; anyone who can push a note can tick a task\n"
	out, errOut := r.run(t, 0, append([]string{"verify", r.t3, "--insecure-allow-unsigned"}, trust...)...)
	if strings.Count(errOut, unsigned) != 1 || strings.Contains(out, "WARNING") || vfParse(t, out).Conclusion != "success" {
		t.Errorf("--insecure-allow-unsigned:\nstdout %s\nstderr %q", out, errOut)
	}
	oldOut, oldErr := r.run(t, 0, append([]string{"verify", r.t3, "--require-signed=false"}, trust...)...)
	if strings.Count(oldErr, unsigned) != 1 || oldOut != out {
		t.Errorf("--require-signed=false:\nstdout %s\nstderr %q", oldOut, oldErr)
	}
	for _, args := range [][]string{
		{"verify", r.t2},
		{"verify", r.t3, "--insecure-allow-unsigned=false"},
		{"verify", r.t2, "--require-signed"},
		{"verify", r.t2, "--sigstore-tlog-threshold", "2"},
	} {
		want := 0
		switch {
		case args[1] == r.t3:
			want = 1
		case len(args) > 3:
			want = 3 // a threshold without a trusted root
		}
		if _, errOut := r.run(t, want, append(args, trust...)...); strings.Contains(errOut, "WARNING") {
			t.Errorf("taskproof %q warned: %q", args, errOut)
		}
	}
	// Without a trusted root these end in exit 3, after the warning.
	const tlog = "WARNING: --insecure-ignore-tlog: Sigstore bundles without a transparency log entry are accepted"
	for _, flags := range [][]string{{"--insecure-ignore-tlog"}, {"--sigstore-tlog-threshold", "0"}} {
		if out, errOut := r.run(t, 3, append(append([]string{"verify", r.t2}, flags...), trust...)...); strings.Count(errOut, tlog) != 1 || strings.Contains(out, "WARNING") {
			t.Errorf("%v:\nstdout %s\nstderr %q", flags, out, errOut)
		}
	}
	const skip = "WARNING: --insecure-skip-verify: FROM's statements are re-signed with your key without checking their signatures"
	for _, flag := range []string{"--insecure-skip-verify", "--unverified-from-insecure"} {
		if _, errOut := r.run(t, 4, "attest", "carry", "no-such-rev", "HEAD", flag, "--unsigned"); strings.Count(errOut, skip) != 1 {
			t.Errorf("%s: stderr %q", flag, errOut)
		}
	}
	if _, errOut := r.run(t, 4, "attest", "carry", "no-such-rev", "HEAD", "--unsigned"); strings.Contains(errOut, "WARNING") {
		t.Errorf("attest carry warned: %q", errOut)
	}
}

// TestDeprecatedRequireSignedNote: the deprecation note of --require-signed
// is right for both of its values: =true is the default, =false is
// --insecure-allow-unsigned.
func TestDeprecatedRequireSignedNote(t *testing.T) {
	r := newVFRepo(t)
	const note = "Flag --require-signed has been deprecated, --require-signed=true is the default: drop it; for --require-signed=false use --insecure-allow-unsigned\n"
	for _, flag := range []string{"--require-signed", "--require-signed=true", "--require-signed=false"} {
		want := 1
		if flag == "--require-signed=false" {
			want = 0
		}
		if _, errOut := r.run(t, want, "verify", r.t3, flag, "--allowed-signers", r.allowed); strings.Count(errOut, note) != 1 {
			t.Errorf("%s: stderr %q", flag, errOut)
		}
	}
}

// TestUnknownCommandBeforeFlag: a mistyped subcommand followed by a flag is
// the unknown command it is (exit 2, the nearest names suggested), not an
// unknown flag of the command above it.
func TestUnknownCommandBeforeFlag(t *testing.T) {
	r := newVFRepo(t)
	for _, tc := range []struct {
		args             []string
		typed, suggested string
	}{
		{[]string{"verfy", "--branch"}, `unknown command "verfy" for "taskproof"`, "verify"},
		{[]string{"verfy", "--format", "json", "--branch"}, `unknown command "verfy" for "taskproof"`, "verify"},
		{[]string{"attest", "tik", "--verdict", "verified"}, `unknown command "tik" for "taskproof attest"`, "tick"},
		{[]string{"notes", "pus", "--remote", "origin"}, `unknown command "pus" for "taskproof notes"`, "push"},
	} {
		out, errOut := r.run(t, 2, tc.args...)
		if out != "" || !strings.Contains(errOut, "taskproof: "+tc.typed) || !strings.Contains(errOut, "Did you mean this?\n\t"+tc.suggested+"\n") || strings.Contains(errOut, "unknown flag") {
			t.Errorf("taskproof %q:\nstdout %q\nstderr %q", tc.args, out, errOut)
		}
	}
	// A flag a group command does not know, with no argument before it, is
	// still an unknown flag.
	if _, errOut := r.run(t, 2, "--bogus"); !strings.Contains(errOut, "unknown flag: --bogus") {
		t.Errorf("taskproof --bogus: %q", errOut)
	}
}

type usageResultJSON struct {
	SchemaVersion int    `json:"schema_version"`
	Conclusion    string `json:"conclusion"`
	Error         struct {
		Code     string `json:"code"`
		ExitCode int    `json:"exit_code"`
		Message  string `json:"message"`
	} `json:"error"`
}

func usageResult(t *testing.T, stdout string) usageResultJSON {
	t.Helper()
	var res usageResultJSON
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("the usage result: %v\n%s", err, stdout)
	}
	if res.SchemaVersion != 1 || res.Conclusion != "error" || res.Error.Code != "usage" || res.Error.ExitCode != 2 {
		t.Fatalf("the usage result: %+v", res)
	}
	return res
}

// TestUsageResultOfFlagErrors: a flag that cannot be parsed is a usage
// error like any other: with a machine --format (given before or after the
// bad flag) verify, audit and ticks write the usage result, exit 2, as they
// do for their other usage errors; with a format for people, or one the
// command does not write, stdout stays empty.
func TestUsageResultOfFlagErrors(t *testing.T) {
	r := newVFRepo(t)
	for _, args := range [][]string{
		{"verify", "--format", "json", "--branch", "--bogus"},
		{"verify", "--branch", "--bogus", "--format", "json"},
		{"verify", "--insecure-allow-unsigned=maybe", "--format=json"},
		{"verify", "--format", "json", "--at"},
		{"audit", "--format", "json", "--bogus"},
		{"ticks", "--bogus", "--format", "json"},
		{"ticks", "--format", "json", "a", "b"},
		{"audit", "--format", "json", "--at", "yesterday"},
	} {
		out, errOut := r.run(t, 2, args...)
		res := usageResult(t, out)
		if msg := strings.TrimSpace(strings.TrimPrefix(errOut, "taskproof: ")); !strings.HasPrefix(msg, res.Error.Message) {
			t.Errorf("taskproof %q: the result's message %q is not stderr's %q", args, res.Error.Message, errOut)
		}
	}
	for format, want := range map[string]string{
		"github": "::error title=taskproof verify::unknown flag: --bogus",
		"sarif":  `"executionSuccessful": false`,
		"junit":  `<error message="unknown flag: --bogus`,
	} {
		out, _ := r.run(t, 2, "verify", "--branch", "--bogus", "--format", format)
		if !strings.Contains(out, want) {
			t.Errorf("--format %s: stdout %q, want %q", format, out, want)
		}
	}
	for _, args := range [][]string{
		{"verify", "--branch", "--bogus"},
		{"verify", "--format", "text", "--bogus"},
		{"ticks", "--format", "sarif", "--bogus"},
		{"audit", "--format", "markdown", "--bogus"},
		{"verify", "--bogus", "--", "--format", "json"},
	} {
		if out, _ := r.run(t, 2, args...); out != "" {
			t.Errorf("taskproof %q: stdout %q", args, out)
		}
	}
}
