package schemadiff

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"slices"
	"sync"
)

// Comparing many files at once (diff and check of a project, diff --from/--to, --base):
// each file's old and new side is a Pair, compared once per distinct content and minor
// (Cache: dist/ and a chart's crds/ hold the same bytes), and the files whose comparisons
// find the same changes are grouped (GroupReports), so that a report says each change once
// with the files it is in.

// Group is the comparison of one or more files whose changes are the same. Report's
// changes name the files (Change.Files); its DescriptionsChanged is the sum of Descs.
type Group struct {
	Files  []string
	Descs  []int // descriptions changed, per file
	Report *Report
}

// Pair is one file's old and new content (nil: the file is missing on that side), and
// the compiled objects of a side that was compiled in this run (parsed from the content
// otherwise: reading YAML is most of the time a comparison takes). Sums identify the
// content of the two sides (Sum, old then new).
type Pair struct {
	Name                   string
	Old, New               []byte
	OldObjects, NewObjects []map[string]any
	Sums                   [2]Sum
	// Minor is the Kubernetes version whose update rules classify the changes (the set's
	// kubernetesVersion, --to, or diff's --k8s-version; "" the newest embedded).
	Minor string
}

// PairOf is the pair of two contents (nil: missing on that side).
func PairOf(name string, old, new []byte) Pair {
	return Pair{Name: name, Old: old, New: new, Sums: [2]Sum{SumOf(old), SumOf(new)}}
}

// Sum identifies a content within this process: 128 bits of maphash under two seeds made
// at start, so no repository can choose contents that collide (a cryptographic hash would
// link crypto/, and its FIPS module, into a binary that has no other use for them). The
// zero Sum is a missing content's, never an empty one's.
type Sum [2]uint64

var sumSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// SumOf is the Sum of b (nil: missing).
func SumOf(b []byte) Sum {
	if b == nil {
		return Sum{} // missing, apart from empty
	}
	return Sum{maphash.Bytes(sumSeeds[0], b) | 1, maphash.Bytes(sumSeeds[1], b)}
}

// Summer sums what is written to it, as it is written: Sum is then SumOf of all of it
// (a content hashed as it renders, never held whole).
type Summer struct{ h [2]maphash.Hash }

// NewSummer returns an empty Summer.
func NewSummer() *Summer {
	s := &Summer{}
	s.h[0].SetSeed(sumSeeds[0])
	s.h[1].SetSeed(sumSeeds[1])
	return s
}

// Write adds p to the sum; it never fails.
func (s *Summer) Write(p []byte) (int, error) {
	s.h[0].Write(p)
	s.h[1].Write(p)
	return len(p), nil
}

// Sum is the Sum of what was written.
func (s *Summer) Sum() Sum { return Sum{s.h[0].Sum64() | 1, s.h[1].Sum64()} }

// comparePair parses and compares one pair with rules, its minor's update rules.
func comparePair(p Pair, rules *Rules) (*Report, error) {
	parse := func(side string, data []byte, objs []map[string]any) ([]*CRD, error) {
		switch {
		case objs != nil:
			return FromObjects(side, objs)
		case data == nil:
			return nil, nil
		}
		return Parse(side, data, 0)
	}
	old, err := parse(p.Name+" (old)", p.Old, p.OldObjects)
	if err != nil {
		return nil, err
	}
	new, err := parse(p.Name+" (new)", p.New, p.NewObjects)
	if err != nil {
		return nil, err
	}
	return CompareFor(old, new, rules), nil
}

// Cache compares pairs once per distinct content and minor: dist/ and a chart's crds/
// hold the same bytes. The zero Cache is ready to use. Safe for concurrent use (two
// workers comparing the same content at once both compute it: the comparison is
// deterministic). A report it returns is shared: never modified.
type Cache struct {
	mu    sync.Mutex
	reps  map[cacheKey]*Report
	rules map[string]*Rules // by minor, as pairs name it
}

type cacheKey struct {
	sums  [2]Sum
	minor string
}

// Report compares p (its sides parsed from Old and New, or taken from OldObjects and
// NewObjects) with the update rules of p.Minor, or returns the report of a pair of the
// same sums and minor compared before.
func (c *Cache) Report(p Pair) (*Report, error) {
	key := cacheKey{p.Sums, p.Minor}
	c.mu.Lock()
	rep, rules := c.reps[key], c.rules[p.Minor]
	c.mu.Unlock()
	if rep != nil {
		return rep, nil
	}
	if rules == nil {
		var err error
		if rules, err = RulesFor(p.Minor); err != nil {
			return nil, err
		}
	}
	rep, err := comparePair(p, rules)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.reps == nil {
		c.reps, c.rules = map[cacheKey]*Report{}, map[string]*Rules{}
	}
	c.reps[key], c.rules[p.Minor] = rep, rules
	c.mu.Unlock()
	return rep, nil
}

// ComparePairs compares each pair (once per distinct content) and groups the files whose
// comparisons find the same changes (see GroupReports).
func ComparePairs(pairs []Pair) ([]Group, error) {
	var cache Cache
	names := make([]string, len(pairs))
	reps := make([]*Report, len(pairs))
	for i, p := range pairs {
		var err error
		if reps[i], err = cache.Report(p); err != nil {
			return nil, err
		}
		names[i] = p.Name
	}
	return GroupReports(names, reps)
}

// GroupReports groups the files named names, whose comparisons are reps (one each), that
// find the same changes: dist/ and a chart's crds/ hold the same bytes, and a copy with
// Kubernetes' descriptions differs only in them. Groups are in the order of their first
// file; reps are not modified.
func GroupReports(names []string, reps []*Report) ([]Group, error) {
	var groups []Group
	byChanges := map[string]int{}
	for fi, rep := range reps {
		key, err := json.Marshal(rep.Changes)
		if err != nil {
			return nil, err
		}
		i, ok := byChanges[string(key)]
		if !ok {
			i = len(groups)
			byChanges[string(key)] = i
			groups = append(groups, Group{Report: rep})
		}
		groups[i].Files = append(groups[i].Files, names[fi])
		groups[i].Descs = append(groups[i].Descs, rep.DescriptionsChanged)
	}
	for gi, g := range groups {
		rep := *g.Report
		rep.Changes = slices.Clone(rep.Changes)
		rep.DescriptionsChanged = 0
		for _, n := range g.Descs {
			rep.DescriptionsChanged += n
		}
		for i := range rep.Changes {
			rep.Changes[i].Files = g.Files
		}
		groups[gi].Report = &rep
	}
	return groups, nil
}

// GroupFiles groups the reports of reps that are not empty (GroupReports), each file
// named shown[its name].
func GroupFiles(reps []FileReport, shown map[string]string) ([]Group, error) {
	var names []string
	var changed []*Report
	for _, r := range reps {
		if !r.Report.Empty() {
			names = append(names, shown[r.Name])
			changed = append(changed, r.Report)
		}
	}
	return GroupReports(names, changed)
}

// Total is the report of every group: each group's changes once, with its files.
func Total(groups []Group) *Report {
	total := &Report{Changes: []Change{}}
	for _, g := range groups {
		total.Add(g.Report)
	}
	return total
}

// Content is one file's bytes on one side of CompareContents: Key pairs the two sides
// (a path relative to the git top level, a name in a directory), Shown names it in
// messages.
type Content struct {
	Key, Shown string
	Data       []byte
}

// CompareContents parses both sides (a file with the same bytes on both once, so that
// CompareFiles does not walk it) and compares them with CompareFiles, with the update
// rules of the minor minorOf names for each key. An error of RulesFor (an unknown minor)
// is returned with the reports.
func CompareContents(old, now []Content, minorOf func(key string) string) ([]FileReport, error) {
	oldFiles := make([]File, len(old))
	byKey := map[string]int{}
	for i, f := range old {
		crds, err := Parse(f.Shown, f.Data, 0)
		if err != nil {
			return nil, err
		}
		oldFiles[i] = File{Name: f.Key, CRDs: crds}
		byKey[f.Key] = i
	}
	newFiles := make([]File, len(now))
	for i, f := range now {
		if j, ok := byKey[f.Key]; ok && bytes.Equal(old[j].Data, f.Data) {
			newFiles[i] = oldFiles[j]
			continue
		}
		crds, err := Parse(f.Shown, f.Data, 0)
		if err != nil {
			return nil, err
		}
		newFiles[i] = File{Name: f.Key, CRDs: crds}
	}
	var rulesErr error
	rules := map[string]*Rules{}
	reps := CompareFiles(oldFiles, newFiles, func(key string) *Rules {
		v := minorOf(key)
		r, ok := rules[v]
		if !ok {
			var err error
			if r, err = RulesFor(v); err != nil && rulesErr == nil {
				rulesErr = err
			}
			rules[v] = r
		}
		return r
	})
	return reps, rulesErr
}
