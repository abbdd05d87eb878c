package jsonschema

import (
	"strings"
	"testing"
)

// TestStrictClosesOnlyWhatIsPruned: a v1beta1 CRD prunes nothing unless
// preserveUnknownFields is false (its default is true), so its strict
// schema closes only the metadata; with false, or in v1, every typed
// object is closed.
func TestStrictClosesOnlyWhatIsPruned(t *testing.T) {
	crd := func(apiVersion, extra string) string {
		return "apiVersion: " + apiVersion + "\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n" +
			"spec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n" + extra +
			"  versions:\n  - name: v1\n    served: true\n    storage: true\n" +
			"    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}\n"
	}
	for _, tc := range []struct {
		name, src string
		closed    int // additionalProperties: false in the strict file
	}{
		{"v1", crd("apiextensions.k8s.io/v1", ""), 3},
		{"v1beta1, default", crd("apiextensions.k8s.io/v1beta1", ""), 1},
		{"v1beta1, preserveUnknownFields: true", crd("apiextensions.k8s.io/v1beta1", "  preserveUnknownFields: true\n"), 1},
		{"v1beta1, preserveUnknownFields: false", crd("apiextensions.k8s.io/v1beta1", "  preserveUnknownFields: false\n"), 3},
	} {
		files, err := Export([]Input{{Name: "crd.yaml", Content: []byte(tc.src)}}, LayoutKind)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f.Name, "-strict.json") {
				continue
			}
			if got := strings.Count(string(f.Data), `"additionalProperties": false`); got != tc.closed {
				t.Errorf("%s: %d objects closed, want %d:\n%s", tc.name, got, tc.closed, f.Data)
			}
		}
	}
}

// TestListOfCRDs: a kind: List of CRDs (kubectl get crd -o yaml) exports
// each item, as the same CRDs in a stream do.
func TestListOfCRDs(t *testing.T) {
	crd := "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.example.com}, " +
		"spec: {group: example.com, names: {kind: Widget, plural: widgets}, scope: Namespaced, " +
		"versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]}}"
	list, err := Export([]Input{{Name: "list.yaml", Content: []byte("apiVersion: v1\nkind: List\nitems:\n- " + crd + "\n")}}, LayoutKind)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := Export([]Input{{Name: "crd.yaml", Content: []byte(crd + "\n")}}, LayoutKind)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || len(stream) != 2 || string(list[0].Data) != string(stream[0].Data) || string(list[1].Data) != string(stream[1].Data) {
		t.Errorf("the List gives %d files, the stream %d, or other bytes", len(list), len(stream))
	}
}
