package testreport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	junit "github.com/joshdk/go-junit"
)

// parseJUnit reads JUnit XML with github.com/joshdk/go-junit, after a pass of
// encoding/xml over the whole document so that a syntax error names its line
// and a document whose root is not <testsuites> or <testsuite> is refused.
// Nested suites are flattened; a case without a file attribute takes its
// suite's (jest-junit and vitest put it there).
func parseJUnit(name string, data []byte) (*Report, error) {
	lines, root, err := checkJUnit(name, data)
	if err != nil {
		return nil, err
	}
	suites, err := junit.Ingest(data)
	if err != nil {
		pe := &ParseError{File: name, Reason: err.Error()}
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			pe.Line, pe.Reason = se.Line, se.Msg
		}
		return nil, pe
	}
	r := &Report{Format: FormatJUnit, rootName: root}
	var walk func(s junit.Suite, file string)
	walk = func(s junit.Suite, file string) {
		if f := s.Properties["file"]; f != "" {
			file = f
		}
		suite := &junitSuite{names: make([]string, len(s.Tests))}
		for i, t := range s.Tests {
			suite.names[i] = t.Name
		}
		for _, t := range s.Tests {
			c := Case{Suite: s.Name, Class: t.Classname, Name: t.Name, File: t.Properties["file"], Message: t.Message, suite: suite}
			if k := (caseKey{t.Classname, t.Name}); len(lines[k]) > 0 {
				c.Line, lines[k] = lines[k][0], lines[k][1:]
			}
			if c.File == "" {
				c.File = file
			}
			switch t.Status {
			case junit.StatusFailed:
				c.Status = StatusFailed
			case junit.StatusError:
				c.Status = StatusError
			case junit.StatusSkipped:
				c.Status = StatusSkipped
			default:
				c.Status = StatusPassed
			}
			var je junit.Error
			if errors.As(t.Error, &je) {
				c.Type = je.Type
				c.Output = je.Body
			}
			for _, out := range []string{t.SystemOut, t.SystemErr} {
				if out != "" && c.Failing() {
					c.Output += "\n" + out
				}
			}
			r.Cases = append(r.Cases, c)
		}
		for _, sub := range s.Suites {
			walk(sub, file)
		}
	}
	for _, s := range suites {
		walk(s, "")
	}
	return r, nil
}

// caseKey is a <testcase>'s classname and name.
type caseKey struct{ class, name string }

// checkJUnit tokenises the document: well formed, one root element named
// testsuites or testsuite. It returns the lines of each <testcase>, in
// document order, by classname and name, and the root <testsuites>'s name.
func checkJUnit(name string, data []byte) (map[caseKey][]int, string, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	depth, roots := 0, 0
	lines := map[caseKey][]int{}
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, _ := dec.InputPos()
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, "", &ParseError{File: name, Line: se.Line, Reason: se.Msg}
			}
			return nil, "", &ParseError{File: name, Line: line, Reason: err.Error()}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "testcase" {
				var k caseKey
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "classname":
						k.class = a.Value
					case "name":
						k.name = a.Value
					}
				}
				line, _ := dec.InputPos()
				lines[k] = append(lines[k], line)
			}
			if depth == 0 {
				roots++
				if t.Name.Local != "testsuites" && t.Name.Local != "testsuite" {
					line, _ := dec.InputPos()
					return nil, "", &ParseError{File: name, Line: line, Reason: fmt.Sprintf("root element <%s> is not JUnit's <testsuites> or <testsuite>", t.Name.Local)}
				}
				if t.Name.Local == "testsuites" {
					for _, a := range t.Attr {
						if a.Name.Local == "name" {
							root = a.Value
						}
					}
				}
				if roots > 1 {
					line, _ := dec.InputPos()
					return nil, "", &ParseError{File: name, Line: line, Reason: "a second root element"}
				}
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots == 0 {
		return nil, "", &ParseError{File: name, Reason: "no <testsuites> or <testsuite> element"}
	}
	return lines, root, nil
}
