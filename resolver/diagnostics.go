package resolver

// Diagnostics: every error and warning of a compile is collected here, in
// the run's diagnostics, wherever a stage raises it; Compile reads them out
// at the end (finish), sorted by position.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// diagnostics are what a compile has found so far. Errors and warnings
// raised in a user's file go straight in; those raised inside a Kubernetes
// bundle are kept by problem and reported, at the end, at the user's $ref
// that led there (see chain.go).
type diagnostics struct {
	errs      ErrorList
	warnings  []Diagnostic
	raised    []Diagnostic        // every warning raised, duplicates included
	warned    map[string]bool     // warnings already in warnings, by text
	reported  map[string]bool     // errors already reported, by message
	failures  int                 // errors raised, each reported or not (a repeat is reported once)
	cycleCuts map[string]cycleCut // by cycle (cycleID)

	bundleErrs     map[string]*bundleError
	raisedBundle   []bundleWarning // every one raised, as raised
	bundleWarnings map[string]bundleWarning
}

func newDiagnostics() diagnostics {
	return diagnostics{warned: map[string]bool{}, reported: map[string]bool{}, cycleCuts: map[string]cycleCut{}, bundleErrs: map[string]*bundleError{}, bundleWarnings: map[string]bundleWarning{}}
}

// finish reads out what the compile found: its warnings, sorted by
// position, or, when there is any, its errors (at most maxErrors, the first
// in source order, and a line saying how many more), each message complete
// now that every path to a problem inside a bundle is known. display names
// the template.
func (r *run) finish(display string) ([]Diagnostic, ErrorList) {
	if len(r.errs) > 0 {
		r.settleBundleErrors()
		sortErrors(r.errs)
		if more := len(r.errs) - maxErrors; more > 0 {
			r.errs = append(r.errs[:maxErrors:maxErrors], inputError(Position{File: display}, "and %d more errors (fix these first)", more))
		}
		for _, e := range r.errs {
			reveal(e)
		}
		return nil, r.errs
	}
	for _, c := range r.cycleCuts {
		c.d.Message += ": " + renderChain(c.links)
		r.warnings = append(r.warnings, c.d)
	}
	r.warnings = append(r.warnings, r.bundleDiagnostics()...)
	slices.SortStableFunc(r.warnings, func(a, b Diagnostic) int {
		return cmp.Or(comparePos(a.Pos, b.Pos), strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	return r.warnings, nil
}

func (r *run) errAt(s site, err error) {
	r.failures++
	if s.sc.inBundle() && r.errInBundle(s, err) {
		return
	}
	e := &Error{Pos: s.sc.position(s.ptr), Pointer: s.ptr, Ref: s.ref, Err: err}
	msg := e.Error()
	if r.reported[msg] {
		return
	}
	r.reported[msg] = true
	r.errs = append(r.errs, e)
}

// notStructural reports, at ptr, a schema the apiserver would refuse as
// not structural, which the pass cannot fix: an ErrNotStructural whose
// message is format and args, as fmt.Sprintf writes them.
func (r *run) notStructural(sc scope, ptr, format string, args ...any) {
	r.errAt(site{sc: sc, ptr: ptr}, fmt.Errorf("%w: %s", ErrNotStructural, fmt.Sprintf(format, args...)))
}

// badInput reports, at ptr, input the compile refuses: an ErrInput
// whose message is format and args, as fmt.Sprintf writes them.
func (r *run) badInput(sc scope, ptr, format string, args ...any) {
	r.errAt(site{sc: sc, ptr: ptr}, fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...)))
}

func (r *run) warn(sc scope, ptr, msg string) {
	if sc.inBundle() && r.warnInBundle(ptr, sc.version+"\x00"+ptr+"\x00"+msg, msg, nil) {
		return
	}
	r.addWarning(Diagnostic{Pos: sc.position(ptr), Pointer: ptr, Message: msg})
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

// bundleError is an error raised inside the bundle, reported at the
// user's $ref: every candidate chain is seen before the compile ends,
// and the message is settled then (see settleBundleErrors).
type bundleError struct {
	e     *Error // in r.errs; filled in by settleBundleErrors
	at    site
	links []link
	cause error
	paths map[string]bool
}

// errInBundle reports err, raised at s inside a bundle definition, at the
// user's $ref that led there. It reports false outside one.
func (r *run) errInBundle(s site, err error) bool {
	at, links, _, ok := r.bundleChain(s.ptr)
	if !ok {
		return false
	}
	key := fmt.Sprintf("%s\x00%s\x00", at.sc.file, at.ptr)
	var ce *cycleError
	if errors.As(err, &ce) {
		links, key = ce.links, key+"cycle "+ce.id
	} else {
		key += s.ptr + "\x00" + err.Error()
	}
	be, ok := r.bundleErrs[key]
	if !ok {
		be = &bundleError{e: &Error{}, at: at, links: links, cause: err, paths: map[string]bool{}}
		r.bundleErrs[key] = be
		r.errs = append(r.errs, be.e)
	} else if compareChains(links, be.links) < 0 {
		be.links, be.cause = links, err
	}
	be.paths[renderChain(links)] = true
	return true
}

// settleBundleErrors writes the message of every error raised inside a
// bundle, now that all paths to it are known.
func (r *run) settleBundleErrors() {
	for _, be := range r.bundleErrs {
		e := be.e
		e.Pos, e.Pointer, e.Ref = be.at.sc.doc.Position(be.at.ptr), be.at.ptr, be.at.ref
		var ce *cycleError
		if errors.As(be.cause, &ce) {
			e.Err = &cycleError{links: be.links, id: ce.id, more: len(be.paths) - 1}
		} else {
			e.Err = fmt.Errorf("in %s: %w", renderChain(be.links), be.cause)
		}
	}
}

// bundleWarning is a warning raised inside a bundle definition. A cached
// definition keeps its warnings relative to itself (links start at it,
// at is unset) and replays them at every use with the chain that led to
// it; warnings of a cached file target keep their user's $ref.
type bundleWarning struct {
	key      string // one warning per key
	msg      string
	cycleCut bool // msg names a cycle cut; the chain is the cycle
	links    []link
	at       site
	relative bool
	depth    int // raised: the stack index of links[0]
}

func (w bundleWarning) better(than bundleWarning) bool {
	if w.relative || than.relative {
		return compareChains(w.links, than.links) < 0
	}
	a, b := w.at.sc.doc.Position(w.at.ptr), than.at.sc.doc.Position(than.at.ptr)
	return cmp.Or(comparePos(a, b), strings.Compare(w.at.ptr, than.at.ptr), compareChains(w.links, than.links)) < 0
}

// warnInBundle records a warning raised at ptr inside the bundle
// definition being resolved. key says what it is deduplicated by.
// A cycle cut's chain ends in the closing target.
func (r *run) warnInBundle(ptr, key, msg string, closing *link) bool {
	at, chain, depth, ok := r.bundleChain(ptr)
	if !ok {
		return false
	}
	cycleCut := closing != nil
	if cycleCut {
		chain = append(chain, *closing)
	}
	r.raiseBundle(bundleWarning{key: key, msg: msg, cycleCut: cycleCut, links: chain, at: at, depth: depth})
	return true
}

func (r *run) raiseBundle(w bundleWarning) {
	r.raisedBundle = append(r.raisedBundle, w)
	if have, ok := r.bundleWarnings[w.key]; !ok || w.better(have) {
		r.bundleWarnings[w.key] = w
	}
}

// replayBundle raises again, for a use of a cached target from the $ref
// s, the bundle warnings resolving it raised.
func (r *run) replayBundle(ws []bundleWarning, s site) {
	for _, w := range ws {
		if w.relative {
			w.relative = false
			if at, prefix, depth, ok := r.bundleChain(s.ptr); ok {
				w.at, w.depth, w.links = at, depth, append(prefix, w.links...)
			} else {
				w.at, w.depth = s, len(r.stack)
			}
		}
		r.raiseBundle(w)
	}
}

// cacheBundle returns the bundle warnings raised since index from, for
// the cache of the target resolved by the top frame: relative to it when
// it is a bundle definition, each key once.
func (r *run) cacheBundle(from int) []bundleWarning {
	d := len(r.stack) - 1
	best := map[string]bundleWarning{}
	var keys []string
	for _, w := range r.raisedBundle[from:] {
		if r.stack[d].bundle {
			w = bundleWarning{key: w.key, msg: w.msg, cycleCut: w.cycleCut, links: w.links[d-w.depth:], relative: true}
		}
		if have, ok := best[w.key]; !ok || w.better(have) {
			if !ok {
				keys = append(keys, w.key)
			}
			best[w.key] = w
		}
	}
	out := make([]bundleWarning, 0, len(keys))
	for _, k := range keys {
		out = append(out, best[k])
	}
	return out
}

// bundleDiagnostics renders the bundle warnings of the compile.
func (r *run) bundleDiagnostics() []Diagnostic {
	out := make([]Diagnostic, 0, len(r.bundleWarnings))
	for _, w := range r.bundleWarnings {
		msg := fmt.Sprintf("$ref %q: in %s: %s", w.at.ref, renderChain(w.links), w.msg)
		if w.cycleCut {
			msg = fmt.Sprintf("$ref %q: %s: %s", w.at.ref, w.msg, renderChain(w.links))
		}
		out = append(out, Diagnostic{Pos: w.at.sc.doc.Position(w.at.ptr), Pointer: w.at.ptr, Message: msg})
	}
	return out
}

// asList returns err as an ErrorList: the list it is, or one *Error.
func asList(err error) ErrorList {
	var l ErrorList
	if errors.As(err, &l) {
		return l
	}
	var e *Error
	if errors.As(err, &e) {
		return ErrorList{e}
	}
	return ErrorList{{Err: err}}
}

// sortErrors puts errs in source order (each message formatted once).
func sortErrors(errs ErrorList) {
	type keyed struct {
		e   *Error
		msg string
	}
	ks := make([]keyed, len(errs))
	for i, e := range errs {
		ks[i] = keyed{e, e.Error()}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		return cmp.Or(comparePos(a.e.Pos, b.e.Pos), strings.Compare(a.e.Pointer, b.e.Pointer), strings.Compare(a.msg, b.msg))
	})
	for i, k := range ks {
		errs[i] = k.e
	}
}
