package resolver

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// resolveSchema returns the schema v with every $ref replaced by what it
// points at. Keys beside a $ref override the referenced schema's
// (properties merge key by key). Schemas from files are copied (the file
// cache keeps the originals); a bundle definition is a fresh decode that
// nothing else holds, so it is resolved in place.
func (r *run) resolveSchema(v any, sc scope, ptr string) any {
	if r.stopped {
		return nil
	}
	inPlace := sc.inBundle()
	m, ok := v.(map[string]any)
	if !ok {
		if inPlace {
			return v
		}
		return r.copyData(v, sc, ptr)
	}
	r.nest++
	defer func() { r.nest-- }()
	if r.nest > maxDepth {
		r.stop(site{sc: sc, ptr: ptr}, fmt.Errorf("%w: schemas nested more than %d levels deep once $refs are resolved", ErrInput, maxDepth))
		return nil
	}
	if r.budget.ChargeWork(1) {
		r.stopForWork(sc, ptr)
		return nil
	}
	ref, hasRef := m["$ref"]
	if !hasRef && inPlace {
		for k, x := range m {
			if k == "definitions" {
				delete(m, k)
				continue
			}
			m[k] = r.resolveKey(k, x, sc, ptr)
		}
		return unfinishedNode(m)
	}
	r.descriptionsKeyAt(m, sc, ptr, hasRef)
	if !inPlace && (sc.file != r.template || !strings.HasPrefix(ptr, "/spec/")) {
		r.judgeNode(m, sc, ptr)
	}
	if d, ok := m["description"].(string); ok && !inPlace {
		r.ownTexts = append(r.ownTexts, d)
	}
	out := unfinishedNode(map[string]any{})
	if hasRef {
		refPtr := joinPointer(ptr, "$ref")
		s, isString := ref.(string)
		if !isString {
			r.errAt(site{sc: sc, ptr: refPtr}, fmt.Errorf("%w: $ref must be a string, not %s", ErrInput, describeValue(ref)))
		} else if base, err := r.follow(s, sc, refPtr); err != nil {
			if err != errStopped { //nolint:errorlint // a private sentinel, never wrapped
				r.errAt(site{sc: sc, ptr: refPtr, ref: s}, err)
			}
		} else {
			// base is finished and shared with the cache and every other
			// use: out takes its keys, and the structural pass never
			// visits what came from it (see unfinishedNode).
			maps.Copy(out, base)
			if m["properties"] != nil {
				if p := asSchema(out["properties"]); p != nil {
					out["properties"] = maps.Clone(p)
				}
			}
		}
	}
	for _, k := range sortedKeys(m) {
		if k == "$ref" || k == "definitions" || k == descriptionsKey {
			continue
		}
		if (k == bundleDefault || k == unfinishedKey) && !inPlace {
			// The compiler's own keys: written by an author they are
			// unknown extensions, like any other.
			r.warn(sc, joinPointer(ptr, k), unknownExtension(k))
			continue
		}
		val := r.resolveKey(k, m[k], sc, ptr)
		if k == "properties" {
			if own, ok := out[k].(map[string]any); ok {
				if add, ok := val.(map[string]any); ok {
					maps.Copy(own, add)
					continue
				}
			}
		}
		out[k] = val
	}
	return out
}

// resolveKey resolves the value of key k of a schema at ptr.
func (r *run) resolveKey(k string, v any, sc scope, ptr string) any {
	inPlace := sc.inBundle()
	switch {
	case bundlefmt.SchemaValued(k) || bundlefmt.SchemaLists(k):
		list, isList := v.([]any)
		if !isList {
			if bundlefmt.SchemaLists(k) {
				break
			}
			return itemSchema(k, v, r.resolveSchema(v, sc, joinPointer(ptr, k)))
		}
		out := list
		if !inPlace {
			out = make([]any, len(list))
		}
		kptr := joinPointer(ptr, k)
		for i, item := range list {
			out[i] = r.resolveSchema(item, sc, joinPointer(kptr, itoa(i)))
		}
		return out
	case bundlefmt.SchemaMaps(k):
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		out := m
		if !inPlace {
			out = make(map[string]any, len(m))
		}
		kptr := joinPointer(ptr, k)
		// In key order: which $ref crosses the budget first, and so the
		// error reported, must not depend on map iteration order.
		for _, name := range sortedKeys(m) {
			out[name] = r.resolveSchema(m[name], sc, joinPointer(kptr, name))
		}
		return out
	}
	if inPlace {
		return v
	}
	return r.copyData(v, sc, joinPointer(ptr, k))
}

// itemSchema drops, from the resolved schema of a map value or list item
// (k is additionalProperties or items) written as a $ref, the description
// the $ref brought in: the enclosing property documents its values, and
// a definition's text repeated on every map value and list item
// (Quantity's 2.4 KB grammar on 33 of them in one CRD) only adds bytes.
// A description written beside the $ref stays; a property that is a $ref
// keeps the definition's text, as it documents that field.
func itemSchema(k string, written, resolved any) any {
	if k != "items" && k != "additionalProperties" {
		return resolved
	}
	w, _ := written.(map[string]any)
	out, _ := resolved.(map[string]any)
	if _, ref := w["$ref"]; !ref || out == nil {
		return resolved
	}
	if _, own := w["description"]; !own {
		// out is the fresh map resolveSchema built for the $ref site.
		delete(out, "description")
	}
	return resolved
}

// copyData deep-copies a value that is data, not a schema (a default, an
// enum...), counting what it creates against the work budget.
func (r *run) copyData(v any, sc scope, ptr string) any {
	if at, found := reservedKeyIn(v, ptr); found {
		r.errAt(site{sc: sc, ptr: at}, errReservedKey)
		return nil
	}
	n := int64(0)
	out := countingCopy(v, &n)
	if r.budget.ChargeWork(n) {
		r.stopForWork(sc, ptr)
	}
	return out
}

// errReservedKey refuses the compiler's own key (bundleDefault) in an
// author's value (a default, an example, a patch's value): the CRD could
// not hold it, as every writer leaves the key out.
var errReservedKey = fmt.Errorf("%w: %s is the compiler's own key; a value cannot hold it", ErrInput, bundleDefault)

// reservedKeyIn returns the JSON pointer (under ptr) of the first map in v,
// in key order, holding the key bundleDefault.
func reservedKeyIn(v any, ptr string) (string, bool) {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t[bundleDefault]; ok {
			return joinPointer(ptr, bundleDefault), true
		}
		for _, k := range sortedKeys(t) {
			if at, ok := reservedKeyIn(t[k], joinPointer(ptr, k)); ok {
				return at, true
			}
		}
	case []any:
		for i, x := range t {
			if at, ok := reservedKeyIn(x, joinPointer(ptr, itoa(i))); ok {
				return at, true
			}
		}
	}
	return "", false
}

// countingCopy is deepCopy adding one to *n for every value it copies.
func countingCopy(v any, n *int64) any {
	*n++
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = countingCopy(x, n)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = countingCopy(x, n)
		}
		return out
	}
	return v
}

// cachedTarget is a resolved, normalised $ref target. schema is finished:
// shared by every use and never modified (the structural pass visits only
// unfinished nodes, and every later pass copies what it changes;
// TestCachedTargetsNeverChange holds it).
type cachedTarget struct {
	schema map[string]any
	// warnings holds each once: a target replays its targets' warnings at
	// every use, and cached with repeats they would multiply.
	warnings []Diagnostic
	bundle   []bundleWarning
	files    []string // files read to resolve it (each once), replayed into Result.Files
	minors   []string // Kubernetes minors whose bundles it read, replayed into Result.KubeVersions
	// kubeTexts and ownTexts are the description texts resolving it
	// logged (run.kubeTexts, run.ownTexts), replayed on every use.
	kubeTexts, ownTexts []string
	cost                cost // the expanded size of schema
}

// follow resolves one $ref written at ptr in scope sc and returns the
// target resolved and normalised (structural). The result is shared with
// the cache and with other uses of the same target: it must not be
// modified.
func (r *run) follow(ref string, sc scope, ptr string) (map[string]any, error) {
	t, err := r.parseRef(ref, sc)
	if err != nil {
		return nil, err
	}
	if t.file == "" {
		r.notePin(t, ref, sc, ptr)
	}
	key := t.key()
	outer := len(r.stack) == 0
	cached, ok := r.c.defs[key]
	if !ok {
		cached, ok = r.local[key]
	}
	if ok {
		return r.replay(cached, ref, sc, ptr, outer)
	}
	if i := r.frameIndex(key); i >= 0 {
		return r.closeCycle(i, t, sc, ptr)
	}
	return r.resolveTarget(t, key, ref, sc, ptr, outer)
}

// replay is a use of the cached target: what resolving it logged (its
// warnings, files, minors and texts) is logged again, and at the outer
// $ref its cost is charged.
func (r *run) replay(cached *cachedTarget, ref string, sc scope, ptr string, outer bool) (map[string]any, error) {
	if r.budget.ChargeWork(int64(1 + len(cached.warnings) + len(cached.files))) {
		r.stopForWork(sc, ptr)
		return nil, errStopped
	}
	for _, w := range cached.warnings {
		r.addWarning(w)
	}
	r.minorLog = append(r.minorLog, cached.minors...)
	r.kubeTexts = append(r.kubeTexts, cached.kubeTexts...)
	r.ownTexts = append(r.ownTexts, cached.ownTexts...)
	r.replayBundle(cached.bundle, site{sc: sc, ptr: ptr, ref: ref})
	for _, f := range cached.files {
		r.readLog = append(r.readLog, f) // for Result.Files
		if err := r.useFile(f); err != nil {
			return nil, err
		}
	}
	if outer {
		if err := r.chargeSplice(cached.cost, ptr); err != nil {
			return nil, err
		}
	}
	return cached.schema, nil
}

// closeCycle is a $ref back to frame i of the stack: cut with a schema
// that keeps any value (RecursionPreserve, one warning per cycle), else a
// cycle error naming the chain.
func (r *run) closeCycle(i int, t target, sc scope, ptr string) (map[string]any, error) {
	id := r.cycleID(i)
	closing := link{label: r.chainLabel(t)}
	if r.c.opts.Recursion == RecursionPreserve {
		if r.budget.ChargeWork(followWork) {
			r.stopForWork(sc, ptr)
			return nil, errStopped
		}
		r.cuts++
		const cut = "recursive $ref cut with x-kubernetes-preserve-unknown-fields"
		// One warning per cycle: inside a bundle at the first $ref
		// that leads there; in a file at the first place it closes
		// (by pointer, so the choice does not depend on walk order).
		if !sc.inBundle() || !r.warnInBundle(ptr, "cycle "+id, cut, &closing) {
			have, ok := r.cycleCuts[id]
			if !ok || ptr < have.d.Pointer || (ptr == have.d.Pointer && r.shorterChain(i, ptr, closing, have.links)) {
				d := Diagnostic{Pos: sc.position(ptr), Pointer: ptr, Message: cut}
				r.cycleCuts[id] = cycleCut{d, append(r.links(i, ptr), closing)}
			}
		}
		cutSchema := map[string]any{"x-kubernetes-preserve-unknown-fields": true}
		if r.targetIsObject(t) {
			cutSchema["type"] = "object"
		}
		return cutSchema, nil
	}
	links := r.links(i, ptr)
	if _, chain, _, ok := r.bundleChain(ptr); ok && sc.inBundle() {
		links = chain
	}
	return nil, &cycleError{links: append(links, closing), id: id}
}

// resolveTarget resolves and normalises the target t (key) for the first
// time, measures it and caches it when its shape does not depend on this
// use.
func (r *run) resolveTarget(t target, key, ref string, sc scope, ptr string, outer bool) (map[string]any, error) {
	if outer {
		r.outer = &site{sc: sc, ptr: ptr, ref: ref}
		defer func() { r.outer = nil }()
	}
	if r.budget.ChargeWork(followWork) {
		r.stopForWork(sc, ptr)
		return nil, errStopped
	}
	root := t.pointer
	if t.file == "" {
		root = "#/definitions/" + t.name
	}
	r.stack = append(r.stack, frame{key: key, label: r.chainLabel(t), root: root, bundle: t.file == "", from: site{sc: sc, ptr: ptr, ref: ref}})
	cutsBefore, failuresBefore, raisedBefore, readBefore, bundleBefore := r.cuts, r.failures, len(r.raised), len(r.readLog), len(r.raisedBundle)
	minorsBefore, kubeBefore, ownBefore := len(r.minorLog), len(r.kubeTexts), len(r.ownTexts)
	defer func() { r.stack = r.stack[:len(r.stack)-1] }()

	var resolved map[string]any
	if t.file == "" {
		imported, err := r.importDefinition(t.version, t.name)
		if err != nil {
			return nil, err
		}
		// The whole structural pass, for the target's minor, whatever
		// minor the bundle is.
		sc := scope{version: t.version}
		ptr := "#/definitions/" + t.name
		resolved, _ = r.resolveSchema(imported, sc, ptr).(map[string]any)
		r.normalize(resolved, sc, ptr)
	} else {
		docs, err := r.loadFile(t.file)
		if err != nil {
			return nil, err
		}
		if err := r.useFile(t.file); err != nil {
			return nil, err
		}
		if t.doc >= len(docs) {
			return nil, fmt.Errorf("%w: %s has no document %d", ErrUnresolved, r.display[t.file], t.doc)
		}
		d := docs[t.doc]
		node, err := lookupPointer(d.Value, t.pointer)
		if err != nil {
			return nil, fmt.Errorf("%w: in %s: %w", ErrUnresolved, r.display[t.file], err)
		}
		if why := notASchema(node); why != "" {
			return nil, fmt.Errorf("%w: %s points at %s, not a schema", ErrUnresolved, r.label(t), why)
		}
		sc := scope{file: t.file, doc: d}
		resolved, _ = r.resolveSchema(node, sc, t.pointer).(map[string]any)
		r.normalize(resolved, sc, t.pointer)
	}
	if r.stopped || resolved == nil {
		return nil, errStopped
	}
	// From here on the target is finished: shared by every use and never
	// written again. Measuring it walks its expansion, which ends as soon
	// as it is over the budget (a $ref bomb costs a budget's worth of
	// steps, not its size).
	c := r.measure(resolved)
	if c.Partial {
		// Over the budget by itself: no compile could use it, and the
		// targets that use it would each measure it again.
		at := site{sc: sc, ptr: ptr, ref: ref}
		if r.outer != nil {
			at = *r.outer
		}
		r.stop(at, budgetError("the schema it expands to is "+r.budget.Over(c)))
		return nil, errStopped
	}
	// Resolved and normalised targets are cached, with the warnings they
	// raised (replayed on every use), for the life of the Compiler; the
	// template's own, which may change between Compile calls, for this
	// compile only (resolved once per compile, however often used, so
	// definitions naming each other cost linear work). Not cached: targets
	// that failed (so every template using them fails) and targets whose
	// shape depends on where a cycle was cut.
	if r.cuts == cutsBefore && r.failures == failuresBefore {
		ct := &cachedTarget{schema: resolved, warnings: unique(r.raised[raisedBefore:]), bundle: r.cacheBundle(bundleBefore), files: unique(r.readLog[readBefore:]), minors: unique(r.minorLog[minorsBefore:]), cost: c,
			kubeTexts: slices.Clip(r.kubeTexts[kubeBefore:]), ownTexts: slices.Clip(r.ownTexts[ownBefore:])}
		if t.file != r.template {
			r.c.defs[key] = ct
		} else {
			r.local[key] = ct
		}
	}
	if outer {
		if err := r.chargeSplice(c, ptr); err != nil {
			return nil, err
		}
	}
	return resolved, nil
}

// followWork is what resolving a $ref target (or cutting a cycle there)
// counts on the work meter: about what building eight plain values costs.
const followWork = 8

// chargeSplice charges the schema a $ref written at refPtr in the
// template splices in, as deep in the document as the $ref is.
func (r *run) chargeSplice(c cost, refPtr string) error {
	if c.Depth+int64(strings.Count(refPtr, "/")) > maxDepth {
		r.stopped = true
		return fmt.Errorf("%w: the schema it expands to nests more than %d levels deep", ErrInput, maxDepth)
	}
	if why := r.budget.Charge(c.At(int64(strings.Count(refPtr, "/") - 1))); why != "" {
		r.stopped = true
		return budgetError("the schema it expands to brings the compile to " + why)
	}
	return nil
}

// useFile charges what reading the file abs built, once per compile
// (the file itself is read once per Compiler).
func (r *run) useFile(abs string) error {
	if r.used[abs] {
		return nil
	}
	r.used[abs] = true
	var c cost
	for _, d := range r.c.files[abs] {
		c = c.Plus(d.Cost)
	}
	if why := r.budget.Charge(c); why != "" {
		r.stopped = true
		return budgetError("reading " + r.display[abs] + " brings the compile to " + why)
	}
	return nil
}

// unique returns xs without repeats, in the order first seen.
func unique[T comparable](xs []T) []T {
	if len(xs) <= 16 {
		var out []T
		for _, x := range xs {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		return out
	}
	seen := make(map[T]bool, len(xs))
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// targetIsObject reports whether a $ref target is an object schema, so the
// schema that cuts a cycle there keeps the type (a list-map's items must
// be objects).
func (r *run) targetIsObject(t target) bool {
	var node any
	if t.file == "" {
		def, err := r.importDefinition(t.version, t.name)
		if err != nil {
			return false
		}
		node = def
	} else if docs := r.c.files[t.file]; t.doc < len(docs) {
		node, _ = lookupPointer(docs[t.doc].Value, t.pointer)
	}
	m, _ := node.(map[string]any)
	_, props := m["properties"]
	return m["type"] == "object" || props
}
