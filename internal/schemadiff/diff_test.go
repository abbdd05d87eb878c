package schemadiff

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

// caseDir holds one directory per change kind: old.yaml and new.yaml, small CRDs, and the
// report, want.txt for people and want.json for machines (the JSON contract).
const caseDir = "../../testdata/diff"

// render is what `k8s-crd-resolver diff OLD NEW` prints, in both forms.
func render(t *testing.T, old, new []byte) (text, js []byte, rep *Report) {
	t.Helper()
	o, err := Parse("old.yaml", old, 0)
	require.NoError(t, err)
	n, err := Parse("new.yaml", new, 0)
	require.NoError(t, err)
	rep = Compare(o, n)
	var tb bytes.Buffer
	if !rep.Empty() {
		rep.WriteText(&tb, "")
		tb.WriteString("total: " + rep.Summary() + "\n")
	}
	var jb bytes.Buffer
	require.NoError(t, WriteJSON(&jb, rep))
	return tb.Bytes(), jb.Bytes(), rep
}

func TestGolden(t *testing.T) {
	entries, err := os.ReadDir(caseDir)
	require.NoError(t, err)
	seen := map[Kind]map[bool]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			dir := filepath.Join(caseDir, e.Name())
			old, err := os.ReadFile(filepath.Join(dir, "old.yaml"))
			require.NoError(t, err)
			new, err := os.ReadFile(filepath.Join(dir, "new.yaml"))
			require.NoError(t, err)
			text, js, rep := render(t, old, new)
			golden.Check(t, filepath.Join(dir, "want.txt"), text)
			golden.Check(t, filepath.Join(dir, "want.json"), js)
			for _, c := range rep.Changes {
				if seen[c.Kind] == nil {
					seen[c.Kind] = map[bool]bool{}
				}
				seen[c.Kind][c.Breaking] = true
			}
			// Deterministic: a second run gives the same bytes.
			text2, js2, _ := render(t, old, new)
			require.Equal(t, text, text2)
			require.Equal(t, js, js2)
			// Comparing a schema with itself finds nothing.
			same, _, self := render(t, new, new)
			require.True(t, self.Empty(), "new.yaml against itself: %s", same)
		})
	}
	// Every kind has a case, with each classification it can get.
	want := map[Kind][]bool{
		PropertyAdded: {false, true}, PropertyRemoved: {false, true}, TypeChanged: {false, true},
		RequiredAdded: {true}, RequiredRemoved: {false}, ConstraintTightened: {true}, ConstraintLoosened: {false},
		DefaultChanged: {false}, ListTypeChanged: {true}, ListMapKeysChanged: {true}, MapTypeChanged: {false, true},
		PreserveUnknownChange: {false, true}, IntOrStringChanged: {false, true},
		CRDAdded: {false}, CRDRemoved: {true}, VersionAdded: {false}, VersionRemoved: {true},
		RuleMessageChanged: {false}, UnhandledChange: {true},
		GroupChanged: {true}, ScopeChanged: {true}, NamesChanged: {false, true}, ServedChanged: {false, true},
		StorageChanged: {false}, DeprecationChanged: {false}, SubresourceChanged: {false, true},
		ConversionChanged: {false, true}, PrinterColumnsChanged: {false}, SelectableFieldsChanged: {false, true},
	}
	for k, bs := range want {
		for _, b := range bs {
			require.True(t, seen[k][b], "no golden case has a %s change with breaking=%t", k, b)
		}
	}
	for k := range seen {
		require.Contains(t, want, k)
	}
}

// TestParseErrors: what is not a CRD stream says so, with the file and position.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"kind: [\n", "x.yaml:2:1: bad input: malformed YAML"},
		{"apiVersion: v1\nkind: ConfigMap\n", "x.yaml: no CustomResourceDefinition"},
		{"kind: CustomResourceDefinition\nspec: {}\n", "x.yaml: document 1: CustomResourceDefinition without metadata.name"},
		{"kind: CustomResourceDefinition\nmetadata: {name: a.b}\nspec: {}\n", "no spec.versions"},
	} {
		_, err := Parse("x.yaml", []byte(tc.src), 0)
		require.ErrorContains(t, err, tc.want)
	}
}

// TestSortedAndCounted: the counts are those of the changes, which are sorted.
func TestSortedAndCounted(t *testing.T) {
	old, err := os.ReadFile(filepath.Join(caseDir, "list-and-map-types/old.yaml"))
	require.NoError(t, err)
	new, err := os.ReadFile(filepath.Join(caseDir, "list-and-map-types/new.yaml"))
	require.NoError(t, err)
	_, _, rep := render(t, old, new)
	require.True(t, slices.IsSortedFunc(rep.Changes, func(a, b Change) int {
		if a.Path < b.Path {
			return -1
		}
		if a.Path > b.Path {
			return 1
		}
		return 0
	}))
	nb := 0
	for _, c := range rep.Changes {
		if c.Breaking {
			nb++
		}
	}
	require.Equal(t, nb, rep.Breaking)
	require.Equal(t, len(rep.Changes)-nb, rep.Compatible)
}

// TestJSONAndLists: a JSON stream (kubectl get crd -o json) and a kind: List of CRDs read the
// same as the YAML stream of the same CRDs.
func TestJSONAndLists(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(caseDir, "crds-and-versions/new.yaml"))
	require.NoError(t, err)
	want, err := Parse("new.yaml", src, 0)
	require.NoError(t, err)
	require.Len(t, want, 2)
	var items []any
	var stream []byte
	for _, c := range want {
		spec := maps.Clone(c.Spec)
		spec["versions"] = versionsOf(c)
		obj := map[string]any{"kind": "CustomResourceDefinition", "metadata": map[string]any{"name": c.Name}, "spec": spec}
		items = append(items, obj)
		b, err := json.Marshal(obj)
		require.NoError(t, err)
		stream = append(stream, b...)
		stream = append(stream, '\n')
	}
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	require.NoError(t, err)
	for _, data := range [][]byte{stream, list} {
		got, err := Parse("crds.json", data, 0)
		require.NoError(t, err)
		require.True(t, Compare(want, got).Empty())
		require.True(t, Compare(got, want).Empty())
	}
	_, err = Parse("crds.json", []byte(`{"kind": `), 0)
	require.ErrorContains(t, err, "crds.json:1:10: bad input: malformed JSON")
}

func versionsOf(c *CRD) []any {
	var vs []any
	for _, name := range slices.Sorted(maps.Keys(c.Versions)) {
		v := maps.Clone(c.Entries[name])
		v["schema"] = map[string]any{"openAPIV3Schema": c.Versions[name]}
		vs = append(vs, v)
	}
	return vs
}
