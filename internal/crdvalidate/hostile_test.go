package crdvalidate

import (
	"fmt"
	"strings"
	"testing"
)

// TestListItemsJudged: each item of a kind: List document (what kubectl
// get -o yaml prints) is judged as the object it is, its problems at its
// own lines, and a List of CRDs judges what follows it.
func TestListItemsJudged(t *testing.T) {
	crds := corpusCRDs(t)
	list := "apiVersion: v1\nkind: List\nitems:\n" +
		"- {apiVersion: example.com/v1, kind: Widget, metadata: {name: a}, spec: {size: small}}\n" +
		"- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: b}\n  spec:\n    size: enormous\n" +
		"- 7\n"
	results, _, err := Files(t.Context(), []Input{{Name: "list.yaml", Content: []byte(list)}}, Options{CRDs: crds})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range results[0].Problems {
		got = append(got, p.In("list.yaml"))
	}
	want := []string{
		"list.yaml:10:3: document 1 items/2 is not a mapping",
		"list.yaml:6:3: Widget/b: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
		"list.yaml:9:5: Widget/b: spec.size: Unsupported value: \"enormous\": supported values: \"small\", \"medium\", \"large\"",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSizeLimits: an object over etcd's 1.5 MiB, or over the apiserver's
// 3 MiB request limit, is a problem saying which limit; one below both is
// judged as usual.
func TestSizeLimits(t *testing.T) {
	crds := corpusCRDs(t)
	for _, tc := range []struct {
		size int
		want string
	}{
		{1 << 20, ""},
		{2 << 20, "etcd refuses to store an object over 1.5 MiB"},
		{5 << 20, "the apiserver refuses a request body over 3 MiB"},
	} {
		obj := fmt.Sprintf("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations: {big: %s}\nspec: {size: small}\n", strings.Repeat("x", tc.size))
		results, _, err := Files(t.Context(), []Input{{Name: "big.yaml", Content: []byte(obj)}}, Options{CRDs: crds})
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, p := range results[0].Problems {
			msgs = append(msgs, p.Message)
		}
		switch all := strings.Join(msgs, "\n"); {
		case tc.want == "" && strings.Contains(all, "MiB"):
			t.Errorf("%d bytes: a size problem: %s", tc.size, all)
		case tc.want != "" && !strings.Contains(all, tc.want):
			t.Errorf("%d bytes: want %q, got %q", tc.size, tc.want, all)
		}
	}
}

// TestMissingCRD: a custom resource no CRD given defines is a problem,
// naming the way out; with IgnoreMissing a warning; as a project's example
// a problem naming the project's groups.
func TestMissingCRD(t *testing.T) {
	crds := corpusCRDs(t)
	obj := []byte("apiVersion: exmaple.com/v1\nkind: Widget\nmetadata: {name: w}\n")
	for _, tc := range []struct {
		opts        Options
		problem     bool
		wantMessage string
	}{
		{Options{CRDs: crds}, true, "no CRD defines exmaple.com/v1 Widget, so nothing judges it: give the CRD with --crd or in the same stream, or pass --ignore-missing-schemas to skip such resources; did you mean example.com?"},
		{Options{CRDs: crds, IgnoreMissing: true}, false, "no CRD defines exmaple.com/v1 Widget: not validated (--ignore-missing-schemas)"},
		{Options{CRDs: crds, Examples: true}, true, "no CRD of the project defines exmaple.com/v1 Widget, so nothing judges this example: a set's examples are judged by the CRDs its templates compile; did you mean example.com?"},
	} {
		results, _, err := Files(t.Context(), []Input{{Name: "w.yaml", Content: obj}}, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		list := results[0].Warnings
		if tc.problem {
			list = results[0].Problems
		}
		if len(list) != 1 || list[0].Message != tc.wantMessage || len(results[0].Problems) > 0 != tc.problem {
			t.Errorf("%+v: got problems %v, warnings %v; want %q", tc.opts.IgnoreMissing, results[0].Problems, results[0].Warnings, tc.wantMessage)
		}
	}
}

// TestRulesNoteOnlyWithRules: "some validation rules were not checked" is
// said, as the apiserver says it, only for a CRD with CEL rules.
func TestRulesNoteOnlyWithRules(t *testing.T) {
	crds := corpusCRDs(t)
	for file, want := range map[string]bool{
		"dask-replicas-string.yaml": false, // the Dask CRDs have no CEL rules
		"widget-enum.yaml":          true,  // the widget CRD has
	} {
		content := readTestFile(t, "../../testdata/resources/cases/"+file)
		results, _, err := Files(t.Context(), []Input{{Name: file, Content: content}}, Options{CRDs: crds})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, p := range results[0].Problems {
			got = got || strings.Contains(p.Message, "some validation rules were not checked")
		}
		if got != want {
			t.Errorf("%s: the note is there: %v, want %v (%v)", file, got, want, results[0].Problems)
		}
	}
}

// TestMalformedNamesFileOnce: a file that is no YAML is one problem at the
// place the reader names, the file name printed once.
func TestMalformedNamesFileOnce(t *testing.T) {
	for name, src := range map[string]string{
		"broken.yaml": "apiVersion: example.com/v1\nkind: Widget\nspec:\n   a: 1\n  b: [1,\n",
		"binary.yaml": "a: b\n\x00",
	} {
		results, _, err := Files(t.Context(), []Input{{Name: name, Content: []byte(src)}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps := results[0].Problems
		if len(ps) != 1 || ps[0].Line == 0 || strings.Count(ps[0].In(name), name) != 1 {
			t.Errorf("%s: want one problem with a line, naming the file once: %v", name, ps)
		}
	}
}

// TestCRDsFromAList: --crd of what kubectl get crd -o yaml prints (a kind:
// List of CRDs) judges resources as the same CRDs in a stream do.
func TestCRDsFromAList(t *testing.T) {
	crds := corpusCRDs(t)
	var items strings.Builder
	for _, c := range crds {
		docs := strings.Split(string(c.Content), "\n---\n")
		for _, d := range docs {
			if strings.Contains(d, "kind: CustomResourceDefinition") {
				items.WriteString("- " + strings.ReplaceAll(strings.TrimSpace(strings.TrimPrefix(d, "---\n")), "\n", "\n  ") + "\n")
			}
		}
	}
	list := Input{Name: "crds.yaml", Content: []byte("apiVersion: v1\nkind: List\nitems:\n" + items.String())}
	content := readTestFile(t, "../../testdata/resources/cases/widget-enum.yaml")
	for name, opts := range map[string]Options{"stream": {CRDs: crds}, "list": {CRDs: []Input{list}}} {
		results, _, err := Files(t.Context(), []Input{{Name: "w.yaml", Content: content}}, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ps := results[0].Problems; len(ps) == 0 || !strings.Contains(ps[len(ps)-1].Message, "Unsupported value") {
			t.Errorf("%s: want the enum refused, got %v", name, ps)
		}
	}
}
