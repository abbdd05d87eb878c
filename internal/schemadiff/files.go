package schemadiff

import (
	"cmp"
	"maps"
	"slices"
)

// File is one file of a set compared with CompareFiles: its name (the key that pairs the
// two sides, and what the report names) and the CRDs it holds, in order.
type File struct {
	Name string
	CRDs []*CRD
}

// FileReport is the comparison of the file named Name on the two sides.
type FileReport struct {
	Name   string
	Report *Report
}

// CompareFiles compares two sets of files (a directory at two commits, a project's outputs
// before and after a pull request), file by file with CompareFor and the rules rulesFor
// gives for the file's name, and returns one report per name of either side, sorted by
// name.
//
// A CRD is a CRD of the cluster wherever a file holds it. One that a file held and another
// file now defines moved (a renamed template, an output directory moved, two templates
// merged): it is left out of the file it left, and compared, in the file that holds it now,
// with the copy that held it before (the first in name order when several did), never
// reported removed and added. Only a CRD that no file defines any more is crd-removed, and
// only one that no file defined before is crd-added.
//
// Linear in the CRDs: files and CRDs are matched through maps. A file that holds the same
// *CRD values on both sides (the caller parsed identical bytes once) is not walked.
func CompareFiles(old, new []File, rulesFor func(name string) *Rules) []FileReport {
	index := func(files []File) (map[string]File, map[string]*CRD) {
		byName := make(map[string]File, len(files))
		first := map[string]*CRD{} // CRD name -> its copy in the first file, in name order
		for _, f := range slices.SortedFunc(slices.Values(files), func(a, b File) int { return cmp.Compare(a.Name, b.Name) }) {
			byName[f.Name] = f
			for _, c := range f.CRDs {
				if first[c.Name] == nil {
					first[c.Name] = c
				}
			}
		}
		return byName, first
	}
	oldFiles, oldCRDs := index(old)
	newFiles, newCRDs := index(new)
	names := slices.Sorted(maps.Keys(oldFiles))
	for n := range newFiles {
		if _, ok := oldFiles[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	out := make([]FileReport, 0, len(names))
	for _, name := range names {
		o, n := oldFiles[name], newFiles[name]
		if slices.Equal(o.CRDs, n.CRDs) && len(o.CRDs) > 0 {
			out = append(out, FileReport{Name: name, Report: CompareFor(nil, nil, rulesFor(name))})
			continue
		}
		inOld, inNew := crdNames(o.CRDs), crdNames(n.CRDs)
		var before []*CRD
		for _, c := range o.CRDs {
			if !inNew[c.Name] && newCRDs[c.Name] != nil {
				continue // moved: compared where it is now
			}
			before = append(before, c)
		}
		for _, c := range n.CRDs {
			if !inOld[c.Name] && oldCRDs[c.Name] != nil {
				before = append(before, oldCRDs[c.Name]) // moved here
			}
		}
		out = append(out, FileReport{Name: name, Report: CompareFor(before, n.CRDs, rulesFor(name))})
	}
	return out
}

func crdNames(crds []*CRD) map[string]bool {
	m := make(map[string]bool, len(crds))
	for _, c := range crds {
		m[c.Name] = true
	}
	return m
}
