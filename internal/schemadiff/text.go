package schemadiff

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Summary is the one-line total: "2 breaking, 40 compatible, 12 descriptions changed".
func (r *Report) Summary() string {
	return fmt.Sprintf("%d breaking, %d compatible, %d description(s) changed", r.Breaking, r.Compatible, r.DescriptionsChanged)
}

// line is one printed line of a section: a change, or a group of field changes of one object.
type line struct {
	path, text, reason string
	ratcheted          bool
}

// WriteText prints the report for people, indented by indent: a heading per CRD version
// with its counts, then its breaking changes (each with its reason) and its compatible
// ones. Changes to fields of one object share a line: ".spec: +a, +b, required +c".
func (r *Report) WriteText(w io.Writer, indent string) {
	type key struct{ crd, version string }
	groups := map[key][]Change{}
	for _, c := range r.Changes {
		k := key{c.CRD, c.Version}
		groups[k] = append(groups[k], c)
	}
	for k := range r.descs {
		if _, ok := groups[key{k[0], k[1]}]; !ok && r.descs[k] > 0 {
			groups[key{k[0], k[1]}] = nil
		}
	}
	keys := slices.SortedFunc(maps.Keys(groups), func(a, b key) int {
		return cmp.Or(cmp.Compare(a.crd, b.crd), cmp.Compare(a.version, b.version))
	})
	for _, k := range keys {
		cs := groups[k]
		nb := 0
		for _, c := range cs {
			if c.Breaking {
				nb++
			}
		}
		head := k.crd
		if k.version != "" {
			head += " " + k.version
		}
		descs := ""
		if n := r.descs[[2]string{k.crd, k.version}]; n > 0 {
			descs = fmt.Sprintf(", %d description(s) changed", n)
		}
		fmt.Fprintf(w, "%s%s: %d breaking, %d compatible%s\n", indent, head, nb, len(cs)-nb, descs)
		for _, breaking := range []bool{true, false} {
			var sel []Change
			for _, c := range cs {
				if c.Breaking == breaking {
					sel = append(sel, c)
				}
			}
			if len(sel) == 0 {
				continue
			}
			fmt.Fprintf(w, "%s  %s:\n", indent, map[bool]string{true: "breaking", false: "compatible"}[breaking])
			for _, l := range lines(sel) {
				fmt.Fprintf(w, "%s    %s: %s\n", indent, shown(l.path), l.text)
				if breaking {
					fmt.Fprintf(w, "%s      %s\n", indent, l.reason)
				}
			}
		}
	}
}

func shown(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

// lines groups field changes by object and kind and renders the rest one per line, sorted
// by path.
func lines(cs []Change) []line {
	type gk struct {
		parent string
		kind   Kind
		reason string
	}
	fields := map[gk][]string{}
	var out []line
	for _, c := range cs {
		if c.name != "" {
			k := gk{c.parent, c.Kind, c.Reason}
			fields[k] = append(fields[k], c.name)
			continue
		}
		out = append(out, line{path: c.Path, text: describe(c), reason: c.Reason, ratcheted: c.Ratcheted})
	}
	prefix := map[Kind]string{PropertyAdded: "+", PropertyRemoved: "-", RequiredAdded: "required +", RequiredRemoved: "required -"}
	for k, names := range fields {
		slices.Sort(names)
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = prefix[k.kind] + n
		}
		out = append(out, line{path: k.parent, text: strings.Join(parts, ", "), reason: k.reason})
	}
	slices.SortFunc(out, func(a, b line) int { return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.text, b.text)) })
	return out
}

// describe renders one change that is not a field change.
func describe(c Change) string {
	switch c.Kind {
	case CRDAdded, CRDRemoved, VersionAdded, VersionRemoved:
		return strings.ReplaceAll(string(c.Kind), "-", " ")
	}
	s := fmt.Sprintf("%s %s -> %s", c.Keyword, value(c.Old), value(c.New))
	switch c.Kind {
	case ConstraintTightened:
		s += " (tightened)"
	case ConstraintLoosened:
		s += " (loosened)"
	}
	return s
}
