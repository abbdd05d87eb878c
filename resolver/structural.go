package resolver

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// forbiddenKeys are JSONSchemaProps keys a CRD schema may not use.
var forbiddenKeys = map[string]string{
	"id":                "CRD schemas may not set id",
	"$schema":           "CRD schemas may not set $schema",
	"definitions":       "CRD schemas may not hold definitions",
	"patternProperties": "CRD schemas do not support patternProperties; use additionalProperties",
	"dependencies":      "CRD schemas do not support dependencies",
	"additionalItems":   "CRD schemas do not support additionalItems",
}

var scalarTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true}

// structural rewrites the resolved schema at ptr, in place, into a
// structural schema the apiserver accepts. Changes that drop something the
// author wrote become warnings; what cannot be fixed becomes an error.
func (r *run) structural(root map[string]any, sc scope, ptr string) {
	if t, ok := root["type"]; ok && t != "object" {
		r.notStructural(sc, ptr, "the root schema must have type object, not %v", t)
	}
	root["type"] = "object"
	if props := asSchema(root["properties"]); props != nil {
		if md := asSchema(props["metadata"]); md != nil && !rootMetadataOK(md) {
			r.warn(sc, joinPointer(joinPointer(ptr, "properties"), "metadata"), "the apiserver allows only type: object (and name/generateName constraints) for the root metadata; the rest was dropped")
			cloneAt(root, "properties")["metadata"] = unfinishedNode(map[string]any{"type": "object"})
		}
	}
	r.normalize(root, sc, ptr)
}

// normalize runs the structural pass over the unfinished nodes of s (see
// unfinishedNode), parents first, and finishes them. s itself must be
// unfinished.
func (r *run) normalize(s map[string]any, sc scope, ptr string) {
	walkSchemas(normalizer{r, sc}, s, rootPath(ptr))
}

type normalizer struct {
	r  *run
	sc scope
}

// Visit makes an unfinished node structural and walks on into its
// children; a finished node, and so everything below it, is left alone.
func (n normalizer) Visit(s map[string]any, p *schemaPath) visitor {
	if n.r.stopped {
		return nil
	}
	if _, ok := s[unfinishedKey].(unfinished); !ok {
		return nil
	}
	delete(s, unfinishedKey)
	n.r.structuralNode(s, n.sc, p)
	return n
}

// unfinishedKey is the private key that marks a schema node the structural
// pass has still to visit. Its value is always unfinished{}, a type no
// decoder makes, so no input can pass for a mark (and an author's key of
// that name is dropped as an unknown extension).
//
// Nodes are marked where they are made: every node resolveSchema builds
// (or, in a bundle definition's fresh decode, takes over), and every copy
// the pass itself makes to change what it copies (cloneSchemaAt). A node
// without the mark is finished: a resolved $ref target's, shared by every
// use and by the Compiler's cache, which nothing writes to. The pass removes
// each mark as it visits the node, so none is left in a finished tree: the
// structural pass is the one place that tells the two apart, by what the
// nodes hold, never by their addresses.
const unfinishedKey = "x-k8s-crd-resolver-unfinished"

// unfinished is the value of unfinishedKey.
type unfinished struct{}

// unfinishedNode marks m unfinished and returns it.
func unfinishedNode(m map[string]any) map[string]any {
	m[unfinishedKey] = unfinished{}
	return m
}

func rootMetadataOK(md map[string]any) bool {
	for k, v := range md {
		switch k {
		case unfinishedKey:
		case "type":
			if v != "object" {
				return false
			}
		case "properties":
			props := asSchema(v)
			for name := range props {
				if name != "name" && name != "generateName" {
					return false
				}
			}
		case "description":
		default:
			return false
		}
	}
	return true
}

// unknownExtension is the warning for an x- key a CRD schema cannot hold,
// dropped.
func unknownExtension(k string) string {
	return "dropped " + k + ": CRD schemas allow only the x-kubernetes extensions the apiserver knows"
}

// structuralNode makes one schema node structural. Its steps run in this
// order, each reading what the ones before it wrote (the types a list or
// an int-or-string gave, the type inferred, the items added).
func (r *run) structuralNode(s map[string]any, sc scope, p *schemaPath) {
	r.flattenAllOf(s, sc, p)
	delete(s, "$ref")
	r.dropUnknownKeys(s, sc, p)
	for _, k := range []string{"x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource", "nullable"} {
		if s[k] == false {
			delete(s, k)
		}
	}
	r.typeList(s, sc, p)
	intOrStringNode(s)
	r.junctors(s, sc, p)
	r.inferType(s, sc, p)
	r.additionalProperties(s, sc, p)
	r.items(s, sc, p)
	r.uniqueItems(s, sc, p)
	r.format(s)
	r.listAndMapTypes(s, sc, p)
	if !r.c.atLeast(1, 15) {
		beforeExtensions(s)
	}
	// bundleDefault stays: a list-map node elsewhere may still need it. The
	// emitter and Document.Object leave it out.
}

// listAndMapTypes keeps the x-kubernetes list and map types the target
// Kubernetes knows, where the apiserver allows them.
func (r *run) listAndMapTypes(s map[string]any, sc scope, p *schemaPath) {
	// Kubernetes marks some []byte fields (strings in JSON) as atomic lists;
	// the apiserver allows list and map types only on arrays and objects.
	if s["type"] != "array" {
		delete(s, "x-kubernetes-list-type")
		delete(s, "x-kubernetes-list-map-keys")
	}
	if t, _ := s["type"].(string); t != "object" && t != "" {
		delete(s, "x-kubernetes-map-type")
	}
	if r.c.atLeast(1, 16) {
		if !r.c.atLeast(1, 17) {
			// 1.16 has none (validate --k8s-version 1.16 refuses them): a
			// pinned newer bundle's go without a word.
			r.dropExtensions(s, sc, p, "x-kubernetes-map-type")
		}
		r.listMap(s, sc, p)
		r.setOfObjects(s)
	} else {
		r.beforeListTypes(s, sc, p)
	}
}

// drop deletes key k of s and warns msg at it.
func (r *run) drop(s map[string]any, sc scope, p *schemaPath, k, msg string) {
	delete(s, k)
	r.warn(sc, p.join(k), msg)
}

// dropUnknownKeys drops the keys a CRD schema cannot hold: extensions the
// apiserver does not know, what is no JSONSchemaProps keyword, and the
// keywords CRDs forbid (definitions without a word).
func (r *run) dropUnknownKeys(s map[string]any, sc scope, p *schemaPath) {
	for k := range s {
		_, known := jsonSchemaProps[k]
		switch {
		case k == bundleDefault:
		case strings.HasPrefix(k, "x-kubernetes-") && crdExtensions[k]:
		case strings.HasPrefix(k, "x-"):
			r.drop(s, sc, p, k, unknownExtension(k))
		case !known:
			r.drop(s, sc, p, k, "dropped "+k+": not a CRD schema keyword")
		case k == "definitions":
			delete(s, k)
		case forbiddenKeys[k] != "":
			r.drop(s, sc, p, k, "dropped "+k+": "+forbiddenKeys[k])
		}
	}
}

// typeList reads type written as a list: type: [string, "null"] (OpenAPI
// 3.1) is a nullable string, [integer, string] an int-or-string.
func (r *run) typeList(s map[string]any, sc scope, p *schemaPath) {
	list, ok := s["type"].([]any)
	if !ok {
		return
	}
	var types []string
	for _, t := range list {
		if t == "null" && !r.c.atLeast(1, 14) {
			// nullable is 1.14's: what the type asks for, 1.12 and 1.13
			// cannot hold (validate --k8s-version refuses nullable there).
			r.badInput(sc, p.join("type"), "Kubernetes %s has no nullable in CRD schemas (it came in 1.14), so no null can be allowed: remove \"null\" from type, or pass --k8s-version 1.14 or later", r.c.version)
		} else if t == "null" {
			s["nullable"] = true
		} else if ts, ok := t.(string); ok {
			types = append(types, ts)
		}
	}
	switch {
	case len(types) == 1:
		s["type"] = types[0]
	case len(types) == 2 && slices.Contains(types, "integer") && slices.Contains(types, "string"):
		delete(s, "type")
		maps.Copy(s, intOrString())
	default:
		r.notStructural(sc, p.join("type"), "a CRD schema has one type, not %v", list)
		delete(s, "type")
	}
}

// intOrStringNode writes an int-or-string as the apiserver wants it: no
// type, and anyOf integer or string. The swagger way (format:
// int-or-string) is read too.
func intOrStringNode(s map[string]any) {
	if s["format"] == "int-or-string" {
		delete(s, "format")
		delete(s, "type")
		s["x-kubernetes-int-or-string"] = true
	}
	if s["x-kubernetes-int-or-string"] == true {
		delete(s, "type")
		if _, ok := s["anyOf"]; !ok {
			s["anyOf"] = intOrString()["anyOf"]
		}
	}
}

// inferType gives a node without a type the one its keys imply; with
// none implied, the node keeps any value, with a warning. Then it checks
// the type.
func (r *run) inferType(s map[string]any, sc scope, p *schemaPath) {
	_, hasProps := s["properties"]
	_, hasAddl := s["additionalProperties"]
	_, hasItems := s["items"]
	if _, ok := s["type"]; !ok && !r.intOrString(s) {
		switch {
		case hasProps || hasAddl:
			s["type"] = "object"
		case hasItems:
			s["type"] = "array"
		case s["x-kubernetes-preserve-unknown-fields"] == true:
		default:
			s["x-kubernetes-preserve-unknown-fields"] = true
			r.warn(sc, p.String(), "no type: any value is kept (x-kubernetes-preserve-unknown-fields: true); give it a type to have it validated")
		}
	}
	switch t := s["type"].(type) {
	case nil:
	case string:
		if !scalarTypes[t] && t != "object" && t != "array" {
			r.notStructural(sc, p.join("type"), "unknown type %q; want object, array, string, integer, number or boolean", t)
		}
	default:
		r.notStructural(sc, p.join("type"), "type must be a string")
	}
}

// additionalProperties: true keeps unknown fields, false is what CRDs do
// anyway; a schema beside properties is dropped.
func (r *run) additionalProperties(s map[string]any, sc scope, p *schemaPath) {
	switch a := s["additionalProperties"].(type) {
	case bool:
		delete(s, "additionalProperties")
		if a && s["x-kubernetes-preserve-unknown-fields"] != true {
			s["x-kubernetes-preserve-unknown-fields"] = true
		} else if !a {
			r.warn(sc, p.join("additionalProperties"), "dropped additionalProperties: false; CRDs prune unknown fields anyway")
		}
	case map[string]any:
		if _, hasProps := s["properties"]; hasProps {
			r.drop(s, sc, p, "additionalProperties", "dropped additionalProperties: a CRD schema cannot have both properties and additionalProperties")
		}
	}
}

// items: one schema, and an array has one.
func (r *run) items(s map[string]any, sc scope, p *schemaPath) {
	if items, ok := s["items"].([]any); ok {
		r.notStructural(sc, p.join("items"), "items must be one schema; CRDs do not support tuples (a list of %d schemas)", len(items))
		delete(s, "items")
	}
	if s["type"] == "array" {
		if _, ok := s["items"]; !ok {
			s["items"] = map[string]any{"x-kubernetes-preserve-unknown-fields": true}
			r.warn(sc, p.String(), "array without items: items may hold any value")
		}
	}
}

// uniqueItems, which CRDs forbid, goes; a list of scalars keeps its
// meaning as a list-type set.
func (r *run) uniqueItems(s map[string]any, sc scope, p *schemaPath) {
	u, ok := s["uniqueItems"]
	if !ok {
		return
	}
	delete(s, "uniqueItems")
	if u != true {
		return
	}
	if it := asSchema(s["items"]); it != nil && scalarTypes[asString(it["type"])] && s["x-kubernetes-list-type"] == nil {
		s["x-kubernetes-list-type"] = "set"
		r.warn(sc, p.join("uniqueItems"), "uniqueItems: true became x-kubernetes-list-type: set (CRDs forbid uniqueItems)")
	} else {
		r.warn(sc, p.join("uniqueItems"), "dropped uniqueItems: true (CRDs forbid it; use x-kubernetes-list-type: set)")
	}
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

// format drops formats the apiserver does not recognise for the node's
// type, as it would (with a warning) at apply time.
func (r *run) format(s map[string]any) {
	f, ok := s["format"].(string)
	if !ok {
		delete(s, "format")
		return
	}
	if !schemas.KnownFormat(r.c.minor(), asString(s["type"]), f) {
		delete(s, "format")
	}
}

// junctors checks allOf/anyOf/oneOf/not: in a structural schema they hold
// only value validations.
func (r *run) junctors(s map[string]any, sc scope, p *schemaPath) {
	for _, k := range []string{"anyOf", "oneOf", "allOf", "not"} {
		var list []any
		switch v := s[k].(type) {
		case []any:
			list = v
		case map[string]any:
			list = []any{v}
		default:
			continue
		}
		own := false
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			ip := p.join(k, itoa(i))
			if k == "not" {
				ip = p.join(k)
			}
			if _, has := m["description"]; has {
				m = unfinishedNode(maps.Clone(m))
				delete(m, "description")
				if k == "not" {
					s[k] = m
				} else {
					// list may be a finished node's: change a copy.
					if !own {
						list, own = slices.Clone(list), true
						s[k] = list
					}
					list[i] = m
				}
			}
			if k == "anyOf" && r.intOrString(s) && keywords(m) == 1 && (m["type"] == "integer" || m["type"] == "string") {
				continue
			}
			for _, bad := range []string{"type", "default", "additionalProperties", "nullable"} {
				if _, has := m[bad]; has {
					r.notStructural(sc, joinPointer(ip, bad), "%s may hold only value validations (pattern, enum, minimum...), not %s; move it to the enclosing schema", k, bad)
				}
			}
		}
	}
}

// flattenAllOf merges allOf entries that carry structure (types,
// properties, items...) into s. Entries or parts of entries that only
// constrain values and conflict with s stay in allOf.
func (r *run) flattenAllOf(s map[string]any, sc scope, p *schemaPath) {
	list, ok := s["allOf"].([]any)
	if !ok {
		return
	}
	var keep []any
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		if rest := r.mergeSchema(s, m, sc, p.Child("allOf").Child(itoa(i))); len(rest) > 0 {
			keep = append(keep, unfinishedNode(rest))
		}
	}
	if len(keep) == 0 {
		delete(s, "allOf")
	} else {
		s["allOf"] = keep
	}
}

// mergeSchema merges src into dst (both hold the same value). It returns
// the parts of src that could not be merged because dst constrains them
// differently; they must stay a separate conjunct.
func (r *run) mergeSchema(dst, src map[string]any, sc scope, p *schemaPath) map[string]any {
	rest := map[string]any{}
	// Merging shared subtrees copies them, level by level: work the
	// budget bounds (two allOf entries naming one 10^20-value target
	// would otherwise merge forever).
	if r.stopped {
		return rest
	}
	if r.budget.ChargeWork(int64(1 + len(src))) {
		r.stopForWork(sc, p.String())
		return rest
	}
	for _, k := range sortedKeys(src) {
		v := src[k]
		have, exists := dst[k]
		switch {
		case k == unfinishedKey:
			// src's mark, not a keyword: dst is marked or being visited.
		case !exists:
			dst[k] = v
		case k == "properties":
			dp, sp := asSchema(have), asSchema(v)
			if dp == nil || sp == nil {
				continue
			}
			if r.budget.ChargeWork(int64(len(dp))) {
				r.stopForWork(sc, p.String())
				return rest
			}
			dp = cloneAt(dst, k)
			for name, ps := range sp {
				if _, ok := dp[name].(map[string]any); ok {
					if pm, ok := ps.(map[string]any); ok {
						dps := cloneSchemaAt(dp, name)
						if more := r.mergeSchema(dps, pm, sc, p.Child(k).Child(name)); len(more) > 0 {
							dps["allOf"] = slices.Concat(listOf(dps["allOf"]), []any{unfinishedNode(more)})
						}
					}
				} else {
					dp[name] = ps
				}
			}
		case k == "required":
			// have may be a finished node's list: the merged list is new.
			req := slices.Clone(listOf(have))
			for _, x := range listOf(v) {
				if !slices.Contains(req, x) {
					req = append(req, x)
				}
			}
			dst[k] = req
		case sameSchemaValue(have, v):
		case k == "description" || k == "title" || k == "example" || k == "externalDocs":
			// The enclosing schema's text wins.
		case k == "type" || k == "x-kubernetes-list-type" || k == "x-kubernetes-map-type" || k == "default":
			r.notStructural(sc, p.join(k), "allOf entry sets %s to %v, but the enclosing schema says %v", k, v, have)
		case k == "items" || k == "additionalProperties":
			if asSchema(have) != nil {
				if sm := asSchema(v); sm != nil {
					dm := cloneSchemaAt(dst, k)
					if more := r.mergeSchema(dm, sm, sc, p.Child(k)); len(more) > 0 {
						dm["allOf"] = slices.Concat(listOf(dm["allOf"]), []any{unfinishedNode(more)})
					}
				}
			}
		default:
			rest[k] = v
		}
	}
	return rest
}

// keywords is the number of keys of schema node m, its mark left out.
func keywords(m map[string]any) int {
	if _, ok := m[unfinishedKey]; ok {
		return len(m) - 1
	}
	return len(m)
}

// sameSchemaValue reports whether a and b hold the same value, whether or
// not their nodes are finished (reflect.DeepEqual but for the marks).
func sameSchemaValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || keywords(x) != keywords(y) {
			return false
		}
		for k, xv := range x {
			if k == unfinishedKey {
				continue
			}
			yv, ok := y[k]
			if !ok || !sameSchemaValue(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameSchemaValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// listMap makes x-kubernetes-list-type: map lists acceptable: every key
// must be required or defaulted. A key Kubernetes itself defaults gets
// that default; with no default to take, a Kubernetes list becomes
// atomic, with a warning, rather than have one invented, and the author's
// own list-map is an error at its keys (the fix is theirs to make).
func (r *run) listMap(s map[string]any, sc scope, p *schemaPath) {
	if s["x-kubernetes-list-type"] != "map" {
		return
	}
	items := asSchema(s["items"])
	keys := listOf(s["x-kubernetes-list-map-keys"])
	if items == nil || len(keys) == 0 {
		return
	}
	props := asSchema(items["properties"])
	required := listOf(items["required"])
	var missing []string
	for _, k := range keys {
		name, _ := k.(string)
		if slices.Contains(required, k) {
			continue
		}
		prop := asSchema(props[name])
		if prop == nil {
			missing = append(missing, name) // not even an item property (e.g. a cycle was cut there)
			continue
		}
		if _, ok := prop["default"]; ok {
			continue
		}
		if d, ok := prop[bundleDefault]; ok {
			// items may be shared with other uses of its definition, where
			// the key is no list-map key: change a copy.
			items = cloneSchemaAt(s, "items")
			props = cloneAt(items, "properties")
			prop = cloneSchemaAt(props, name)
			prop["default"] = d
			delete(prop, "nullable")
			// bundleDefault stays beside it: it marks the default as
			// Kubernetes', which a v1beta1 CRD may have to give up (see
			// v1beta1Defaults).
			continue
		}
		missing = append(missing, name)
	}
	if len(missing) > 0 && !sc.inBundle() {
		// The author's own list-map: the apiserver would refuse it, and
		// making it atomic would change what they asked for.
		r.notStructural(sc, p.String()+"/x-kubernetes-list-map-keys", "list-map key %s is neither required nor defaulted, which the apiserver refuses; add it to the items' required list, or give it a default", strings.Join(missing, ", "))
		return
	}
	if len(missing) > 0 {
		delete(s, "x-kubernetes-list-type")
		delete(s, "x-kubernetes-list-map-keys")
		r.warn(sc, p.String(), fmt.Sprintf("list-map key %s is neither required nor defaulted by Kubernetes; the list is atomic in this CRD (server-side apply replaces it whole)", strings.Join(missing, ", ")))
	}
}

// beforeListTypes adapts a node to Kubernetes before 1.16, whose CRD
// schemas have no list types (1.16) or map types (1.17): their apiservers
// drop the extensions unread. Nor do they take defaults: 1.12 to 1.14
// refuse "default", 1.15 accepts it only with the CustomResourceDefaulting
// feature gate on, off by default. So list-map keys get no defaults from
// the bundle, a template's own list types are dropped with a warning and
// its defaults are an error, where they are written (bundle definitions
// carry list types from 1.13 on; they go without a word).
func (r *run) beforeListTypes(s map[string]any, sc scope, p *schemaPath) {
	r.dropExtensions(s, sc, p, "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type")
	if _, ok := s["default"]; ok && !sc.inBundle() {
		r.badInput(sc, p.join("default"), "Kubernetes %s refuses default in a CRD schema (defaults came in 1.16; 1.15 takes them only with the CustomResourceDefaulting feature gate on, off by default): remove it or pass --k8s-version 1.16 or later", r.c.version)
	}
}

// intOrString reports whether the node s is an int-or-string: it says so
// (x-kubernetes-int-or-string), or, before 1.15, where beforeExtensions
// took the extension away, it has no type and its anyOf is exactly
// integer or string.
func (r *run) intOrString(s map[string]any) bool {
	if s["x-kubernetes-int-or-string"] == true {
		return true
	}
	if _, typed := s["type"]; typed || r.c.atLeast(1, 15) {
		return false
	}
	l, _ := s["anyOf"].([]any)
	return len(l) == 2 && reflect.DeepEqual(l, intOrString()["anyOf"])
}

// beforeExtensions writes a node as Kubernetes before 1.15 takes it: its
// CRD schemas have no x-kubernetes-int-or-string,
// -preserve-unknown-fields or -embedded-resource (all 1.15's), and
// validate --k8s-version refuses them there. Nor do those apiservers
// require a structural schema or prune: an int-or-string is its anyOf
// (integer or string) alone, a node that kept any value keeps it without
// the extension. The template's own such keys, and those of the files
// its $refs reach, are errors where they are written (checkTemplate,
// judgeNode); what is left here is the compiler's and the bundle's.
func beforeExtensions(s map[string]any) {
	delete(s, "x-kubernetes-int-or-string")
	delete(s, "x-kubernetes-preserve-unknown-fields")
	delete(s, "x-kubernetes-embedded-resource")
}

// dropExtensions removes the list and map type extensions keys from a
// node for a Kubernetes release that does not know them (its apiserver
// drops them unread), reporting the template's own; the bundle's go
// without a word. Map types came in 1.17, list types in 1.16.
func (r *run) dropExtensions(s map[string]any, sc scope, p *schemaPath, keys ...string) {
	for _, k := range keys {
		if _, ok := s[k]; !ok {
			continue
		}
		delete(s, k)
		if sc.inBundle() {
			continue
		}
		what := "no list or map types in CRD schemas (list types came in 1.16, map types in 1.17)"
		if r.c.atLeast(1, 16) {
			what = "no map types in CRD schemas (they came in 1.17; list types, in 1.16, are kept)"
		}
		r.warn(sc, p.join(k), fmt.Sprintf("dropped %s: Kubernetes %s has %s", k, r.c.version, what))
	}
}

// setOfObjects: the items of an x-kubernetes-list-type: set list are
// compared whole, so object items must be atomic maps, as the apiserver
// requires (Kubernetes' own swagger does not always say so).
func (r *run) setOfObjects(s map[string]any) {
	if s["x-kubernetes-list-type"] != "set" {
		return
	}
	items := asSchema(s["items"])
	if items == nil || items["type"] != "object" || items["x-kubernetes-map-type"] == "atomic" {
		return
	}
	if !r.c.atLeast(1, 17) {
		// 1.16 has no map types to make the objects atomic (1.16's bundle
		// marks EndpointSliceList's items a set): an atomic list, which
		// every apiserver takes, is what such a set can be there.
		s["x-kubernetes-list-type"] = "atomic"
		return
	}
	cloneSchemaAt(s, "items")["x-kubernetes-map-type"] = "atomic"
}

// minor returns the minor of the target Kubernetes version (1.minor), or
// -1 if it cannot be read.
func (c *Compiler) minor() int {
	if c.major != 1 {
		return -1
	}
	return c.minorN
}

// atLeast reports whether the target Kubernetes version is at least
// major.minor (an unreadable one, major -1, is older than any).
func (c *Compiler) atLeast(major, minor int) bool {
	return c.major > major || (c.major == major && c.minorN >= minor)
}

// parseVersion reads "MAJOR.MINOR" (the canonical form Options.Bundles
// returns); -1, -1 when it is not one. It runs once per Compiler: the
// structural pass asks for the version at every schema node.
func parseVersion(v string) (major, minor int) {
	a, b, ok := strings.Cut(v, ".")
	ma, err1 := strconv.Atoi(a)
	mi, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || ma < 0 || mi < 0 {
		return -1, -1
	}
	return ma, mi
}

// cloneAt replaces m[k], a mapping that may be finished (shared), with a
// copy, and returns the copy for the caller to change. For a mapping of
// schemas (properties); a schema is copied by cloneSchemaAt.
func cloneAt(m map[string]any, k string) map[string]any {
	c := maps.Clone(m[k].(map[string]any))
	m[k] = c
	return c
}

// cloneSchemaAt is cloneAt for a schema: the copy is unfinished, so the
// structural pass visits it (what the caller adds is judged like the rest).
func cloneSchemaAt(m map[string]any, k string) map[string]any {
	return unfinishedNode(cloneAt(m, k))
}

// asSchema returns v as a schema mapping; nil when it is not one.
func asSchema(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
