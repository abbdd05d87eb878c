package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdvalidate"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
)

// The reports CI reads: the closing summary line of the text output, and
// -o junit and -o tap, which list every object with its verdict (an
// object judged valid is a passed test, one with problems a failed one,
// one nothing judged a skipped one). A problem of a file that is no
// object's (it cannot be decoded; a --crd file is invalid) is a failed
// test named after the file. Everything is in the order the objects were
// read, and nothing depends on the clock: the same input prints the same
// bytes.

// summary is the closing line of the text output:
// "N objects: V valid, I invalid, S not judged", then, when there are
// any, the count of problems outside any object (a file that cannot be
// decoded past some point, an invalid --crd file).
func summary(t *crdvalidate.Tally) string {
	s := fmt.Sprintf("%d %s: %d valid, %d invalid, %d not judged", t.Total(), plural(t.Total(), "object", "objects"), t.Valid, t.Invalid, t.NotJudged)
	if t.FileProblems > 0 {
		s += fmt.Sprintf("; %d %s outside any object", t.FileProblems, plural(t.FileProblems, "problem", "problems"))
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// testName names an object's test: FILE:LINE KIND/NAME, or the file
// alone for a problem of the file.
func testName(o crdvalidate.Object) string {
	place := o.File
	if o.Line > 0 {
		place += ":" + strconv.Itoa(o.Line)
	}
	if o.Object == "" {
		return place
	}
	return place + " " + o.Object
}

// problemLines are the object's problems (or why it was not judged) as
// the text output prints them.
func problemLines(o crdvalidate.Object) []string {
	out := make([]string, len(o.Problems))
	for i, p := range o.Problems {
		out[i] = render(o.File, p)
	}
	return out
}

// writeTAP writes the objects as a TAP version 13 stream: one test point
// per object, a YAML block of the problems under a failed one, a skipped
// one marked # SKIP with why, and the plan last.
func writeTAP(w io.Writer, t *crdvalidate.Tally) error {
	var b strings.Builder
	b.WriteString("TAP version 13\n")
	for i, o := range t.Objects {
		// A description may hold no newline, and "#" starts a directive.
		desc := strings.ReplaceAll(safetext.Quote(testName(o)), "#", `\#`)
		switch o.Verdict {
		case crdvalidate.Valid:
			fmt.Fprintf(&b, "ok %d - %s\n", i+1, desc)
		case crdvalidate.NotJudged:
			why := "not judged"
			if len(o.Problems) > 0 {
				why = o.Problems[0].Message
			}
			fmt.Fprintf(&b, "ok %d - %s # SKIP %s\n", i+1, desc, strings.ReplaceAll(safetext.Quote(why), "#", `\#`))
		default:
			fmt.Fprintf(&b, "not ok %d - %s\n  ---\n  problems:\n", i+1, desc)
			for _, l := range problemLines(o) {
				// A YAML double-quoted scalar: strconv.Quote's escapes are
				// YAML's for every rune it escapes.
				fmt.Fprintf(&b, "    - %s\n", strconv.Quote(l))
			}
			b.WriteString("  ...\n")
		}
	}
	fmt.Fprintf(&b, "1..%d\n", len(t.Objects))
	_, err := io.WriteString(w, b.String())
	return err
}

// The JUnit XML document: testsuites, one testsuite per file, one
// testcase per object.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes the objects as JUnit XML: a testsuite per file, in
// the order read, whose testcases are its objects, named KIND/NAME with
// the file and line as classname; a failure carries the first problem as
// its message and all of them as its text, a skipped case why.
func writeJUnit(w io.Writer, t *crdvalidate.Tally) error {
	doc := junitSuites{Name: "k8s-crd-resolver validate"}
	for _, o := range t.Objects {
		if len(doc.Suites) == 0 || doc.Suites[len(doc.Suites)-1].Name != o.File {
			doc.Suites = append(doc.Suites, junitSuite{Name: o.File})
		}
		s := &doc.Suites[len(doc.Suites)-1]
		c := junitCase{Name: o.Object, ClassName: testName(o)}
		if c.Name == "" {
			c.Name = "(file)"
		}
		switch o.Verdict {
		case crdvalidate.Invalid:
			lines := problemLines(o)
			c.Failure = &junitMessage{Message: lines[0], Type: "invalid", Text: strings.Join(lines, "\n")}
			s.Failures++
		case crdvalidate.NotJudged:
			why := "not judged"
			if len(o.Problems) > 0 {
				why = render(o.File, o.Problems[0])
			}
			c.Skipped = &junitMessage{Message: why}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
