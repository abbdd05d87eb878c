package crdvalidate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// corpusCRDs returns this repository's Dask CRDs (dist/) and the widget
// CRD with CEL rules, compiled from its template as build would.
func corpusCRDs(t testing.TB) []Input {
	t.Helper()
	var out []Input
	dist, err := filepath.Glob("../../dist/dask*.yaml")
	if err != nil || len(dist) == 0 {
		t.Fatalf("no CRDs in dist/: %v", err)
	}
	for _, f := range dist {
		out = append(out, Input{Name: f, Content: readTestFile(t, f)})
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	c, err := resolver.New(resolver.Options{RemoveDescriptions: true, WorkDir: root, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	const template = "../../testdata/resources/widget.template.yaml"
	res, err := c.Compile(template, readTestFile(t, template))
	if err != nil {
		t.Fatal(err)
	}
	y, err := res.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return append(out, Input{Name: "widget.yaml", Content: y})
}

func readTestFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// corpusCase is one file of testdata/resources/cases: a custom resource
// and, on its first line, the verdict it must get:
//
//	# want: valid
//	# want: invalid FIELD...   (a problem at each FIELD, or under it)
//	# want: warning FIELD...   (accepted, with a warning at each FIELD)
type corpusCase struct {
	name, verdict string
	fields        []string
	content       []byte
}

func corpus(t testing.TB) []corpusCase {
	t.Helper()
	files, err := filepath.Glob("../../testdata/resources/cases/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var out []corpusCase
	for _, f := range files {
		content := readTestFile(t, f)
		first, _, _ := strings.Cut(string(content), "\n")
		want, ok := strings.CutPrefix(first, "# want: ")
		if !ok {
			t.Fatalf("%s: the first line must be # want: valid|invalid FIELD...|warning FIELD...", f)
		}
		words := strings.Fields(want)
		out = append(out, corpusCase{name: strings.TrimSuffix(filepath.Base(f), ".yaml"), verdict: words[0], fields: words[1:], content: content})
	}
	return out
}

// TestCorpusVerdicts judges every custom resource of the corpus against
// the Dask CRDs and the widget CRD, and asserts its verdict: valid (no
// problem, no warning), invalid (a problem at each named field) or
// warning (accepted, warned about at each named field).
func TestCorpusVerdicts(t *testing.T) {
	crds := corpusCRDs(t)
	for _, tc := range corpus(t) {
		t.Run(tc.name, func(t *testing.T) {
			results, _, err := Files(t.Context(), []Input{{Name: tc.name, Content: tc.content}}, Options{CRDs: crds})
			if err != nil {
				t.Fatal(err)
			}
			r := results[0]
			has := func(ps []project.Problem, fld string) bool {
				return slices.ContainsFunc(ps, func(p project.Problem) bool {
					return p.Field == fld || strings.HasPrefix(p.Field, fld+".") || strings.HasPrefix(p.Field, fld+"[")
				})
			}
			switch tc.verdict {
			case "valid":
				if len(r.Problems)+len(r.Warnings) > 0 {
					t.Errorf("want valid, got problems %v, warnings %v", r.Problems, r.Warnings)
				}
			case "invalid":
				if len(r.Problems) == 0 {
					t.Fatalf("want invalid, got no problem (warnings %v)", r.Warnings)
				}
				for _, f := range tc.fields {
					if !has(r.Problems, f) {
						t.Errorf("want a problem at %s, got %v", f, r.Problems)
					}
				}
			case "warning":
				if len(r.Problems) > 0 {
					t.Errorf("want accepted, got problems %v", r.Problems)
				}
				for _, f := range tc.fields {
					if !has(r.Warnings, f) {
						t.Errorf("want a warning at %s, got %v", f, r.Warnings)
					}
				}
			default:
				t.Fatalf("unknown verdict %q", tc.verdict)
			}
			for _, p := range append(slices.Clone(r.Problems), r.Warnings...) {
				if p.Line == 0 || p.Object == "" {
					t.Errorf("%v: want a line and an object", p)
				}
			}
		})
	}
}

// TestFractionOneProblem: a fractional number in an int-or-string field
// (cpu: 0.5, a targetPort of 80.5) is one problem, at the field, saying
// what to write, not the four the apiserver's schema validation makes of it
// (an anyOf at the object's start among them).
func TestFractionOneProblem(t *testing.T) {
	crds := corpusCRDs(t)
	for _, tc := range []struct{ file, fix string }{
		{"dask-cpu-float.yaml", `write "0.5" or "500m"`},
		{"dask-targetport-float.yaml", `write "`},
		{"widget-quantity-float.yaml", `write "`},
	} {
		content := readTestFile(t, "../../testdata/resources/cases/"+tc.file)
		results, _, err := Files(t.Context(), []Input{{Name: tc.file, Content: content}}, Options{CRDs: crds})
		if err != nil {
			t.Fatal(err)
		}
		ps := results[0].Problems
		if len(ps) != 1 || !strings.Contains(ps[0].Message, tc.fix) || ps[0].Field == "" {
			t.Errorf("%s: want one problem at the field with %q, got %v", tc.file, tc.fix, ps)
		}
	}
}
