package main

import (
	"bytes"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

// TestCIOutputs: what CI reads, for one set of files holding a valid and
// an invalid custom resource, a CRD, one of Kubernetes' own kinds, a kind
// no CRD defines, the items of a List and a file that breaks after its
// first object: the text output's closing summary line, -o junit (well
// formed XML) and -o tap (a TAP 13 stream whose plan counts its test
// points), each compared with its golden file under
// testdata/validate-output/ (regenerate with -update and review).
func TestCIOutputs(t *testing.T) {
	in := []string{"testdata/validate-output/in/crds-and-objects.yaml", "testdata/validate-output/in/broken.yaml"}
	for _, output := range []string{"text", "junit", "tap"} {
		t.Run(output, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := newCmd(strings.NewReader(""), &stdout, &stderr)
			c.SetArgs(append([]string{"-o", output, "--"}, in...))
			err := c.ExecuteContext(t.Context())
			if code, ok := err.(exitCode); !ok || code != exitProblems {
				t.Fatalf("exit %v, want %d (problems); stderr:\n%s", err, exitProblems, stderr.String())
			}
			got := "# stdout\n" + stdout.String() + "# stderr\n" + stderr.String()
			golden.Check(t, filepath.Join("testdata/validate-output", output+".golden"), []byte(got))
			switch output {
			case "text":
				lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
				if last := lines[len(lines)-1]; last != "7 objects: 5 valid, 2 invalid, 0 not judged; 1 problem outside any object" {
					t.Errorf("summary line %q", last)
				}
			case "junit":
				var doc junitSuites
				if err := xml.Unmarshal(stdout.Bytes(), &doc); err != nil {
					t.Fatalf("not XML: %v", err)
				}
				if doc.Tests != 8 || doc.Failures != 3 || doc.Skipped != 0 || len(doc.Suites) != 2 {
					t.Errorf("junit: %d tests, %d failures, %d skipped, %d suites; want 8, 3, 0, 2", doc.Tests, doc.Failures, doc.Skipped, len(doc.Suites))
				}
			case "tap":
				out := stdout.String()
				if !strings.HasPrefix(out, "TAP version 13\n") || !strings.HasSuffix(out, "\n1..8\n") || strings.Count(out, "\nok ")+strings.Count(out, "\nnot ok ") != 8 {
					t.Errorf("tap: not a TAP 13 stream of 8 test points:\n%s", out)
				}
			}
		})
	}
}
