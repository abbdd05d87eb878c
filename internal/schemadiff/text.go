package schemadiff

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
)

// WriteJSON is the one JSON writer of reports (diff's, check's, which holds a Report, and
// the tests'): indented by two spaces, with <, > and & as they are (rules and patterns hold
// them; a report is not HTML), and control characters escaped as JSON escapes them.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

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
// ones. Changes to fields of one object share a line: ".spec: +a, +b, required +c". What
// came from the CRDs (names, paths, values) is quoted where it could forge a line
// (safetext.Quote).
func (r *Report) WriteText(w io.Writer, indent string) { r.WriteTextOnce(w, indent, nil) }

// WriteTextOnce is WriteText for one of several reports printed together
// (check's and diff's, one per file): a reason already in seen is named by
// its kind and "as above" instead of said again, and each reason said is
// added to seen. A nil seen says every reason.
func (r *Report) WriteTextOnce(w io.Writer, indent string, seen map[string]bool) {
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
		head := safetext.Quote(k.crd)
		if k.version != "" {
			head += " " + safetext.Quote(k.version)
		}
		descs := ""
		if n := r.descs[[2]string{k.crd, k.version}]; n > 0 {
			descs = fmt.Sprintf(", %d description(s) changed", n)
		}
		fmt.Fprintf(w, "%s%s: %d breaking, %d compatible%s\n", indent, head, nb, len(cs)-nb, descs)
		var breaking, compatible []Change
		for _, c := range cs {
			if c.Breaking {
				breaking = append(breaking, c)
			} else {
				compatible = append(compatible, c)
			}
		}
		if len(breaking) > 0 {
			fmt.Fprintf(w, "%s  breaking:\n", indent)
			// One heading per reason, then the paths it applies to.
			byReason := map[[2]string][]Change{}
			for _, c := range breaking {
				k := [2]string{string(c.Kind), c.Reason}
				byReason[k] = append(byReason[k], c)
			}
			for _, k := range slices.SortedFunc(maps.Keys(byReason), func(a, b [2]string) int {
				return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
			}) {
				switch said := k[0] + "\x00" + k[1]; {
				case seen == nil || !seen[said]:
					fmt.Fprintf(w, "%s    %s: %s\n", indent, k[0], safetext.Quote(k[1]))
					if seen != nil {
						seen[said] = true
					}
				default:
					fmt.Fprintf(w, "%s    %s: as above\n", indent, k[0])
				}
				for _, l := range lines(byReason[k]) {
					fmt.Fprintf(w, "%s      %s: %s\n", indent, l.path, l.text)
				}
			}
		}
		if len(compatible) > 0 {
			fmt.Fprintf(w, "%s  compatible:\n", indent)
			for _, l := range lines(compatible) {
				fmt.Fprintf(w, "%s    %s: %s\n", indent, l.path, l.text)
			}
		}
	}
}

func shown(path string) string {
	if path == "" {
		return "(root)"
	}
	return safetext.Quote(path)
}

// lines groups field changes by object and kind and renders the rest one per line, sorted
// by path, the paths and texts quoted where unsafe. Changes outside the schemas are one
// line each, at their CRD field.
func lines(cs []Change) []line {
	var crdLines []line
	cs = slices.DeleteFunc(slices.Clone(cs), func(c Change) bool {
		if c.Field == "" {
			return false
		}
		crdLines = append(crdLines, line{path: safetext.Quote(c.Field), text: describe(c)})
		return true
	})
	out := schemaLines(cs)
	for i := range out {
		out[i].path = shown(out[i].path)
	}
	out = append(out, crdLines...)
	slices.SortFunc(out, func(a, b line) int { return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.text, b.text)) })
	return out
}

// schemaLines is lines for schema changes, paths as they are.
func schemaLines(cs []Change) []line {
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
			parts[i] = prefix[k.kind] + safetext.Quote(n)
		}
		out = append(out, line{path: k.parent, text: strings.Join(parts, ", "), reason: k.reason})
	}
	out = merge(out)
	slices.SortFunc(out, func(a, b line) int { return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.text, b.text)) })
	return out
}

// merge folds lines with the same text whose paths differ in one step into one line with
// the alternatives in braces, until nothing folds: the same change to every embedded
// PodSpec reads ".spec.{scheduler,worker}.spec.{containers,initContainers}[*].env".
func merge(in []line) []line {
	type entry struct {
		steps []string
		text  string
	}
	es := make([]entry, len(in))
	for i, l := range in {
		es[i] = entry{steps: steps(l.path), text: l.text}
	}
	for changed := true; changed; {
		changed = false
		for pos := 0; ; pos++ {
			any := false
			groups := map[string][]int{}
			var order []string
			for i, e := range es {
				if pos >= len(e.steps) {
					continue
				}
				any = true
				if !strings.HasPrefix(e.steps[pos], ".") {
					continue
				}
				rest := slices.Clone(e.steps)
				rest[pos] = "\x00"
				k := e.text + "\x01" + strings.Join(rest, "\x02")
				if groups[k] == nil {
					order = append(order, k)
				}
				groups[k] = append(groups[k], i)
			}
			if !any {
				break
			}
			var next []entry
			done := map[int]bool{}
			for _, k := range order {
				idx := groups[k]
				if len(idx) == 1 {
					continue
				}
				var alts []string
				for _, i := range idx {
					done[i] = true
					alts = append(alts, alternatives(es[i].steps[pos])...)
				}
				slices.Sort(alts)
				alts = slices.Compact(alts)
				e := entry{steps: slices.Clone(es[idx[0]].steps), text: es[idx[0]].text}
				e.steps[pos] = ".{" + strings.Join(alts, ",") + "}"
				next = append(next, e)
				changed = true
			}
			for i, e := range es {
				if !done[i] {
					next = append(next, e)
				}
			}
			es = next
		}
	}
	out := make([]line, len(es))
	for i, e := range es {
		out[i] = line{path: strings.Join(e.steps, ""), text: e.text}
	}
	return out
}

// steps splits a path after each step: ".a", ".b", "[*]", "{*}".
func steps(path string) []string {
	var out []string
	start := 0
	for i := 1; i < len(path); i++ {
		if path[i] == '.' || strings.HasPrefix(path[i:], "[*]") || strings.HasPrefix(path[i:], "{*}") {
			out = append(out, path[start:i])
			start = i
		}
	}
	if path != "" {
		out = append(out, path[start:])
	}
	return out
}

// alternatives lists the names a step stands for: ".a" -> [a], ".{a,b}" -> [a b].
func alternatives(step string) []string {
	name := strings.TrimPrefix(step, ".")
	if strings.HasPrefix(name, "{") && strings.HasSuffix(name, "}") && name != "{*}" {
		return strings.Split(name[1:len(name)-1], ",")
	}
	return []string{name}
}

// describe renders one change that is not a field change.
func describe(c Change) string {
	switch c.Kind {
	case CRDAdded, CRDRemoved, VersionAdded, VersionRemoved:
		return strings.ReplaceAll(string(c.Kind), "-", " ")
	}
	notKept := ""
	if c.NotKeptBy != "" {
		notKept = " (not kept by Kubernetes " + c.NotKeptBy + ")"
	}
	if c.Field != "" { // the line's path names the field
		return fmt.Sprintf("%s -> %s%s", safetext.Quote(value(c.Old)), safetext.Quote(value(c.New)), notKept)
	}
	s := fmt.Sprintf("%s %s -> %s", safetext.Quote(c.Keyword), safetext.Quote(value(c.Old)), safetext.Quote(value(c.New)))
	switch {
	case notKept != "":
		s += notKept
	case c.Kind == ConstraintTightened:
		s += " (tightened)"
	case c.Kind == ConstraintLoosened:
		s += " (loosened)"
	}
	return s
}

// WithoutDescriptions is r without its description counts (for printing a group of files
// whose changes are the same but whose descriptions differ).
func (r *Report) WithoutDescriptions() *Report {
	c := *r
	c.DescriptionsChanged, c.descs = 0, nil
	return &c
}
