package schemadiff

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompareFilesFollowsMovedCRDs: a CRD that left one file for another is compared with
// its old self where it is now, never crd-removed where it was nor crd-added where it is;
// only a CRD no file defines any more is removed, only one no file defined before is
// added; a file with the same values on both sides has an empty report.
func TestCompareFilesFollowsMovedCRDs(t *testing.T) {
	crd := func(name string, props string) *CRD {
		t.Helper()
		src := fmt.Sprintf("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: %s.example.com}\nspec:\n  group: example.com\n  names: {kind: K, plural: %s}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object, properties: {%s}}\n", name, name, props)
		crds, err := Parse(name+".yaml", []byte(src), 0)
		require.NoError(t, err)
		return crds[0]
	}
	same := crd("same", "a: {type: string}")
	old := []File{
		{Name: "dist/a.yaml", CRDs: []*CRD{crd("x", "a: {type: string}"), crd("moved", "a: {type: string}, b: {type: string}")}},
		{Name: "dist/b.yaml", CRDs: []*CRD{crd("gone", "a: {type: string}")}},
		{Name: "dist/same.yaml", CRDs: []*CRD{same}},
	}
	new := []File{
		{Name: "dist/a.yaml", CRDs: []*CRD{crd("x", "a: {type: string}")}},
		{Name: "dist/c.yaml", CRDs: []*CRD{crd("moved", "a: {type: string}"), crd("fresh", "a: {type: string}")}},
		{Name: "dist/same.yaml", CRDs: []*CRD{same}},
	}
	got := map[string][]string{}
	var order []string
	for _, fr := range CompareFiles(old, new, func(string) *Rules { return nil }) {
		order = append(order, fr.Name)
		for _, c := range fr.Report.Changes {
			got[fr.Name] = append(got[fr.Name], fmt.Sprintf("%s %s %s %v", c.CRD, c.Path, c.Kind, c.Breaking))
		}
	}
	require.Equal(t, []string{"dist/a.yaml", "dist/b.yaml", "dist/c.yaml", "dist/same.yaml"}, order)
	require.Equal(t, map[string][]string{
		"dist/b.yaml": {"gone.example.com  crd-removed true"},
		"dist/c.yaml": {"fresh.example.com  crd-added false", "moved.example.com .b property-removed true"},
	}, got)
}
