package resolver

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// Fitting descriptions to a size (Options.FitDescriptions) and the
// per-$ref key DescriptionsKey.
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
// The work is one more compile of the template without descriptions (its
// $ref targets come from the lazy store, so it is the cheap compile of
// RemoveDescriptions; it tells the author's descriptions from
// Kubernetes'), one copy of the compiled CRD that drops what is not kept,
// and a render of that copy. Every step is linear in the CRD's values
// (sorting keys aside, as rendering does): the sizes are counted per
// description as the copy is walked, never by rendering trial outputs.

// DescriptionsKey is the key a template writes beside a $ref to say how
// deep Kubernetes' descriptions go under it: "none" (not even the
// field's own), "all", or a depth N (the field's own description and N
// levels of fields below it). It is never written to the output. It
// bounds what a compile keeps, with or without FitDescriptions (which
// then fits what the bounds leave); the innermost key stands for its
// subtree. RemoveDescriptions drops them all whatever it says.
const DescriptionsKey = "x-descriptions"

// DescriptionFit says what a compile with Options.FitDescriptions, or with
// DescriptionsKey in its template, kept of Kubernetes' descriptions in
// one CRD.
type DescriptionFit struct {
	// Total is how many descriptions from Kubernetes the CRD has with
	// all of them kept; Kept how many it has.
	Total, Kept int
	// Depth is the depth of the deepest one kept (-1: none kept).
	Depth int
	// Limit is Options.FitDescriptions (0: none, only DescriptionsKey
	// bounds applied).
	Limit Size
	// Fits is false when the CRD is larger than Limit even without any of
	// Kubernetes' descriptions: it is then compiled without them, and
	// the caller reports it (a size guard).
	Fits bool
}

// Applied reports whether fitting (or a DescriptionsKey bound) was at
// work on the CRD.
func (f DescriptionFit) Applied() bool { return f.Limit > 0 || f.Total > 0 }

// noDepth and allDepths are the bounds of "none" and "all".
const (
	noDepth   = -1
	allDepths = math.MaxInt
)

// descBound is a DescriptionsKey written in a template's schema.
type descBound struct {
	doc   *document
	ptr   string // of the schema holding it, in the template (the compiled CRD's)
	depth int    // levels below the field kept: noDepth, allDepths or N
}

// parseDescriptionsKey reads the value of a DescriptionsKey.
func parseDescriptionsKey(v any) (int, error) {
	s := ""
	switch t := v.(type) {
	case string:
		s = t
	default:
		s = fmt.Sprint(t)
		if _, ok := v.(bool); ok || v == nil {
			s = ""
		}
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
	return 0, fmt.Errorf("%w: %s is %s: want none, all or a depth (0 keeps only the field's own description, 1 its fields' too...)", ErrInput, DescriptionsKey, describeDescValue(v))
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

// descriptionsKeyAt handles a DescriptionsKey in the template's schema m
// at ptr (hasRef: m holds a $ref): a bound recorded for the compiled CRD,
// or an error at the key.
func (r *run) descriptionsKeyAt(m map[string]any, sc scope, ptr string, hasRef bool) {
	v, ok := m[DescriptionsKey]
	if !ok {
		return
	}
	at := site{sc: sc, ptr: joinPointer(ptr, DescriptionsKey)}
	depth, err := parseDescriptionsKey(v)
	switch {
	case err != nil:
		r.errAt(at, err)
	case !hasRef:
		r.errAt(at, fmt.Errorf("%w: %s stands beside a $ref (it says how deep the descriptions of what the $ref brings in go)", ErrInput, DescriptionsKey))
	case sc.inBundle() || sc.file != r.template || !strings.HasPrefix(ptr, "/spec/"):
		r.errAt(at, fmt.Errorf("%w: %s is read only in a template's own openAPIV3Schema, not in definitions a $ref reaches; write it beside the $ref in the template", ErrInput, DescriptionsKey))
	default:
		r.bounds = append(r.bounds, descBound{doc: sc.doc, ptr: ptr, depth: depth})
	}
}

// fitCandidate is a description of Kubernetes' that may be kept: the
// schema holding it and what it costs in compact JSON.
type fitCandidate struct {
	m     map[string]any
	bytes int64
}

// fitter walks a copy of a compiled CRD beside the same CRD compiled
// without descriptions.
type fitter struct {
	bounds map[string]int  // DescriptionsKey bounds by pointer
	prefix map[string]bool // every pointer on the way to a bound
	byDep  [][]fitCandidate
	total  int
	none   int64 // bytes of every Kubernetes description, kept or not
}

// fitDocument returns full (compiled with descriptions) with Kubernetes'
// descriptions fitted to limit (0: all that the bounds allow); bare is
// the same CRD compiled with RemoveDescriptions.
func (c *Compiler) fitDocument(full, bare Document, bounds []descBound, limit Size) (Document, DescriptionFit) {
	f := &fitter{bounds: map[string]int{}, prefix: map[string]bool{}}
	for _, b := range bounds {
		f.bounds[b.ptr] = b.depth
		for p := b.ptr; p != ""; p = p[:strings.LastIndexByte(p, '/')] {
			f.prefix[p] = true
		}
	}
	obj := cleanCopy(full.obj).(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	bareSpec, _ := bare.obj["spec"].(map[string]any)
	root := func(holder, bareHolder any, ptr string) {
		h, _ := holder.(map[string]any)
		s, ok := h["openAPIV3Schema"].(map[string]any)
		if !ok {
			return
		}
		bh, _ := bareHolder.(map[string]any)
		ptr += "/openAPIV3Schema"
		f.walk(s, bh["openAPIV3Schema"], 0, allDepths, ptr, f.prefix[ptr])
	}
	root(spec["validation"], bareSpec["validation"], "/spec/validation")
	versions, _ := spec["versions"].([]any)
	bareVersions, _ := bareSpec["versions"].([]any)
	for i, v := range versions {
		var bv any
		if i < len(bareVersions) {
			bv = dig(bareVersions[i], "schema")
		}
		root(dig(v, "schema"), bv, "/spec/versions/"+itoa(i)+"/schema")
	}
	fit := DescriptionFit{Total: f.total, Depth: -1, Limit: limit, Fits: true}
	size := full.jsonSize - f.none
	if limit > 0 && size > int64(limit) {
		fit.Fits = false
	}
	stopped := !fit.Fits
	for depth, cands := range f.byDep {
		for _, cand := range cands {
			if !stopped && (limit == 0 || size+cand.bytes <= int64(limit)) {
				size += cand.bytes
				fit.Kept++
				fit.Depth = depth
				continue
			}
			stopped = true
			delete(cand.m, "description")
		}
	}
	measured := measurer{memo: map[unsafe.Pointer]cost{}}.measure(obj)
	return Document{Name: full.Name, obj: obj, jsonSize: measured.bytes, yamlSize: sat(measured.bytes + 2*measured.indent), render: full.render, fit: &fit}, fit
}

// walk visits schema m (a fresh copy) at depth, with bare its counterpart
// compiled without descriptions (nil, or a lazy entry, where everything
// below is Kubernetes'), keeping Kubernetes' descriptions down to depth
// upTo. ptr is m's pointer while it may lead to a bound (track).
func (f *fitter) walk(m map[string]any, bare any, depth, upTo int, ptr string, track bool) {
	bm, _ := bare.(map[string]any)
	if track {
		if n, ok := f.bounds[ptr]; ok {
			upTo = depth + n
			if n == allDepths {
				upTo = allDepths
			}
		}
	}
	if d, ok := m["description"].(string); ok {
		if _, own := bm["description"]; !own {
			cost := jsonStringLen("description") + 1 + jsonStringLen(d)
			if visibleLen(m) > 1 {
				cost++
			}
			f.total++
			f.none += cost
			if depth <= upTo {
				for len(f.byDep) <= depth {
					f.byDep = append(f.byDep, nil)
				}
				f.byDep[depth] = append(f.byDep[depth], fitCandidate{m: m, bytes: cost})
			} else {
				delete(m, "description")
			}
		}
	}
	child := func(x any, b any, k string, d int) {
		cm, ok := x.(map[string]any)
		if !ok {
			return
		}
		cp, ct := "", false
		if track {
			cp = ptr + "/" + k
			ct = f.prefix[cp]
		}
		f.walk(cm, b, d, upTo, cp, ct)
	}
	for _, k := range sortedKeys(m) {
		x := m[k]
		switch {
		case k == "properties":
			props, _ := x.(map[string]any)
			bp, _ := bm[k].(map[string]any)
			for _, name := range sortedKeys(props) {
				child(props[name], bp[name], "properties/"+escapePointerToken(name), depth+1)
			}
		case schemaValued(k) || schemaLists(k):
			if list, ok := x.([]any); ok {
				bl, _ := bm[k].([]any)
				for i, item := range list {
					var b any
					if i < len(bl) {
						b = bl[i]
					}
					child(item, b, k+"/"+itoa(i), depth)
				}
				continue
			}
			child(x, bm[k], k, depth)
		}
	}
}
