package resolver

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/emit"
)

// Fitting descriptions to a size (Options.FitDescriptions) and the
// per-$ref key descriptionsKey.
//
// A compile that fits keeps every description its author wrote (what a
// compile with RemoveDescriptions keeps: the text of the template and of
// the files its $refs reach) and as many of Kubernetes' as the limit
// allows, in this order: by depth, the number of properties between the
// field and the root of its openAPIV3Schema (the root's own description
// is depth 0, spec's 1, spec.job's 2; items and additionalProperties add
// no level: a list's items document the list's field), shallowest first;
// within a depth, in the order they stand in the output (keys sorted, the
// CRD's versions in order). Descriptions are taken in that order while the
// next one still fits, so what is kept is every description up to some
// depth and the first ones of the next, never a deeper one in place of a
// shallower one. When the CRD fits with all of them, nothing is dropped.
//
// The work, after the one compile with descriptions: a walk of the CRD's
// schemas that takes out Kubernetes' descriptions (withoutKubeDescriptions:
// a description is Kubernetes' when a bundle definition brought its text
// in and the author wrote that text nowhere, which the compile logs as it
// resolves), a walk of the CRD with descriptions down to the first one
// that does not fit, a copy of the stripped CRD on the way to each kept
// one, and a render. Every step is linear in the CRD's values (sorting
// keys aside, as rendering does): sizes are counted per description,
// never by rendering trial outputs.

// descriptionsKey is the key a template writes beside a $ref to say how
// deep Kubernetes' descriptions go under it: "none" (not even the
// field's own), "all", or a depth N (the field's own description and N
// levels of fields below it). It is never written to the output. It
// bounds what a compile keeps, with or without FitDescriptions (which
// then fits what the bounds leave); the innermost key stands for its
// subtree. RemoveDescriptions drops them all whatever it says.
const descriptionsKey = "x-descriptions"

// DescriptionFit says what a compile with Options.FitDescriptions, or with
// descriptionsKey in its template, kept of Kubernetes' descriptions in
// one CRD.
type DescriptionFit struct {
	// Total is how many descriptions from Kubernetes the CRD has with
	// all of them kept; Kept how many it has.
	Total, Kept int
	// Depth is the depth of the deepest one kept when some were dropped
	// (-1: none kept, or all).
	Depth int
	// Limit is Options.FitDescriptions (0: none, only descriptionsKey
	// bounds applied).
	Limit Size
	// Fits is false when the CRD is larger than Limit even without any of
	// Kubernetes' descriptions: it is then compiled without them, and
	// the caller reports it (a size guard).
	Fits bool
}

// Applied reports whether fitting (or a descriptionsKey bound) was at
// work on the CRD.
func (f DescriptionFit) Applied() bool { return f.Limit > 0 || f.Total > 0 }

// noDepth and allDepths are the bounds of "none" and "all".
const (
	noDepth   = -1
	allDepths = math.MaxInt
)

// descBound is a descriptionsKey written in a template's schema.
type descBound struct {
	doc   *document
	ptr   string // of the schema holding it, in the template (the compiled CRD's)
	depth int    // levels below the field kept: noDepth, allDepths or N
}

// parseDescriptionsKey reads the value of a descriptionsKey.
func parseDescriptionsKey(v any) (int, error) {
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v) // a number; anything else is no depth either way
	}
	switch s {
	case "none":
		return noDepth, nil
	case "all":
		return allDepths, nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && s == strconv.Itoa(n) {
		return n, nil
	}
	return 0, fmt.Errorf("%w: %s is %s: want none, all or a depth (0 keeps only the field's own description, 1 its fields' too...)", ErrInput, descriptionsKey, describeDescValue(v))
}

func describeDescValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	if v == nil {
		return "empty"
	}
	return describeValue(v) + " " + fmt.Sprint(v)
}

// descriptionsKeyAt handles a descriptionsKey in the template's schema m
// at ptr (hasRef: m holds a $ref): a bound recorded for the compiled CRD,
// or an error at the key.
func (r *run) descriptionsKeyAt(m map[string]any, sc scope, ptr string, hasRef bool) {
	v, ok := m[descriptionsKey]
	if !ok {
		return
	}
	at := site{sc: sc, ptr: joinPointer(ptr, descriptionsKey)}
	depth, err := parseDescriptionsKey(v)
	switch {
	case err != nil:
		r.errAt(at, err)
	case !hasRef:
		r.errAt(at, fmt.Errorf("%w: %s stands beside a $ref (it says how deep the descriptions of what the $ref brings in go)", ErrInput, descriptionsKey))
	case sc.inBundle() || sc.file != r.template || !strings.HasPrefix(ptr, "/spec/"):
		r.errAt(at, fmt.Errorf("%w: %s is read only in a template's own openAPIV3Schema, not in definitions a $ref reaches; write it beside the $ref in the template", ErrInput, descriptionsKey))
	default:
		r.bounds = append(r.bounds, descBound{doc: sc.doc, ptr: ptr, depth: depth})
	}
}

// fitNode is a schema (or list) visited by the fitting walk: the step
// from its parent (a key, or an index into the parent's list), and its
// copy in the output, made when a description is added below it.
type fitNode struct {
	parent *fitNode
	key    string
	idx    int // >= 0: an index into the parent, a list
	copy   any
}

// at is the node at key k of n, a mapping; item the node at index i of
// n, a list.
func (n *fitNode) at(k string) *fitNode { return &fitNode{parent: n, key: k, idx: -1} }
func (n *fitNode) item(i int) *fitNode  { return &fitNode{parent: n, idx: i} }

// fitVisit is a schema to visit at a depth: m in the CRD compiled with
// descriptions, bare its counterpart without Kubernetes' descriptions.
type fitVisit struct {
	m     any
	bare  any
	node  *fitNode
	upTo  int    // keep Kubernetes' descriptions down to this depth
	ptr   string // the pointer, while it may lead to a bound (track)
	track bool
}

// fitter fits one CRD. It visits the CRD compiled with descriptions depth
// by depth (visits holds the next depth's), each depth in document order,
// adding the descriptions that fit to a copy-on-write of the CRD without
// them: what no kept description lies under stays shared with it (and
// with the compile's cached targets), and nothing deeper than the first
// description that does not fit is visited.
type fitter struct {
	bounds map[string]int  // descriptionsKey bounds by pointer
	prefix map[string]bool // every pointer on the way to a bound
	bare   map[string]any  // the CRD without Kubernetes' descriptions
	limit  int64           // 0: no limit (bounds only)
	size   int64           // bare's JSON, and the descriptions added
	added  int64           // the bytes added (description texts, with keys and commas)
	full   bool            // a description did not fit: stop
	depth  int             // of the last one kept
	kept   int
	visits []fitVisit
	next   []fitVisit
}

// fitDocument returns the CRD without Kubernetes' descriptions (bare,
// which full, the CRD with them, has total of) with as many of them added
// back as fit limit (0: all that the bounds allow).
func (c *Compiler) fitDocument(full, bare Document, total int, bounds []descBound, limit Size) Document {
	f := &fitter{bounds: map[string]int{}, prefix: map[string]bool{}, bare: bare.obj, limit: int64(limit), size: bare.jsonSize, depth: -1}
	for _, b := range bounds {
		f.bounds[b.ptr] = b.depth
		for p := b.ptr; p != ""; p = p[:strings.LastIndexByte(p, '/')] {
			f.prefix[p] = true
		}
	}
	root := &fitNode{idx: -1}
	f.queueSchemas(root, full.obj, bare.obj)
	fit := DescriptionFit{Total: total, Depth: -1, Limit: limit, Fits: f.limit == 0 || f.size <= f.limit}
	if !fit.Fits {
		return Document{Name: bare.Name, obj: bare.obj, jsonSize: bare.jsonSize, yamlSize: bare.yamlSize, fit: &fit}
	}
	if len(bounds) == 0 && (f.limit == 0 || full.jsonSize <= f.limit) {
		fit.Kept = total
		full.fit = &fit
		return full
	}
	for depth := 0; len(f.visits) > 0 && !f.full; depth++ {
		for _, v := range f.visits {
			if f.full {
				break
			}
			f.visit(v, depth)
		}
		f.visits, f.next = f.next, f.visits[:0]
	}
	fit.Kept, fit.Depth = f.kept, f.depth
	obj := bare.obj
	if root.copy != nil {
		obj = root.copy.(map[string]any)
	}
	return Document{Name: bare.Name, obj: obj, jsonSize: f.size, yamlSize: sat(bare.yamlSize + 2*f.added), fit: &fit}
}

// queueSchemas queues the visits of the CRD's schemas at depth 0 (full's,
// each with its counterpart in bare): spec.validation's, then each
// version's, below root.
func (f *fitter) queueSchemas(root *fitNode, full, bare map[string]any) {
	spec := root.at("spec")
	schemaAt := func(holder *fitNode, h, bh any, ptr string) {
		s, ok := dig(h, "openAPIV3Schema").(map[string]any)
		if !ok {
			return
		}
		bs := dig(bh, "openAPIV3Schema")
		ptr += "/openAPIV3Schema"
		f.visits = append(f.visits, fitVisit{m: s, bare: bs, node: holder.at("openAPIV3Schema"), upTo: allDepths, ptr: ptr, track: f.prefix[ptr]})
	}
	schemaAt(spec.at("validation"), dig(full, "spec", "validation"), dig(bare, "spec", "validation"), "/spec/validation")
	versions, _ := dig(full, "spec", "versions").([]any)
	bareVersions, _ := dig(bare, "spec", "versions").([]any)
	list := spec.at("versions")
	for i, v := range versions {
		var bv any
		if i < len(bareVersions) {
			bv = dig(bareVersions[i], "schema")
		}
		schemaAt(list.item(i).at("schema"), dig(v, "schema"), bv, "/spec/versions/"+itoa(i)+"/schema")
	}
}

// visit visits one schema at depth: its description, then, in key order,
// the schemas at the same depth below it (items, additionalProperties...),
// while its properties wait for the next depth.
func (f *fitter) visit(v fitVisit, depth int) {
	m := asSchema(v.m)
	if m == nil || f.full {
		return
	}
	bm := asSchema(v.bare)
	upTo := f.bound(v, depth)
	if d, ok := m["description"].(string); ok && depth <= upTo {
		if _, own := bm["description"]; !own && !f.keep(v.node, m, d, depth) {
			return
		}
	}
	f.children(v, m, bm, upTo, depth)
}

// bound is the depth down to which v keeps Kubernetes' descriptions: its
// parent's, unless a descriptionsKey stands at v.
func (f *fitter) bound(v fitVisit, depth int) int {
	if v.track {
		if n, ok := f.bounds[v.ptr]; ok {
			if n == allDepths {
				return allDepths
			}
			return depth + n
		}
	}
	return v.upTo
}

// keep adds d, Kubernetes' description of m (at node, at depth), to the
// output when it fits; when it does not, the fitter is full: false.
func (f *fitter) keep(node *fitNode, m map[string]any, d string, depth int) bool {
	cost := docread.JSONStringLen("description") + 1 + docread.JSONStringLen(d)
	if emit.VisibleLen(m) > 1 {
		cost++
	}
	if f.limit > 0 && f.size+cost > f.limit {
		f.full = true
		return false
	}
	if out, ok := f.own(node).(map[string]any); ok {
		out["description"] = d
		f.size += cost
		f.added += cost
		f.kept++
		f.depth = depth
	}
	return true
}

// children visits the schemas of m (bare: bm) at the same depth, in key
// order, and queues its properties for the next.
func (f *fitter) children(v fitVisit, m, bm map[string]any, upTo, depth int) {
	for _, k := range sortedKeys(m) {
		x := m[k]
		switch {
		case k == "properties":
			props := asSchema(x)
			bp := asSchema(bm[k])
			holder := v.node.at(k)
			for _, name := range sortedKeys(props) {
				f.next = append(f.next, f.child(v, props[name], bp[name], holder.at(name), upTo, "properties/"+docread.EscapePointerToken(name)))
			}
		case bundlefmt.SchemaValued(k) || bundlefmt.SchemaLists(k):
			if list, ok := x.([]any); ok {
				bl, _ := bm[k].([]any)
				holder := v.node.at(k)
				for i, item := range list {
					var b any
					if i < len(bl) {
						b = bl[i]
					}
					f.visit(f.child(v, item, b, holder.item(i), upTo, k+"/"+itoa(i)), depth)
				}
				continue
			}
			f.visit(f.child(v, x, bm[k], v.node.at(k), upTo, k), depth)
		}
	}
}

// child is the visit of x (bare: b) at node, tail below v: its pointer
// is built only when v's may lead to a bound (track).
func (f *fitter) child(v fitVisit, x, b any, node *fitNode, upTo int, tail string) fitVisit {
	cv := fitVisit{m: x, bare: b, node: node, upTo: upTo}
	if v.track {
		cv.ptr = v.ptr + "/" + tail
		cv.track = f.prefix[cv.ptr]
	}
	return cv
}

// own returns the output's copy of node: the bare CRD's value there,
// copied once (a mapping shallowly, a list as a new list) and set in its
// parent's copy, so that a description can be added to it. nil when bare
// has no such value.
func (f *fitter) own(n *fitNode) any {
	if n.copy != nil {
		return n.copy
	}
	var v any
	if n.parent == nil {
		v = f.bare
	} else {
		switch p := f.own(n.parent).(type) {
		case map[string]any:
			v = p[n.key]
		case []any:
			if n.idx >= 0 && n.idx < len(p) {
				v = p[n.idx]
			}
		}
	}
	switch t := v.(type) {
	case map[string]any:
		n.copy = maps.Clone(t)
	case []any:
		n.copy = slices.Clone(t)
	default:
		return nil
	}
	if n.parent != nil {
		switch p := n.parent.copy.(type) {
		case map[string]any:
			p[n.key] = n.copy
		case []any:
			p[n.idx] = n.copy
		}
	}
	return n.copy
}

// kubeDescriptions is the set of description texts that are Kubernetes'
// in what r compiled: brought in by a bundle definition, and written by
// the author nowhere (not in the template, a file its $refs reach, or its
// patch). A text both wrote counts as the author's, and is kept.
func kubeDescriptions(r *run) map[string]bool {
	own := make(map[string]bool, len(r.ownTexts))
	for _, s := range r.ownTexts {
		own[s] = true
	}
	if r.patch != nil {
		for _, op := range r.patch.ops {
			if op.op == "add" || op.op == "replace" { // what writes a value
				patchTexts(op.value, strings.HasSuffix(op.path, "/description"), own)
			}
		}
	}
	kube := make(map[string]bool, len(r.kubeTexts))
	for _, s := range r.kubeTexts {
		if !own[s] {
			kube[s] = true
		}
	}
	return kube
}

// patchTexts adds to own the description texts in v, a patch operation's
// value (the text itself when the operation's path is a description).
func patchTexts(v any, isText bool, own map[string]bool) {
	switch t := v.(type) {
	case string:
		if isText {
			own[t] = true
		}
	case map[string]any:
		for k, x := range t {
			patchTexts(x, k == "description", own)
		}
	case []any:
		for _, x := range t {
			patchTexts(x, false, own)
		}
	}
}

// withoutKubeDescriptions returns the CRD full without Kubernetes'
// descriptions (kube) in its schemas, as a compile with
// RemoveDescriptions would give it (TestFitWithoutRoomIsTheBareCompile),
// and how many it took out: maps holding one, and those on the way to
// them, are copied, the rest is shared with full.
// One walk of the CRD's schemas as written out (a subtree used twice is
// walked twice), as a render walks them.
func withoutKubeDescriptions(full Document, kube map[string]bool) (Document, int) {
	st := &stripper{kube: kube}
	// schema strips the openAPIV3Schema of holder (spec.validation or a
	// version's schema).
	schema := func(holder any) (any, bool) { return under(holder, "openAPIV3Schema", st.strip) }
	obj, _ := under(full.obj, "spec", func(spec any) (any, bool) {
		spec, validation := under(spec, "validation", schema)
		spec, versions := under(spec, "versions", func(v any) (any, bool) {
			l, ok := v.([]any)
			if !ok {
				return v, false
			}
			return cowList(l, func(version any) (any, bool) { return under(version, "schema", schema) })
		})
		return spec, validation || versions
	})
	return Document{Name: full.Name, obj: obj.(map[string]any), jsonSize: full.jsonSize - st.removed, yamlSize: full.yamlSize - st.removed}, st.n
}

// stripper takes Kubernetes' descriptions (kube) out of schemas for
// withoutKubeDescriptions, counting what it took out: n descriptions,
// removed bytes of JSON.
type stripper struct {
	kube    map[string]bool
	removed int64
	n       int
}

// strip returns v without kube's descriptions, and whether it removed
// any (v itself when not).
func (st *stripper) strip(v any) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, false
	}
	var out map[string]any
	set := func(k string, x any) {
		if out == nil {
			out = maps.Clone(m)
		}
		out[k] = x
	}
	if d, ok := m["description"].(string); ok && st.kube[d] {
		cost := docread.JSONStringLen("description") + 1 + docread.JSONStringLen(d)
		if emit.VisibleLen(m) > 1 {
			cost++
		}
		st.removed += cost
		st.n++
		out = maps.Clone(m)
		delete(out, "description")
	}
	for k, x := range m {
		switch {
		case k == "properties":
			props := asSchema(x)
			var np map[string]any
			for name, p := range props {
				if s, changed := st.strip(p); changed {
					if np == nil {
						np = maps.Clone(props)
					}
					np[name] = s
				}
			}
			if np != nil {
				set(k, np)
			}
		case bundlefmt.SchemaValued(k) || bundlefmt.SchemaLists(k):
			if l, ok := x.([]any); ok {
				if nl, changed := cowList(l, st.strip); changed {
					set(k, nl)
				}
			} else if s, changed := st.strip(x); changed {
				set(k, s)
			}
		}
	}
	if out == nil {
		return m, false
	}
	return out, true
}
