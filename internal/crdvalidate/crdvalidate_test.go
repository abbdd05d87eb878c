package crdvalidate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// wantIn names, per case, a fragment every problem list must hold: the
// point of the case, checked even when the golden file is rewritten.
var wantIn = map[string]string{
	"ref-left-in":                 "$ref",
	"listmap-key-without-default": "protocol",
	"missing-type":                "type",
	"valid":                       "",
}

// TestGolden validates each testdata/validate/<case>/crd.yaml and compares
// the report with want.txt (go test ./... -update rewrites it).
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/validate/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, "crd.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			res := Document(t.Context(), project.ValidationDoc{Name: "crd.yaml", Content: string(src), KubernetesVersion: "1.30"})
			var b strings.Builder
			for _, p := range res.Problems {
				fmt.Fprintf(&b, "error: %s\n", p)
			}
			for _, p := range res.Warnings {
				fmt.Fprintf(&b, "warning: %s\n", p)
			}
			golden.Check(t, filepath.Join(dir, "want.txt"), []byte(b.String()))
			frag, known := wantIn[name]
			if !known {
				t.Fatalf("add case %q to wantIn", name)
			}
			if frag == "" {
				if len(res.Problems) > 0 {
					t.Errorf("a valid CRD has problems: %v", res.Problems)
				}
				return
			}
			found := false
			for _, p := range res.Problems {
				found = found || strings.Contains(p.String(), frag)
			}
			if !found {
				t.Errorf("no problem mentions %q: %v", frag, res.Problems)
			}
		})
	}
}

func TestNotACRD(t *testing.T) {
	for _, src := range []string{"", "definitions: {}\n", "- a\n", "a: [\n"} {
		res := Document(t.Context(), project.ValidationDoc{Name: "x.yaml", Content: src})
		if len(res.Problems) == 0 {
			t.Errorf("%q: no problem reported", src)
		}
	}
}

// TestStrict: unknown and duplicate fields are problems in every form a
// document comes in (YAML, a JSON stream, JSON objects), each named.
func TestStrict(t *testing.T) {
	good := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},` +
		`"spec":{"group":"example.com","names":{"kind":"Widget","plural":"widgets"},"scope":"Namespaced",` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	unknown := strings.Replace(good, `"scope":`, `"scoop":"x","scope":`, 1)
	duplicate := strings.Replace(good, `"scope":`, `"scope":"Cluster","scope":`, 1)
	for _, tc := range []struct {
		name string
		doc  project.ValidationDoc
		want string // "" for valid
	}{
		{"JSON stream", project.ValidationDoc{Content: good + "\n" + good}, ""},
		{"objects", project.ValidationDoc{Objects: []json.RawMessage{json.RawMessage(good)}}, ""},
		{"unknown in a JSON stream", project.ValidationDoc{Content: good + "\n" + unknown}, `widgets.example.com: cannot decode: unknown field "spec.scoop"`},
		{"unknown in objects", project.ValidationDoc{Objects: []json.RawMessage{json.RawMessage(unknown)}}, `widgets.example.com: cannot decode: unknown field "spec.scoop"`},
		{"duplicate in a JSON stream", project.ValidationDoc{Name: "crd.json", Content: duplicate}, `crd.json:1:210: bad input: key "scope" is written twice in this mapping`},
		{"duplicate in objects", project.ValidationDoc{Objects: []json.RawMessage{json.RawMessage(duplicate)}}, `widgets.example.com: cannot decode: duplicate field "spec.scope"`},
		{"unknown in YAML", project.ValidationDoc{Content: "# a comment\n" + unknown}, `widgets.example.com: cannot decode: unknown field "spec.scoop"`},
		{"duplicate in YAML", project.ValidationDoc{Name: "crd.yaml", Content: "# a comment\n" + duplicate}, `:2:210: bad input: key "scope" is written twice in this mapping`},
		{"not an object in a JSON stream", project.ValidationDoc{Content: good + "\n[1]"}, "document 2 is not a mapping"},
		{"not a CRD", project.ValidationDoc{Content: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`}, `x: document 1 is not a CustomResourceDefinition (kind "ConfigMap")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.doc.Name = "crd.json"
			res := Document(t.Context(), tc.doc)
			if tc.want == "" {
				if len(res.Problems) > 0 {
					t.Errorf("problems: %v", res.Problems)
				}
				return
			}
			if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].String(), tc.want) {
				t.Errorf("problems %v, want one saying %q", res.Problems, tc.want)
			}
		})
	}
}

// TestDocumentsInParallel: validating a request's CRDs on several cores
// gives each document its problems and warnings in document order, as one
// core does, for a request of valid, invalid and undecodable CRDs.
func TestDocumentsInParallel(t *testing.T) {
	var docs []project.ValidationDoc
	dirs, _ := filepath.Glob("../../testdata/validate/*")
	for _, dir := range dirs {
		src, err := os.ReadFile(filepath.Join(dir, "crd.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, project.ValidationDoc{Name: dir, Content: string(src), KubernetesVersion: "1.30"})
	}
	all := ""
	for _, d := range docs {
		all += "---\n" + d.Content
	}
	docs = append(docs, project.ValidationDoc{Name: "all", Content: all + "---\nkind: ConfigMap\n", KubernetesVersion: "1.30"})
	sequential := func() []project.ValidationResult {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		return Documents(t.Context(), docs)
	}()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for range 5 {
		if got := Documents(t.Context(), docs); !reflect.DeepEqual(got, sequential) {
			t.Fatalf("in parallel:\n%v\none core:\n%v", got, sequential)
		}
	}
	last := sequential[len(sequential)-1]
	if n := len(last.Problems); n < len(dirs) {
		t.Errorf("the document of every case has %d problems, want at least %d: %v", n, len(dirs), last.Problems)
	}
}

// TestStreamAgreesWithDocuments: a Stream, fed one document at a time,
// gives the results Documents gives, in the same order: valid, invalid,
// not a CRD, empty, several CRDs in one document.
func TestStreamAgreesWithDocuments(t *testing.T) {
	valid := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"as.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"kind":"A","plural":"as"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	invalid := strings.Replace(valid, `"plural":"as"`, `"plural":"bs"`, 1)
	var docs []project.ValidationDoc
	for i := range 40 {
		objs := []json.RawMessage{json.RawMessage(valid)}
		switch i % 5 {
		case 1:
			objs = []json.RawMessage{json.RawMessage(invalid)}
		case 2:
			objs = []json.RawMessage{json.RawMessage(`{"kind":"ConfigMap"}`)}
		case 3:
			objs = []json.RawMessage{}
		case 4:
			objs = append(objs, json.RawMessage(invalid))
		}
		docs = append(docs, project.ValidationDoc{Name: fmt.Sprint("doc", i), Objects: objs})
	}
	docs[3].Objects = nil
	docs[3].Content = "# nothing\n"
	s := NewStream(t.Context())
	for _, d := range docs {
		s.Add(d)
	}
	got, want := s.Results(), Documents(t.Context(), docs)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stream:\n%v\ndocuments:\n%v", got, want)
	}
	if len(want[1].Problems) == 0 || len(want[0].Problems) > 0 || len(want[4].Problems) == 0 {
		t.Fatalf("the documents are not judged as meant: %v", want)
	}
}
