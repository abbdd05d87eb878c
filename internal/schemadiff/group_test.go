package schemadiff

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func readCase(t *testing.T, name, side string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(caseDir, name, side+".yaml"))
	require.NoError(t, err)
	return b
}

// TestSums: a Summer fed in pieces sums as SumOf the whole; missing and empty differ.
func TestSums(t *testing.T) {
	b := readCase(t, "bounds", "old")
	s := NewSummer()
	for rest := b; len(rest) > 0; rest = rest[min(len(rest), 7):] {
		s.Write(rest[:min(len(rest), 7)])
	}
	require.Equal(t, SumOf(b), s.Sum())
	require.NotEqual(t, SumOf(nil), SumOf([]byte{}))
	require.Equal(t, Sum{}, SumOf(nil))
	require.NotEqual(t, SumOf(b), SumOf(readCase(t, "bounds", "new")))
}

// TestCacheAndGroups: the same contents (and minor) are compared once; files whose
// changes are the same form one group, in the order of their first file, with the
// descriptions summed and the files named in each change; the cached reports are not
// modified by grouping; Total holds each group's changes once.
func TestCacheAndGroups(t *testing.T) {
	bo, bn := readCase(t, "bounds", "old"), readCase(t, "bounds", "new")
	go_, gn := readCase(t, "crd-group", "old"), readCase(t, "crd-group", "new")
	var c Cache
	r1, err := c.Report(PairOf("dist/a.yaml", bo, bn))
	require.NoError(t, err)
	r2, err := c.Report(PairOf("chart/a.yaml", slices.Clone(bo), slices.Clone(bn)))
	require.NoError(t, err)
	require.Same(t, r1, r2, "same contents compared twice")
	r3, err := c.Report(Pair{Name: "x", Old: bo, New: bn, Sums: [2]Sum{SumOf(bo), SumOf(bn)}, Minor: "1.30"})
	require.NoError(t, err)
	require.NotSame(t, r1, r3, "another minor shares a report")
	_, err = c.Report(Pair{Name: "x", Old: bo, New: bn, Sums: [2]Sum{SumOf(bo), SumOf(bn)}, Minor: "0.1"})
	require.Error(t, err)
	_, err = c.Report(PairOf("bad.yaml", []byte("kind: Nothing\n"), bn))
	require.Error(t, err)

	before := slices.Clone(r1.Changes)
	groups, err := ComparePairs([]Pair{PairOf("dist/a.yaml", bo, bn), PairOf("dist/g.yaml", go_, gn), PairOf("chart/a.yaml", bo, bn)})
	require.NoError(t, err)
	require.Len(t, groups, 2)
	require.Equal(t, []string{"dist/a.yaml", "chart/a.yaml"}, groups[0].Files)
	require.Equal(t, []string{"dist/g.yaml"}, groups[1].Files)
	require.Equal(t, []int{r1.DescriptionsChanged, r1.DescriptionsChanged}, groups[0].Descs)
	require.Equal(t, 2*r1.DescriptionsChanged, groups[0].Report.DescriptionsChanged)
	for _, ch := range groups[0].Report.Changes {
		require.Equal(t, groups[0].Files, ch.Files)
	}
	r4, err := c.Report(PairOf("dist/a.yaml", bo, bn))
	require.NoError(t, err)
	require.Equal(t, before, r4.Changes, "grouping modified a cached report")

	total := Total(groups)
	require.Len(t, total.Changes, len(groups[0].Report.Changes)+len(groups[1].Report.Changes))
	require.Empty(t, Total(nil).Changes)
	require.NotNil(t, Total(nil).Changes) // [] in JSON, never null
}

// TestCompareContentsAndGroupFiles: two sides paired by key, a moved CRD followed (as
// CompareFiles), identical bytes not walked; only the files that changed are grouped,
// under their shown names.
func TestCompareContentsAndGroupFiles(t *testing.T) {
	bo, bn := readCase(t, "bounds", "old"), readCase(t, "bounds", "new")
	old := []Content{{Key: "a.yaml", Shown: "old/a.yaml", Data: bo}, {Key: "same.yaml", Shown: "old/same.yaml", Data: bo}}
	now := []Content{{Key: "b.yaml", Shown: "new/b.yaml", Data: bn}, {Key: "same.yaml", Shown: "new/same.yaml", Data: slices.Clone(bo)}}
	reps, err := CompareContents(old, now, func(string) string { return "" })
	require.NoError(t, err)
	var names []string
	for _, r := range reps {
		names = append(names, r.Name)
	}
	require.Equal(t, []string{"a.yaml", "b.yaml", "same.yaml"}, names)
	require.True(t, reps[0].Report.Empty(), "the CRD moved out of a.yaml: nothing removed")
	require.False(t, reps[1].Report.Empty(), "b.yaml: compared with a.yaml's copy")
	require.True(t, reps[2].Report.Empty())
	groups, err := GroupFiles(reps, map[string]string{"a.yaml": "old/a.yaml", "b.yaml": "new/b.yaml", "same.yaml": "new/same.yaml"})
	require.NoError(t, err)
	require.Len(t, groups, 1)
	require.Equal(t, []string{"new/b.yaml"}, groups[0].Files)

	_, err = CompareContents(old, now, func(string) string { return "0.1" })
	require.Error(t, err, "an unknown minor")
	_, err = CompareContents([]Content{{Key: "x", Shown: "x", Data: []byte("kind: Nothing\n")}}, nil, func(string) string { return "" })
	require.ErrorContains(t, err, "x")
}
