package testreport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// cargo test's output, as `cargo test 2>&1` (or `cargo test --message-format
// json 2>&1`) writes it: cargo's status lines, rustc's diagnostics (text, or
// one JSON message per line), and each test binary's libtest lines.
var (
	cargoStart   = regexp.MustCompile(`^\s*(Compiling|Checking|Finished|Running|Doc-tests|Blocking|Locking|Updating|Fresh) |^(error|warning)(\[E\d+\])?: |^running \d+ tests?$`)
	cargoRunning = regexp.MustCompile(`^\s*Running (?:unittests )?(\S+)`)
	cargoDoc     = regexp.MustCompile(`^\s*Doc-tests (\S+)`)
	cargoTest    = regexp.MustCompile(`^test (\S+)(?: - should panic)? \.\.\. (ok|FAILED|ignored)\b`)
	cargoOutput  = regexp.MustCompile(`^---- (\S+) (?:stdout|stderr) ----$`)
)

// isCargo reports whether a report's first non-blank line is cargo's: a JSON
// message with a "reason" member, or one of cargo's or libtest's lines.
func isCargo(first []byte) bool {
	if bytes.HasPrefix(first, []byte("{")) {
		var m map[string]json.RawMessage
		if json.Unmarshal(first, &m) != nil {
			return false
		}
		_, ok := m["reason"]
		return ok
	}
	return cargoStart.Match(first)
}

// cargoMessage is one of cargo's JSON messages (`--message-format json`):
// only a compiler message's level and rendered text are read.
type cargoMessage struct {
	Reason  string `json:"reason"`
	Message *struct {
		Level    string `json:"level"`
		Rendered string `json:"rendered"`
	} `json:"message"`
	Target *struct {
		Name string `json:"name"`
	} `json:"target"`
}

// parseCargo reads cargo test's output. rustc's errors become one build
// [PackageFailure] per crate ("cargo" when the text does not name it); each
// libtest "test NAME ... ok|FAILED|ignored" line is a case, its class the
// source file of the binary cargo said it runs, its output the "---- NAME
// stdout ----" section. A line that starts with '{' and is not a JSON object
// is refused with its line number.
func parseCargo(name string, data []byte) (*Report, error) {
	r := &Report{Format: FormatCargo}
	builds := map[string]int{} // crate → index in r.Packages
	addBuild := func(crate, text string, line int) {
		i, ok := builds[crate]
		if !ok {
			i = len(r.Packages)
			builds[crate] = i
			r.Packages = append(r.Packages, PackageFailure{Package: crate, Build: true, Line: line})
		}
		p := &r.Packages[i]
		p.Output += text
		if !strings.HasSuffix(text, "\n") {
			p.Output += "\n"
		}
		p.lineNos = appendLineNos(p.lineNos, text, line)
	}
	index := map[string]int{} // source file + test → index in r.Cases
	var src string            // the binary being run's source file
	var inError bool          // inside a text diagnostic
	var out *Case             // the case whose output section this is
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		raw := strings.TrimRight(sc.Text(), "\r")
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "{") {
			var m cargoMessage
			if err := json.Unmarshal([]byte(t), &m); err != nil {
				return nil, &ParseError{File: name, Line: line, Reason: "not one of cargo's JSON messages: " + err.Error()}
			}
			if m.Reason == "compiler-message" && m.Message != nil && m.Message.Level == "error" {
				crate := "cargo"
				if m.Target != nil && m.Target.Name != "" {
					crate = m.Target.Name
				}
				addBuild(crate, m.Message.Rendered, line)
			}
			continue
		}
		if out != nil {
			if strings.HasPrefix(raw, "---- ") || raw == "failures:" || strings.HasPrefix(raw, "test result:") {
				out = nil
			} else {
				out.Output += raw + "\n"
				continue
			}
		}
		switch {
		case inError && t == "":
			inError = false
		case inError:
			addBuild("cargo", raw, line)
		case rustSummary.MatchString(raw):
			// cargo's closing word that a crate did not compile or a test
			// binary failed: the errors and cases before it say how.
		case rustError.MatchString(raw):
			inError = true
			addBuild("cargo", raw, line)
		case cargoRunning.MatchString(raw):
			src = cargoRunning.FindStringSubmatch(raw)[1]
		case cargoDoc.MatchString(raw):
			src = "doctest " + cargoDoc.FindStringSubmatch(raw)[1]
		case cargoTest.MatchString(raw):
			m := cargoTest.FindStringSubmatch(raw)
			k := src + "\x00" + m[1]
			i, seen := index[k]
			if !seen {
				i = len(r.Cases)
				index[k] = i
				c := Case{Suite: src, Class: src, Name: m[1]}
				if !strings.HasPrefix(src, "doctest ") {
					c.File = src
				}
				r.Cases = append(r.Cases, c)
			}
			r.Cases[i].Line = line
			switch m[2] {
			case "ok":
				r.Cases[i].Status = StatusPassed
			case "FAILED":
				r.Cases[i].Status = StatusFailed
			default:
				r.Cases[i].Status = StatusSkipped
			}
		case cargoOutput.MatchString(raw):
			k := src + "\x00" + cargoOutput.FindStringSubmatch(raw)[1]
			if i, ok := index[k]; ok {
				out = &r.Cases[i]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: name, Line: line + 1, Reason: err.Error()}
	}
	for i := range r.Cases {
		if !r.Cases[i].Failing() {
			r.Cases[i].Output = ""
		}
	}
	if len(r.Cases) == 0 && len(r.Packages) == 0 && !bytes.Contains(data, []byte("running 0 tests")) {
		return nil, &ParseError{File: name, Reason: fmt.Sprintf("cargo's output without a test result or a compiler error (want `cargo test 2>&1`)")}
	}
	return r, nil
}
