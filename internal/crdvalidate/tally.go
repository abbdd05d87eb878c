package crdvalidate

import (
	"cmp"
	"slices"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// Verdict is what became of one object of the files.
type Verdict int

// Verdicts.
const (
	Valid     Verdict = iota // judged, no problem
	Invalid                  // judged, at least one problem
	NotJudged                // nothing judged it (a custom resource no CRD defines, with IgnoreMissing)
)

// Object is one object of the files (a CRD, a custom resource, an object
// of Kubernetes' own kinds, an item of a kind: List), or, with Object "",
// a problem of a file that is no object's (it cannot be decoded; a CRD
// file given with --crd is invalid).
type Object struct {
	File    string
	Object  string // KIND/NAME, "" for a problem of the file
	Line    int    // where it starts
	Verdict Verdict
	// Problems are its problems (Invalid), or why it was not judged
	// (NotJudged).
	Problems []project.Problem
	file     int // the index of its file among the files (then the CRD files)
	seq      int // its place in its file, in the order read
}

// Tally counts the verdicts of a run of Files (Options.Tally), and with
// Options.ListObjects lists every object (what -o junit and -o tap
// print: one entry per object, not only those with problems).
type Tally struct {
	Valid, Invalid, NotJudged int
	// FileProblems counts the entries of Objects that are no object's:
	// files that cannot be decoded, invalid --crd files.
	FileProblems int
	Objects      []Object
}

// Total returns the number of objects counted.
func (t *Tally) Total() int { return t.Valid + t.Invalid + t.NotJudged }

// count adds the object to the tally.
func (t *Tally) count(o Object, list bool) {
	switch {
	case o.Object == "":
		t.FileProblems++
	case o.Verdict == Valid:
		t.Valid++
	case o.Verdict == Invalid:
		t.Invalid++
	default:
		t.NotJudged++
	}
	if list {
		t.Objects = append(t.Objects, o)
	}
}

// sortObjects puts the listed objects in the order of their files, and
// within a file the order they were read.
func (t *Tally) sortObjects() {
	slices.SortStableFunc(t.Objects, func(a, b Object) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.seq, b.seq))
	})
}
