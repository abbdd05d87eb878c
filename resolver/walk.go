package resolver

import (
	"maps"
	"slices"
	"strconv"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// schemaPath is the JSON pointer of a schema node, built as a chain so that a
// walk over thousands of nodes pays for the string only where a message
// needs it.
type schemaPath struct {
	parent *schemaPath
	base   string // root only: the pointer the walk started at
	tok    string
}

// rootPath starts a schemaPath at the JSON pointer ptr.
func rootPath(ptr string) *schemaPath { return &schemaPath{base: ptr} }

// Child returns the path of a child node.
func (p *schemaPath) Child(tok string) *schemaPath { return &schemaPath{parent: p, tok: tok} }

// String renders the JSON pointer.
func (p *schemaPath) String() string {
	if p.parent == nil {
		return p.base
	}
	return joinPointer(p.parent.String(), p.tok)
}

// join renders the pointer of a descendant given by tokens.
func (p *schemaPath) join(toks ...string) string {
	s := p.String()
	for _, t := range toks {
		s = joinPointer(s, t)
	}
	return s
}

// visitor is called for every schema node of a tree by walkSchemas. Visit returns
// the visitor for the node's children, or nil to skip them. Nodes are
// visited parent first.
type visitor interface {
	Visit(schema map[string]any, path *schemaPath) visitor
}

// visitFunc adapts a function to visitor; it walks every node.
type visitFunc func(schema map[string]any, path *schemaPath)

// Visit calls f and keeps walking.
func (f visitFunc) Visit(s map[string]any, p *schemaPath) visitor {
	f(s, p)
	return f
}

// walkSchemas visits schema and every schema below it: the children
// bundlefmt.SchemaValued, SchemaLists and SchemaMaps name (the nodes
// bundlefmt.WalkSchemas visits in the stored data). Visitors may edit the node
// they are given: its children are read after Visit returns. The order of
// siblings is unspecified; passes must not depend on it (diagnostics are
// sorted by position at the end of a compile).
func walkSchemas(v visitor, schema map[string]any, p *schemaPath) {
	if v = v.Visit(schema, p); v == nil {
		return
	}
	for k, child := range schema {
		switch c := child.(type) {
		case map[string]any:
			if bundlefmt.SchemaValued(k) {
				walkSchemas(v, c, p.Child(k))
			} else if bundlefmt.SchemaMaps(k) {
				cp := p.Child(k)
				for name, s := range c {
					if sm, ok := s.(map[string]any); ok {
						walkSchemas(v, sm, cp.Child(name))
					}
				}
			}
		case []any:
			if bundlefmt.SchemaValued(k) || bundlefmt.SchemaLists(k) {
				cp := p.Child(k)
				for i, item := range c {
					if m, ok := item.(map[string]any); ok {
						walkSchemas(v, m, cp.Child(itoa(i)))
					}
				}
			}
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func itoa(i int) string { return strconv.Itoa(i) }

// deepCopy copies JSON-like values; maps and slices are fresh, scalars are
// immutable and shared.
func deepCopy(v any) any {
	var n int64
	return countingCopy(v, &n)
}

// cowList returns l with f applied to each item, and whether f changed
// any: l is copied at the first change, and returned itself when there is
// none.
func cowList(l []any, f func(any) (any, bool)) ([]any, bool) {
	var out []any
	for i, x := range l {
		if nx, changed := f(x); changed {
			if out == nil {
				out = slices.Clone(l)
			}
			out[i] = nx
		}
	}
	if out == nil {
		return l, false
	}
	return out, true
}

// under returns v with f applied to its entry k when v is a map, and
// whether f changed it: the map is copied only then.
func under(v any, k string, f func(any) (any, bool)) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, false
	}
	x, changed := f(m[k])
	if !changed {
		return v, false
	}
	m = maps.Clone(m)
	m[k] = x
	return m, true
}

// dig follows keys through nested maps; it returns nil when one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
