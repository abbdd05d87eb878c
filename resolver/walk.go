package resolver

import (
	"slices"
	"strconv"
)

// Schema keys by the shape of their value. Everything else in a schema
// (default, enum, example, x-kubernetes-validations...) is data, never
// walked: a "$ref" inside a default value is just a string.
var (
	// schemaValued keys hold one schema (or, for items, a list of them).
	schemaValued = map[string]bool{"items": true, "additionalProperties": true, "not": true, "additionalItems": true}
	// schemaLists keys hold a list of schemas.
	schemaLists = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true}
	// schemaMaps keys hold a map of name to schema.
	schemaMaps = map[string]bool{"properties": true, "patternProperties": true, "definitions": true, "dependencies": true}
)

// Visitor is called for every schema node of a tree by Walk. Visit returns
// the visitor for the node's children, or nil to skip them. Nodes are
// visited parent first; ptr is the node's JSON pointer.
type Visitor interface {
	Visit(schema map[string]any, ptr string) Visitor
}

// VisitorFunc adapts a function to Visitor; it walks every node.
type VisitorFunc func(schema map[string]any, ptr string)

// Visit calls f and keeps walking.
func (f VisitorFunc) Visit(s map[string]any, ptr string) Visitor {
	f(s, ptr)
	return f
}

// Walk visits schema and every schema below it, in sorted key order, so
// every pass is deterministic. Visitors may edit the node they are given
// (children are read after Visit returns).
func Walk(v Visitor, schema map[string]any, ptr string) {
	if v = v.Visit(schema, ptr); v == nil {
		return
	}
	for _, k := range sortedKeys(schema) {
		child := schema[k]
		cptr := joinPointer(ptr, k)
		switch {
		case schemaValued[k]:
			switch c := child.(type) {
			case map[string]any:
				Walk(v, c, cptr)
			case []any:
				for i, item := range c {
					if m, ok := item.(map[string]any); ok {
						Walk(v, m, joinPointer(cptr, itoa(i)))
					}
				}
			}
		case schemaLists[k]:
			if list, ok := child.([]any); ok {
				for i, item := range list {
					if m, ok := item.(map[string]any); ok {
						Walk(v, m, joinPointer(cptr, itoa(i)))
					}
				}
			}
		case schemaMaps[k]:
			if m, ok := child.(map[string]any); ok {
				for _, name := range sortedKeys(m) {
					if s, ok := m[name].(map[string]any); ok {
						Walk(v, s, joinPointer(cptr, name))
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

func sortStrings(s []string) { slices.Sort(s) }

func itoa(i int) string { return strconv.Itoa(i) }

// deepCopy copies JSON-like values; maps and slices are fresh, scalars are
// immutable and shared.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
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
