package resolver

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
)

// run is the state of one Compile: errors and warnings found so far, the
// stack of $ref targets being resolved (for cycle detection), and the files
// read.
type run struct {
	c         *Compiler
	template  string // absolute path of the template being compiled
	root      string
	display   map[string]string // absolute path -> name shown in messages
	errs      ErrorList
	warnings  []Diagnostic
	raised    []Diagnostic        // every warning raised, duplicates included
	cycleCuts map[string]cycleCut // by cycle (cycleID)
	readLog   []string            // every file read, in order, for the cache
	stack     []frame             // the $ref targets being resolved, outermost first
	cuts      int                 // cycle cuts so far; results containing one are not cached
	reported  map[string]bool     // errors already reported, by message
	failures  int                 // errors raised, each reported or not (a repeat is reported once)
	warned    map[string]bool
	files     *fileio.Reader // see reader

	// Diagnostics raised inside bundles (see chain.go).
	bundleErrs     map[string]*bundleError
	raisedBundle   []bundleWarning // every one raised, as raised
	bundleWarnings map[string]bundleWarning

	budget  *budget
	used    map[string]bool          // files whose reading this compile has been charged for
	local   map[string]*cachedTarget // the template's own resolved targets, for this compile only
	outer   *site                    // the template's $ref being resolved, for work-budget errors
	nest    int                      // schema levels resolveSchema is inside
	stopped bool                     // over budget or too deep: resolve nothing more
	output  cost                     // the documents compiled so far

	prebuild bool // Prebuild's run: leave list-map keys and set items to settle
}

// errStopped is returned once the compile is stopped; the reason has been
// reported where it happened.
var errStopped = errors.New("compile stopped")

// scope says where a $ref is written: in a file (one of its documents) or
// inside an embedded bundle.
type scope struct {
	file    string    // absolute path; "" inside a bundle
	doc     *document // the document holding the ref (file scope)
	version string    // bundle scope: the bundle's version
	// settle: a definition stored structural (see Prebuild), settled as
	// it is resolved (see run.settle).
	settle bool
}

func (s scope) inBundle() bool { return s.file == "" }

// target is what a $ref points at: a bundle definition or a JSON pointer
// into a file's document.
type target struct {
	version string // bundle definition: Kubernetes minor
	name    string // bundle definition name
	file    string // absolute path
	doc     int
	pointer string
}

func (t target) key() string {
	if t.file == "" {
		return "k8s-" + t.version + "#/definitions/" + t.name
	}
	return fmt.Sprintf("%s[%d]#%s", t.file, t.doc, t.pointer)
}

func (r *run) label(t target) string {
	if t.file == "" {
		if t.version == r.c.version {
			return t.name
		}
		return t.name + " (Kubernetes " + t.version + ")"
	}
	name := r.display[t.file]
	if name == "" {
		name = t.file
	}
	return name + "#" + t.pointer
}

// site is the place a $ref is written, for error messages.
type site struct {
	sc  scope
	ptr string
	ref string
}

func (r *run) errAt(s site, err error) {
	r.failures++
	if s.sc.inBundle() && r.errInBundle(s, err) {
		return
	}
	e := noteHint(&Error{Pointer: s.ptr, Ref: s.ref, Err: err})
	if s.sc.inBundle() {
		e.Pos = Position{File: "Kubernetes " + s.sc.version + " bundle"}
	} else {
		e.Pos = s.sc.doc.position(s.ptr)
	}
	msg := e.Error()
	if r.reported == nil {
		r.reported = map[string]bool{}
	}
	if r.reported[msg] {
		return
	}
	r.reported[msg] = true
	r.errs = append(r.errs, e)
}

// maxErrors is how many errors one compile reports, the first in source
// order. Their suggestions are worked out only then (see hinted): a
// template with 20,000 bad $refs took 17 s to report them all.
const maxErrors = 100

func (r *run) warn(sc scope, ptr, msg string) {
	if sc.inBundle() && r.warnInBundle(ptr, sc.version+"\x00"+ptr+"\x00"+msg, msg, nil) {
		return
	}
	d := Diagnostic{Pointer: ptr, Message: msg}
	if sc.inBundle() {
		d.Pos = Position{File: "Kubernetes " + sc.version + " bundle"}
	} else {
		d.Pos = sc.doc.position(ptr)
	}
	r.addWarning(d)
}

// addWarning records d once per compile. raised keeps every call, so a
// cached target can replay exactly what it raised.
func (r *run) addWarning(d Diagnostic) {
	r.raised = append(r.raised, d)
	if s := d.String(); !r.warned[s] {
		r.warned[s] = true
		r.warnings = append(r.warnings, d)
	}
}

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
	if r.budget.chargeWork(1) {
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
		if sc.settle {
			r.settle(m, sc, ptr)
		}
		return m
	}
	out := map[string]any{}
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
			// base is shared with the cache: copy what gets written.
			maps.Copy(out, base)
			if p, ok := out["properties"].(map[string]any); ok && m["properties"] != nil {
				out["properties"] = maps.Clone(p)
			}
		}
	}
	for _, k := range sortedKeys(m) {
		if k == "$ref" || k == "definitions" {
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
	if sc.settle {
		if !plainSite(m) {
			// What the site adds to its target may need the structural
			// pass: the merge is new.
			r.structuralNode(out, sc, RootPath(ptr))
		}
		r.c.normalized[mapID(out)] = struct{}{}
	}
	return out
}

// plainSite reports whether a bundle's $ref site m adds nothing to its
// target but text and a Kubernetes default: then the merge is structural
// as the target is.
func plainSite(m map[string]any) bool {
	for k := range m {
		switch k {
		case "$ref", "description", bundleDefault:
		default:
			return false
		}
	}
	return true
}

// resolveKey resolves the value of key k of a schema at ptr.
func (r *run) resolveKey(k string, v any, sc scope, ptr string) any {
	inPlace := sc.inBundle()
	switch {
	case schemaValued(k) || schemaLists(k):
		list, isList := v.([]any)
		if !isList {
			if schemaLists(k) {
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
	case schemaMaps(k):
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
	return r.copyData(v, sc, ptr)
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
	n := int64(0)
	out := countingCopy(v, &n)
	if r.budget.chargeWork(n) {
		r.stopForWork(sc, ptr)
	}
	return out
}

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

// stop reports err at s and stops the compile's resolution.
func (r *run) stop(s site, err error) {
	if !r.stopped {
		r.stopped = true
		r.errAt(s, err)
	}
}

// stopForWork stops the compile because resolving its $refs created more
// values than the budget allows, reporting it at the template's $ref
// being resolved (or at ptr, outside any).
func (r *run) stopForWork(sc scope, ptr string) {
	s := site{sc: sc, ptr: ptr}
	if r.outer != nil {
		s = *r.outer
	}
	r.stop(s, budgetError(fmt.Sprintf("resolving its $refs creates more than the %d values a %s budget allows", r.budget.nodeLimit(), human(r.budget.limit))))
}

// cachedTarget is a resolved, normalised $ref target. schema is shared by
// every use: it is never modified (passes copy what they change).
type cachedTarget struct {
	schema   map[string]any
	warnings []Diagnostic // each once
	bundle   []bundleWarning
	files    []string // files read to resolve it (each once), replayed into Result.Files
	cost     cost     // the expanded size of schema
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
	if t.file == "" && t.version != r.c.version && !sc.inBundle() && r.c.opts.KubeVersion != "" {
		r.warn(sc, ptr, fmt.Sprintf("$ref %q pins Kubernetes %s while --k8s-version is %s; the pinned version wins (write the bare name %s to follow --k8s-version)", ref, t.version, r.c.version, t.name))
	}
	key := t.key()
	outer := len(r.stack) == 0
	cached, ok := r.c.defs[key]
	if !ok {
		cached, ok = r.local[key]
	}
	if ok {
		if r.budget.chargeWork(int64(1 + len(cached.warnings) + len(cached.files))) {
			r.stopForWork(sc, ptr)
			return nil, errStopped
		}
		for _, w := range cached.warnings {
			r.addWarning(w)
		}
		r.replayBundle(cached.bundle, site{sc: sc, ptr: ptr, ref: ref})
		for _, f := range cached.files {
			r.noteRead(f)
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
	if i := r.frameIndex(key); i >= 0 {
		id := r.cycleID(i)
		closing := link{label: r.chainLabel(t)}
		if r.c.opts.Recursion == RecursionPreserve {
			if r.budget.chargeWork(followWork) {
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
					d := Diagnostic{Pointer: ptr, Message: cut, Pos: Position{File: "Kubernetes " + sc.version + " bundle"}}
					if !sc.inBundle() {
						d.Pos = sc.doc.position(ptr)
					}
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
	if outer {
		r.outer = &site{sc: sc, ptr: ptr, ref: ref}
		defer func() { r.outer = nil }()
	}
	if r.budget.chargeWork(followWork) {
		r.stopForWork(sc, ptr)
		return nil, errStopped
	}
	root := t.pointer
	if t.file == "" {
		root = "#/definitions/" + t.name
	}
	r.stack = append(r.stack, frame{key: key, label: r.chainLabel(t), root: root, bundle: t.file == "", from: site{sc: sc, ptr: ptr, ref: ref}})
	cutsBefore, failuresBefore, raisedBefore, readBefore, bundleBefore := r.cuts, r.failures, len(r.raised), len(r.readLog), len(r.raisedBundle)
	defer func() { r.stack = r.stack[:len(r.stack)-1] }()

	var resolved map[string]any
	if t.file == "" {
		imported, pre, err := r.importDefinition(t.version, t.name)
		if err != nil {
			return nil, err
		}
		// Stored structural for the target's minor: settled as it is
		// resolved. Structural for another minor (a $ref pinning one):
		// the whole pass, which changes nothing else, does what depends
		// on the version (formats, list types before 1.16).
		sc := scope{version: t.version, settle: pre && t.version == r.c.version && !r.c.renormalize}
		ptr := "#/definitions/" + t.name
		resolved, _ = r.resolveSchema(imported, sc, ptr).(map[string]any)
		if !sc.settle {
			r.normalize(resolved, sc, ptr)
		}
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
		node, err := lookupPointer(d.value, t.pointer)
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
	// Measuring remembers the cost of every schema of the target: it is
	// shared from now on and never modified.
	c := measurer{memo: r.c.sizes, normalized: r.c.normalized}.measure(resolved)
	// Resolved and normalised targets are cached, with the warnings they
	// raised (replayed on every use), for the life of the Compiler; the
	// template's own, which may change between Compile calls, for this
	// compile only (resolved again at every use, 20 definitions of 10
	// properties each naming the next took forever). Not cached: targets
	// that failed (so every template using them fails) and targets whose
	// shape depends on where a cycle was cut.
	if r.cuts == cutsBefore && r.failures == failuresBefore {
		ct := &cachedTarget{schema: resolved, warnings: uniqueDiagnostics(r.raised[raisedBefore:]), bundle: r.cacheBundle(bundleBefore), files: uniqueStrings(r.readLog[readBefore:]), cost: c}
		if t.file != r.template {
			r.c.render.shared[mapID(resolved)] = struct{}{}
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
	if c.depth+int64(strings.Count(refPtr, "/")) > maxDepth {
		r.stopped = true
		return fmt.Errorf("%w: the schema it expands to nests more than %d levels deep", ErrInput, maxDepth)
	}
	if why := r.budget.charge(c.at(int64(strings.Count(refPtr, "/") - 1))); why != "" {
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
		c = c.plus(d.cost)
	}
	if why := r.budget.charge(c); why != "" {
		r.stopped = true
		return budgetError("reading " + r.display[abs] + " brings the compile to " + why)
	}
	return nil
}

// uniqueDiagnostics returns ds without repeats (a target replays its
// targets' warnings at every use; cached, they would multiply).
func uniqueDiagnostics(ds []Diagnostic) []Diagnostic { return unique(ds) }

func uniqueStrings(ss []string) []string { return unique(ss) }

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
		def, _, err := r.importDefinition(t.version, t.name)
		if err != nil {
			return false
		}
		node = def
	} else if docs := r.c.files[t.file]; t.doc < len(docs) {
		node, _ = lookupPointer(docs[t.doc].value, t.pointer)
	}
	m, _ := node.(map[string]any)
	_, props := m["properties"]
	return m["type"] == "object" || props
}

var (
	pythonSchemataRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^k8s_crd_resolver/schemata/k8s-(\d+\.\d+)(\.\d+)?\.json$`)
	})
	githubSwaggerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^https?://raw\.githubusercontent\.com/kubernetes/kubernetes/(?:v(\d+\.\d+)\.\d+|release-(\d+\.\d+))/api/openapi-spec/swagger\.json$`)
	})
	schemeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`) })
)

// parseRef maps a $ref string, written in scope sc, to its target. The
// forms are listed in the package documentation.
func (r *run) parseRef(ref string, sc scope) (target, error) {
	if ref == "" {
		return target{}, fmt.Errorf("%w: empty $ref", ErrUnresolved)
	}
	path, frag, hasFrag := strings.Cut(ref, "#")
	switch {
	case strings.HasPrefix(ref, "python://"):
		pkgPath := strings.TrimPrefix(path, "python://")
		if m := pythonSchemataRE().FindStringSubmatch(pkgPath); m != nil {
			return r.bundleTarget(m[1], frag, ref)
		}
		abs := filepath.Join(r.c.opts.WorkDir, filepath.FromSlash(pkgPath))
		return r.fileTarget(abs, frag)
	case schemeRE().MatchString(ref) || strings.HasPrefix(ref, "//"):
		if m := githubSwaggerRE().FindStringSubmatch(path); m != nil {
			v := m[1] + m[2]
			return r.bundleTarget(v, frag, ref)
		}
		return target{}, fmt.Errorf("%w; refer to Kubernetes definitions by name (io.k8s.api.core.v1.PodSpec) or to a local file by relative path", ErrNetwork)
	case path == "" && hasFrag:
		return r.localTarget(frag, sc)
	case isFileRef(path) && !(hasFrag == false && r.isDefinitionName(path, sc)):
		if sc.inBundle() {
			return target{}, fmt.Errorf("%w: a bundle definition cannot refer to a file", ErrUnresolved)
		}
		abs := filepath.Join(filepath.Dir(sc.file), filepath.FromSlash(path))
		return r.fileTarget(abs, frag)
	}
	return r.nameTarget(ref, sc)
}

// isDefinitionName reports whether a bare ref without a slash names a
// definition (io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON
// ends in ".JSON" but is no file).
func (r *run) isDefinitionName(name string, sc scope) bool {
	if strings.ContainsAny(name, `/\`) {
		return false
	}
	if sc.inBundle() {
		return true
	}
	if _, ok := dig(sc.doc.value, "definitions", name).(map[string]any); ok {
		return true
	}
	return r.c.bundle.Has(name)
}

func isFileRef(path string) bool {
	if strings.ContainsAny(path, `/\`) {
		return true
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func (r *run) bundleTarget(version, frag, ref string) (target, error) {
	toks, err := splitPointer(frag)
	if err != nil || len(toks) != 2 || toks[0] != "definitions" {
		return target{}, fmt.Errorf("%w: a Kubernetes bundle ref must end in #/definitions/NAME", ErrUnresolved)
	}
	b, canonical, err := r.c.bundleFor(version)
	if err != nil {
		return target{}, err
	}
	if !b.Has(toks[1]) {
		return target{}, unknownDefinition(toks[1], canonical, b, nil)
	}
	return target{version: canonical, name: toks[1]}, nil
}

// localTarget resolves "#/pointer" written in scope sc. In a file,
// #/definitions/NAME looks in the document's own definitions first, then
// in the bundle of --k8s-version.
func (r *run) localTarget(frag string, sc scope) (target, error) {
	toks, err := splitPointer(frag)
	if err != nil {
		return target{}, fmt.Errorf("%w: %w", ErrUnresolved, err)
	}
	if sc.inBundle() {
		if len(toks) != 2 || toks[0] != "definitions" {
			return target{}, fmt.Errorf("%w: bundle refs must be #/definitions/NAME", ErrUnresolved)
		}
		return target{version: sc.version, name: toks[1]}, nil
	}
	if len(toks) == 2 && toks[0] == "definitions" {
		name := toks[1]
		if _, ok := dig(sc.doc.value, "definitions", name).(map[string]any); ok {
			return target{file: sc.file, doc: sc.doc.index, pointer: frag}, nil
		}
		if r.c.bundle.Has(name) {
			return target{version: r.c.version, name: name}, nil
		}
		return target{}, unknownDefinition(name, r.c.version, r.c.bundle, localNames(sc.doc))
	}
	return target{file: sc.file, doc: sc.doc.index, pointer: frag}, nil
}

// nameTarget resolves a bare definition name: the document's own
// definitions first, then the bundle.
func (r *run) nameTarget(name string, sc scope) (target, error) {
	if sc.inBundle() {
		return target{version: sc.version, name: name}, nil
	}
	if _, ok := dig(sc.doc.value, "definitions", name).(map[string]any); ok {
		return target{file: sc.file, doc: sc.doc.index, pointer: "/definitions/" + escapePointerToken(name)}, nil
	}
	if r.c.bundle.Has(name) {
		return target{version: r.c.version, name: name}, nil
	}
	return target{}, unknownDefinition(name, r.c.version, r.c.bundle, localNames(sc.doc))
}

func localNames(d *document) []string {
	defs, _ := dig(d.value, "definitions").(map[string]any)
	return sortedKeys(defs)
}

// lookupPointer follows a JSON pointer (RFC 6901) through v.
func lookupPointer(v any, ptr string) (any, error) {
	toks, err := splitPointer(ptr)
	if err != nil {
		return nil, err
	}
	at := ""
	for _, tok := range toks {
		switch t := v.(type) {
		case map[string]any:
			next, ok := t[tok]
			if !ok {
				return nil, &hinted{err: fmt.Errorf("JSON pointer #%s: no key %q under %q", ptr, tok, orRoot(at)), suggest: func() string { return didYouMean(tok, sortedKeys(t)) }}
			}
			v = next
		case []any:
			i, err := parseIndex(tok, len(t))
			if err != nil {
				return nil, fmt.Errorf("JSON pointer #%s: under %q: %w", ptr, orRoot(at), err)
			}
			v = t[i]
		default:
			return nil, fmt.Errorf("JSON pointer #%s: %q is %s, it has no %q", ptr, orRoot(at), describeValue(v), tok)
		}
		at = joinPointer(at, tok)
	}
	return v, nil
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func parseIndex(tok string, n int) (int, error) {
	i := 0
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, fmt.Errorf("%q is not a list index", tok)
	}
	for _, ch := range tok {
		if ch < '0' || ch > '9' {
			return 0, fmt.Errorf("%q is not a list index", tok)
		}
		i = i*10 + int(ch-'0')
		if i > n {
			break
		}
	}
	if i >= n {
		return 0, fmt.Errorf("index %s is out of range (the list has %d items)", tok, n)
	}
	return i, nil
}

func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// relative names a path for messages: relative to the working directory
// when it is below it.
func (r *run) relative(abs string) string {
	rel, err := filepath.Rel(r.c.opts.WorkDir, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}
