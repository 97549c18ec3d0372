package testreport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// goEvent is one line of `go test -json` (cmd/test2json's TestEvent, with the
// build events of Go 1.24: ImportPath, "build-output", "build-fail").
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

// parseGoJSON reads `go test -json` output: one JSON object per line (blank
// lines allowed). A line that is not a JSON object with a known Action is
// refused with its line number. A test's result is its last pass/fail/skip
// event; a test that started but never ended (the run was killed or timed out)
// is failed. A package that failed with no failing test is a [PackageFailure]:
// Build when its test binary did not build (its build-output, or the output of
// older Go versions, which print the compiler's errors as package output).
func parseGoJSON(name string, data []byte) (*Report, error) {
	type tkey struct{ pkg, test string }
	r := &Report{Format: FormatGoJSON}
	index := map[tkey]int{}
	output := map[tkey]*strings.Builder{}
	build := map[string]*strings.Builder{} // by ImportPath
	buildLines := map[string][]int{}       // by ImportPath: the report line of each output line
	pkgLines := map[string][]int{}         // by Package: the report line of each package output line
	pkgFailed := map[string]string{}       // package → FailedBuild
	var pkgOrder []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var ev goEvent
		if b[0] != '{' {
			return nil, &ParseError{File: name, Line: line, Reason: fmt.Sprintf("not a `go test -json` event: %q", firstBytes(b))}
		}
		if err := json.Unmarshal(b, &ev); err != nil {
			return nil, &ParseError{File: name, Line: line, Reason: "not a `go test -json` event: " + err.Error()}
		}
		switch ev.Action {
		case "build-output":
			if build[ev.ImportPath] == nil {
				build[ev.ImportPath] = &strings.Builder{}
			}
			build[ev.ImportPath].WriteString(ev.Output)
			buildLines[ev.ImportPath] = appendLineNos(buildLines[ev.ImportPath], ev.Output, line)
			continue
		case "build-fail":
			continue
		case "start", "run", "pause", "cont", "output", "bench", "pass", "fail", "skip":
		default:
			return nil, &ParseError{File: name, Line: line, Reason: fmt.Sprintf("unknown `go test -json` action %q", ev.Action)}
		}
		if ev.Package == "" {
			return nil, &ParseError{File: name, Line: line, Reason: "event without Package"}
		}
		k := tkey{ev.Package, ev.Test}
		if output[k] == nil {
			output[k] = &strings.Builder{}
		}
		if ev.Action == "output" {
			output[k].WriteString(ev.Output)
			if ev.Test == "" {
				pkgLines[ev.Package] = appendLineNos(pkgLines[ev.Package], ev.Output, line)
			}
			continue
		}
		if ev.Test == "" {
			if ev.Action == "fail" {
				if _, seen := pkgFailed[ev.Package]; !seen {
					pkgOrder = append(pkgOrder, ev.Package)
				}
				pkgFailed[ev.Package] = ev.FailedBuild
			}
			continue
		}
		i, seen := index[k]
		if !seen {
			i = len(r.Cases)
			index[k] = i
			r.Cases = append(r.Cases, Case{Suite: ev.Package, Class: ev.Package, Name: ev.Test, Status: StatusFailed})
		}
		r.Cases[i].Line = line
		switch ev.Action {
		case "pass":
			r.Cases[i].Status = StatusPassed
		case "fail":
			r.Cases[i].Status = StatusFailed
		case "skip":
			r.Cases[i].Status = StatusSkipped
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: name, Line: line + 1, Reason: err.Error()}
	}
	for i := range r.Cases {
		c := &r.Cases[i]
		if o := output[tkey{c.Class, c.Name}]; o != nil && c.Failing() {
			c.Output = o.String()
		}
	}
	for _, pkg := range pkgOrder {
		var failing bool
		for _, c := range r.Cases {
			if c.Class == pkg && c.Failing() {
				failing = true
			}
		}
		fb := pkgFailed[pkg]
		out, lines := "", pkgLines[pkg]
		if o := output[tkey{pkg, ""}]; o != nil {
			out = o.String()
		}
		switch {
		case fb != "":
			if b := build[fb]; b != nil {
				out, lines = b.String(), buildLines[fb]
			}
			r.Packages = append(r.Packages, packageFailure(pkg, true, out, lines))
		case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
			r.Packages = append(r.Packages, packageFailure(pkg, strings.Contains(out, "[build failed]"), out, lines))
		case !failing || strings.Contains(out, goTimeout):
			r.Packages = append(r.Packages, packageFailure(pkg, false, out, lines))
		}
	}
	return r, nil
}

// appendLineNos records report line n for each line of output out.
func appendLineNos(nos []int, out string, n int) []int {
	for k := strings.Count(strings.TrimSuffix(out, "\n"), "\n") + 1; k > 0; k-- {
		nos = append(nos, n)
	}
	return nos
}

// packageFailure is a Go package failure with the report lines of its output.
func packageFailure(pkg string, build bool, out string, lines []int) PackageFailure {
	p := PackageFailure{Package: pkg, Build: build, Output: out, lineNos: lines}
	if len(lines) > 0 {
		p.Line = lines[0]
	}
	return p
}
