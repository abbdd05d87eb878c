package resolver

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Diagnostics raised inside a Kubernetes bundle have no place of their
// own in any file the user wrote. They are reported at the user's $ref
// that led into the bundle, with the chain of definitions from there to
// the problem:
//
//	template.yaml:20:15: /spec/.../schema/$ref: $ref "io.k8s...CustomResourceValidation":
//	    recursive $ref: CustomResourceValidation -> .openAPIV3Schema -> JSONSchemaProps -> .properties[*] -> JSONSchemaProps; ...
//
// An error is reported once per $ref and problem (a cycle, however many
// paths close it, is one problem), a warning once per problem (per cycle,
// or per definition and message), each with the first $ref by position
// and the shortest chain.

// frame is one $ref target being resolved: its key, its label in
// chains, the pointer of its root in its own scope, and the $ref that
// led to it.
type frame struct {
	key    string
	label  string
	root   string
	bundle bool
	from   site
}

// link is one step of a chain: a definition and the pointer, relative to
// its root, of the $ref that leads on (or, last, of the problem).
type link struct {
	label string
	at    string
}

func renderChain(links []link) string {
	parts := make([]string, 0, 2*len(links))
	for _, l := range links {
		parts = append(parts, l.label)
		if toks, err := splitPointer(l.at); err == nil {
			if p := fieldPath(toks); p != "" {
				parts = append(parts, p)
			}
		}
	}
	return strings.Join(parts, " -> ")
}

func compareChains(a, b []link) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	for i := range a {
		if c := cmp.Or(strings.Compare(a[i].label, b[i].label), strings.Compare(a[i].at, b[i].at)); c != 0 {
			return c
		}
	}
	return 0
}

// chainLabel names a target in chains: a bundle definition by its last
// name segment (JSONSchemaProps), a file target as in other messages.
func (r *run) chainLabel(t target) string {
	if t.file == "" {
		name := t.name[strings.LastIndexByte(t.name, '.')+1:]
		if t.version != r.c.version {
			name += " (Kubernetes " + t.version + ")"
		}
		return name
	}
	return r.label(t)
}

// relative returns ptr relative to the root of frame f.
func (f frame) relative(ptr string) string { return strings.TrimPrefix(ptr, f.root) }

// frameIndex returns the index of the frame resolving key, or -1.
func (r *run) frameIndex(key string) int {
	return slices.IndexFunc(r.stack, func(f frame) bool { return f.key == key })
}

// links returns the chain of the frames from index i to the top, the
// top's step ending at ptr.
func (r *run) links(i int, ptr string) []link {
	out := make([]link, 0, len(r.stack)-i+1)
	for j := i; j < len(r.stack); j++ {
		out = append(out, r.linkOf(j, ptr))
	}
	return out
}

// linkOf is the step of frame j in a chain that ends at ptr in the top
// frame.
func (r *run) linkOf(j int, ptr string) link {
	next := ptr
	if j+1 < len(r.stack) {
		next = r.stack[j+1].from.ptr
	}
	return link{label: r.stack[j].label, at: r.stack[j].relative(next)}
}

// shorterChain reports whether the chain of the frames from i, ending at
// ptr and then closing, orders before have (as compareChains does),
// without building it: a cycle cut may close millions of times.
func (r *run) shorterChain(i int, ptr string, closing link, have []link) bool {
	n := len(r.stack) - i + 1
	if n != len(have) {
		return n < len(have)
	}
	for j := i; j <= len(r.stack); j++ {
		l := closing
		if j < len(r.stack) {
			l = r.linkOf(j, ptr)
		}
		if c := cmp.Or(strings.Compare(l.label, have[j-i].label), strings.Compare(l.at, have[j-i].at)); c != 0 {
			return c < 0
		}
	}
	return false
}

// bundleChain returns, for a place ptr inside the bundle definition being
// resolved, the user's $ref that led into the bundle, the chain from the
// definition it names down to ptr, and the stack index of that
// definition. ok is false outside a bundle definition.
func (r *run) bundleChain(ptr string) (at site, links []link, depth int, ok bool) {
	depth = len(r.stack)
	for depth > 0 && r.stack[depth-1].bundle {
		depth--
	}
	if depth == len(r.stack) {
		return site{}, nil, 0, false
	}
	return r.stack[depth].from, r.links(depth, ptr), depth, true
}

// cycleError is a chain of $refs that leads back to itself.
type cycleError struct {
	links []link
	id    string // the definitions of the cycle, however it is entered
	more  int    // other paths that close the same cycle from the same $ref
}

func (e *cycleError) Error() string {
	more := ""
	switch {
	case e.more == 1:
		more = " (and 1 more path back)"
	case e.more > 1:
		more = fmt.Sprintf(" (and %d more paths back)", e.more)
	}
	return fmt.Sprintf("%s: %s%s; a CRD schema cannot be recursive: pass --recursion=preserve to cut the cycle with x-kubernetes-preserve-unknown-fields", ErrCycle, renderChain(e.links), more)
}

func (e *cycleError) Unwrap() error { return ErrCycle }

// cycleID names the cycle of the frames from index i to the top (the
// definition entered twice first), the same from whichever of its
// definitions it is entered.
func (r *run) cycleID(i int) string {
	frames := r.stack[i:]
	start, n := 0, 0
	for j, f := range frames {
		n += len(f.key) + 1
		if f.key < frames[start].key {
			start = j
		}
	}
	var b strings.Builder
	b.Grow(n)
	for j := range frames {
		b.WriteString(frames[(start+j)%len(frames)].key)
		b.WriteByte(' ')
	}
	return b.String()
}

// cycleCut is the warning for a cycle cut outside the bundles, at the
// first place it closes; its message ends with the chain.
type cycleCut struct {
	d     Diagnostic
	links []link
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
	if r.bundleErrs == nil {
		r.bundleErrs = map[string]*bundleError{}
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
		e.Pos, e.Pointer, e.Ref = be.at.sc.doc.position(be.at.ptr), be.at.ptr, be.at.ref
		var ce *cycleError
		if errors.As(be.cause, &ce) {
			e.Err = &cycleError{links: be.links, id: ce.id, more: len(be.paths) - 1}
		} else {
			e.Err = fmt.Errorf("in %s: %w", renderChain(be.links), be.cause)
		}
		noteHint(e)
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
	a, b := w.at.sc.doc.position(w.at.ptr), than.at.sc.doc.position(than.at.ptr)
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
		out = append(out, Diagnostic{Pos: w.at.sc.doc.position(w.at.ptr), Pointer: w.at.ptr, Message: msg})
	}
	return out
}
