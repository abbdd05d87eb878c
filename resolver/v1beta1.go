package resolver

import (
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// v1beta1Defaults makes a compiled apiextensions.k8s.io/v1beta1 CRD one
// that the apiservers serving v1beta1 (1.16-1.21) accept. They reject a
// schema with defaults ("must be false in order to use defaults in the
// schema") unless spec.preserveUnknownFields is false, and it defaults to
// true in v1beta1. The defaults a CRD gets without the author writing one
// are list-map keys' (ports' protocol: TCP), which Kubernetes applies.
//
//   - preserveUnknownFields false: nothing to do.
//   - not set, and the schemas hold a default: it is set to false, with a
//     warning (unknown fields are then pruned, as in every v1 CRD).
//   - true, written by the author: their choice stands. The list-maps that
//     only Kubernetes' defaults made valid become atomic lists without
//     them, with a warning; a default the author wrote is an error, since
//     no apiserver accepts it beside true.
func (r *run) v1beta1Defaults(crd map[string]any, sc scope) {
	spec, _ := crd["spec"].(map[string]any)
	pv, set := spec["preserveUnknownFields"]
	if set && pv != true {
		return // false, or not a boolean (the apiserver's decoding says so)
	}
	var holders []map[string]any
	var ptrs []string
	if v, ok := spec["validation"].(map[string]any); ok {
		holders, ptrs = append(holders, v), append(ptrs, "/spec/validation/openAPIV3Schema")
	}
	versions, _ := spec["versions"].([]any)
	for i, v := range versions {
		if s, ok := dig(v, "schema").(map[string]any); ok {
			holders, ptrs = append(holders, s), append(ptrs, fmt.Sprintf("/spec/versions/%d/schema/openAPIV3Schema", i))
		}
	}
	if !set {
		r.preserveUnknownFieldsFalse(spec, holders, ptrs, sc)
		return
	}
	r.preserveUnknownFieldsTrue(holders, ptrs, sc)
}

// preserveUnknownFieldsFalse sets spec.preserveUnknownFields, not
// written, to false when a schema (in holders, at ptrs) holds a default.
func (r *run) preserveUnknownFieldsFalse(spec map[string]any, holders []map[string]any, ptrs []string, sc scope) {
	for i, h := range holders {
		s, _ := h["openAPIV3Schema"].(map[string]any)
		if at, ok := firstDefault(s, nil); ok {
			spec["preserveUnknownFields"] = false
			if !r.c.atLeast(1, 15) {
				// 1.12 to 1.14 refuse every default (reported where it is
				// written) and have no such field to set.
				r.warn(sc, "/spec", fmt.Sprintf("set spec.preserveUnknownFields: false, as the schema has defaults (the first at %s), so the CRD is what apiservers from 1.15 on take; Kubernetes %s has no such field (it came in 1.15) and drops it unread", place(ptrs[i], at), r.c.version))
				return
			}
			r.warn(sc, "/spec", fmt.Sprintf("set spec.preserveUnknownFields: false, as the schema has defaults (the first at %s): apiservers serving v1beta1 (1.16-1.21) reject defaults while it is true, its v1beta1 default; unknown fields are now pruned. Write preserveUnknownFields in the template to decide yourself", place(ptrs[i], at)))
			return
		}
	}
}

// preserveUnknownFieldsTrue keeps the author's preserveUnknownFields:
// true: the schemas (in holders, at ptrs) lose the defaults only
// Kubernetes gave, with a warning, and one the author wrote is an error.
func (r *run) preserveUnknownFieldsTrue(holders []map[string]any, ptrs []string, sc scope) {
	for i, h := range holders {
		s, _ := h["openAPIV3Schema"].(map[string]any)
		if s == nil {
			continue
		}
		var first []string
		h["openAPIV3Schema"], _ = dropKubernetesDefaults(s, nil, &first)
		if first != nil {
			r.warn(sc, "/spec/preserveUnknownFields", fmt.Sprintf("preserveUnknownFields: true, and apiservers reject defaults beside it: list-maps with a key that only Kubernetes defaults (the first at %s) are atomic lists in this CRD, without that default (server-side apply replaces them whole)", place(ptrs[i], first)))
		}
		if at, ok := firstDefault(h["openAPIV3Schema"].(map[string]any), nil); ok && !r.c.atLeast(1, 15) {
			r.badInput(sc, "/spec/preserveUnknownFields", "preserveUnknownFields: true, but the schema sets a default at %s, and Kubernetes %s refuses defaults in CRD schemas whatever preserveUnknownFields says (a field it does not have: it came in 1.15): remove the default, or pass --k8s-version 1.16 or later", place(ptrs[i], at), r.c.version)
		} else if ok {
			r.badInput(sc, "/spec/preserveUnknownFields", "preserveUnknownFields: true, but the schema sets a default at %s, and apiservers reject defaults unless preserveUnknownFields is false: set it to false (unknown fields are then pruned) or remove the default", place(ptrs[i], at))
		}
	}
}

// place names a schema node for messages: its field path in the CRD
// schema at ptr, e.g. "spec.ports[*].protocol in spec.validation".
func place(ptr string, toks []string) string {
	schema := strings.TrimPrefix(strings.TrimSuffix(strings.TrimSuffix(ptr, "/openAPIV3Schema"), "/schema"), "/")
	if rest, ok := strings.CutPrefix(schema, "spec/versions/"); ok {
		schema = "spec.versions[" + rest + "]"
	}
	schema = strings.ReplaceAll(schema, "/", ".")
	field := strings.TrimPrefix(fieldPath(toks), ".")
	if field == "" {
		field = "the root"
	}
	return field + " in " + schema
}

// firstDefault finds the first default in s, walking keys in sorted order
// (so the answer does not depend on map order), and returns the pointer
// tokens of the schema holding it. A subtree shared by several $refs is
// walked at each: the compiled CRD is within the budget's values.
func firstDefault(s map[string]any, at []string) ([]string, bool) {
	if s == nil {
		return nil, false
	}
	if _, ok := s["default"]; ok {
		return at, true
	}
	for _, k := range sortedKeys(s) {
		for _, c := range childSchemas(k, s[k]) {
			if p, ok := firstDefault(c.schema, extend(at, c.toks...)); ok {
				return p, true
			}
		}
	}
	return nil, false
}

type childSchema struct {
	toks   []string
	schema map[string]any
}

// childSchemas lists the schemas held by key k of a schema, in a fixed
// order.
func childSchemas(k string, v any) []childSchema {
	var out []childSchema
	switch {
	case bundlefmt.SchemaValued(k) || bundlefmt.SchemaLists(k):
		if m, ok := v.(map[string]any); ok {
			return []childSchema{{[]string{k}, m}}
		}
		list, _ := v.([]any)
		for i, x := range list {
			if m, ok := x.(map[string]any); ok {
				out = append(out, childSchema{[]string{k, itoa(i)}, m})
			}
		}
	case bundlefmt.SchemaMaps(k):
		m, _ := v.(map[string]any)
		for _, name := range sortedKeys(m) {
			if sm, ok := m[name].(map[string]any); ok {
				out = append(out, childSchema{[]string{k, name}, sm})
			}
		}
	}
	return out
}

// dropKubernetesDefaults returns s with every list-map whose keys needed
// a default Kubernetes supplies (see listMap) turned into an atomic list
// without it, and whether anything changed. s is never modified: what
// changes is copied (a subtree shared by several $refs is copied at each
// use, equal). first receives the pointer tokens of the first such list
// (in sorted key order).
func dropKubernetesDefaults(s map[string]any, at []string, first *[]string) (map[string]any, bool) {
	out, changed := s, false
	change := func(k string, v any) {
		if !changed {
			out, changed = maps.Clone(s), true
		}
		out[k] = v
	}
	if listMapDefaulted(s) {
		if *first == nil {
			*first = append([]string{}, at...)
		}
		change("items", withoutKeyDefaults(s))
		delete(out, "x-kubernetes-list-type")
		delete(out, "x-kubernetes-list-map-keys")
	}
	for _, k := range sortedKeys(out) {
		if v, ok := dropKubernetesDefaultsUnder(k, out[k], at, first); ok {
			change(k, v)
		}
	}
	return out, changed
}

// dropKubernetesDefaultsUnder is dropKubernetesDefaults for the schemas
// held by key k (value v) of the schema at at: v with them changed, and
// whether any changed (v is copied only then).
func dropKubernetesDefaultsUnder(k string, v any, at []string, first *[]string) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		if bundlefmt.SchemaValued(k) {
			return dropKubernetesDefaults(v, extend(at, k), first)
		}
		if !bundlefmt.SchemaMaps(k) {
			return v, false
		}
		var names map[string]any
		for _, name := range sortedKeys(v) {
			sm, ok := v[name].(map[string]any)
			if !ok {
				continue
			}
			if n, ok := dropKubernetesDefaults(sm, extend(at, k, name), first); ok {
				if names == nil {
					names = maps.Clone(v)
				}
				names[name] = n
			}
		}
		return names, names != nil
	case []any:
		if !bundlefmt.SchemaValued(k) && !bundlefmt.SchemaLists(k) {
			return v, false
		}
		var items []any
		for i, x := range v {
			sm, ok := x.(map[string]any)
			if !ok {
				continue
			}
			if n, ok := dropKubernetesDefaults(sm, extend(at, k, itoa(i)), first); ok {
				if items == nil {
					items = append([]any(nil), v...)
				}
				items[i] = n
			}
		}
		return items, items != nil
	}
	return v, false
}

// extend returns a new list of pointer tokens: at, then toks.
func extend(at []string, toks ...string) []string {
	return append(append([]string(nil), at...), toks...)
}

// listMapDefaulted reports whether s is a list-map with a key whose
// default listMap took from Kubernetes.
func listMapDefaulted(s map[string]any) bool {
	if s["x-kubernetes-list-type"] != "map" {
		return false
	}
	props, _ := dig(s, "items", "properties").(map[string]any)
	for _, k := range listOf(s["x-kubernetes-list-map-keys"]) {
		name, _ := k.(string)
		if kubernetesDefault(props[name]) {
			return true
		}
	}
	return false
}

// kubernetesDefault reports whether a property's default is the one
// listMap took from Kubernetes.
func kubernetesDefault(prop any) bool {
	p, _ := prop.(map[string]any)
	d, ok := p["default"]
	kd, fromK8s := p[bundleDefault]
	return ok && fromK8s && reflect.DeepEqual(d, kd)
}

// withoutKeyDefaults returns a copy of the items of list-map s without the
// defaults Kubernetes supplied for its keys.
func withoutKeyDefaults(s map[string]any) map[string]any {
	items := maps.Clone(s["items"].(map[string]any))
	props := maps.Clone(items["properties"].(map[string]any))
	for _, k := range listOf(s["x-kubernetes-list-map-keys"]) {
		name, _ := k.(string)
		if kubernetesDefault(props[name]) {
			p := maps.Clone(props[name].(map[string]any))
			delete(p, "default")
			props[name] = p
		}
	}
	items["properties"] = props
	return items
}

// fieldPath renders the pointer tokens of a schema node, relative to a
// schema, as the path of the field it describes: properties/a/items/
// properties/b becomes .a[*].b. Map values and list items are [*]; allOf,
// anyOf, oneOf and not describe the same value and add nothing.
func fieldPath(toks []string) string {
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		switch t := toks[i]; {
		case (t == "properties" || t == "patternProperties") && i+1 < len(toks):
			i++
			if t == "patternProperties" {
				b.WriteString("[*]")
				continue
			}
			b.WriteString(".")
			b.WriteString(toks[i])
		case t == "items" || t == "additionalProperties" || t == "additionalItems":
			b.WriteString("[*]")
			if i+1 < len(toks) && t != "additionalProperties" && isIndex(toks[i+1]) {
				i++ // items written as a list: still an item
			}
		case bundlefmt.SchemaLists(t) && i+1 < len(toks):
			i++
		case t == "not" || t == "$ref":
		default:
			b.WriteString("/")
			b.WriteString(t)
		}
	}
	return b.String()
}

func isIndex(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
