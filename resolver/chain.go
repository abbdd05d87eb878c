package resolver

import (
	"cmp"
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

// compareChains orders chains shortest first, then link by link.
func compareChains(a, b []link) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return slices.CompareFunc(a, b, compareLinks)
}

func compareLinks(a, b link) int {
	return cmp.Or(strings.Compare(a.label, b.label), strings.Compare(a.at, b.at))
}

// chainLabel names a target in chains: a bundle definition by its last
// name segment (JSONSchemaProps), a file target as in other messages.
func (r *run) chainLabel(t target) string {
	if t.file == "" {
		t.name = t.name[strings.LastIndexByte(t.name, '.')+1:]
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
		if c := compareLinks(l, have[j-i]); c != 0 {
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
