package crdfields

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// The fields a CustomResourceDefinition may hold, by apiVersion and minor:
// what the minor's strict decoding accepts (kubectl's default
// --validate=strict rejects any other). One walk (readFields) reads them
// from a bundle's definitions into a fieldSpec graph: BadFields judges by
// the newest minor's v1 and fieldsV1beta1Minor's v1beta1 (see the package
// doc), the minor walk (minor.go) by the target minor's; TestFieldTables
// holds them against the Go types.

type fieldKind uint8

const (
	leafField   fieldKind = iota // a value not checked here (raw JSON, a float)
	stringField                  // a string (also a timestamp, a UID, base64 bytes)
	boolField                    // true or false
	intField                     // an integer
	objectField                  // a Go struct: only its fields
	listField                    // a list of elem
	mapField                     // a map from names to elem
	unionField                   // a mapping is a schema (elem), any other value is an or
)

// fieldSpec is one node of a field graph, read only once built. A
// definition reached twice is one node, and JSONSchemaProps reaches
// itself, so a walk follows a value, never the graph alone.
type fieldSpec struct {
	kind   fieldKind
	name   string // objectField, unionField: the definition's short name (the Go type's), for messages and gates
	own    bool   // objectField: an apiextensions definition (whose fields differ by apiVersion), not a shared one (ObjectMeta)
	fields map[string]*fieldSpec
	elem   *fieldSpec
	or     *fieldSpec // unionField: what a value that is no mapping is
}

// The leaves: str, boolean and integer are what encoding/json decodes
// into a Go string, bool or integer type (null is accepted by all: it
// leaves the zero value), leaf is a value checked elsewhere.
var (
	leaf    = &fieldSpec{kind: leafField}
	str     = &fieldSpec{kind: stringField}
	boolean = &fieldSpec{kind: boolField}
	integer = &fieldSpec{kind: intField}
)

// unions are the apiextensions definitions that stand for a schema or
// another value, by short name, with that other value (a list with no elem
// is a list of schemas). Their Go types marshal themselves, so a bundle
// says no more of them than "any value"; TestFieldTables holds this
// against the Go types.
var unions = map[string]*fieldSpec{
	"JSONSchemaPropsOrBool":        boolean,
	"JSONSchemaPropsOrStringArray": {kind: listField, elem: str},
	"JSONSchemaPropsOrArray":       {kind: listField},
}

// isSchema reports whether f is a schema (JSONSchemaProps) or a union
// holding one: BadFields leaves them to the structural pass.
func (f *fieldSpec) isSchema() bool {
	return f.kind == unionField || f.own && f.name == "JSONSchemaProps"
}

// fieldsV1beta1Minor is the minor whose bundle gives the v1beta1 table:
// the last that serves apiextensions.k8s.io/v1beta1, and so the newest a
// v1beta1 CRD may target.
const fieldsV1beta1Minor = "1.21"

// crdFields returns the field table of a CRD of apiVersion (v1 or
// v1beta1), built once per process. The bundles are embedded and checked
// by package schemas' tests: one that cannot be read is a broken build,
// not an input error.
func crdFields(apiVersion string) *fieldSpec {
	minor, group := schemas.Latest(), "v1"
	if apiVersion == apiextensionsV1beta1 {
		minor, group = fieldsV1beta1Minor, "v1beta1"
	}
	t, err := embeddedMinors()[minor].table(group)
	if f := t[DefsPrefix+group+".CustomResourceDefinition"]; f != nil {
		return f
	}
	panic(fmt.Sprintf("Kubernetes %s: no apiextensions %s field table: %v", minor, group, err))
}

// readFields is the one walk over a bundle's apiextensions definitions:
// the CustomResourceDefinition of group (v1, v1beta1) in d and every
// definition it reaches, each read once, into fieldSpecs by definition
// name (nil when d has no such CRD).
func readFields(d Definitions, group string) (map[string]*fieldSpec, error) {
	root := DefsPrefix + group + ".CustomResourceDefinition"
	if d == nil || !d.Has(root) {
		return nil, nil
	}
	done := map[string]*fieldSpec{}
	var def func(name string) (*fieldSpec, error)
	var prop func(p map[string]any) (*fieldSpec, error)
	def = func(name string) (*fieldSpec, error) {
		if f, ok := done[name]; ok {
			return f, nil
		}
		short := name[strings.LastIndex(name, ".")+1:]
		own := strings.HasPrefix(name, DefsPrefix)
		if or, ok := unions[short]; own && ok {
			f := &fieldSpec{kind: unionField, name: short, or: or}
			done[name] = f
			schema, err := def(strings.TrimSuffix(name, short) + "JSONSchemaProps")
			if or.kind == listField && or.elem == nil {
				f.or = &fieldSpec{kind: listField, elem: schema}
			}
			f.elem = schema
			return f, err
		}
		dm, err := readDefinition(d, name)
		if dm == nil || err != nil {
			return nil, cmp.Or(err, errors.New("no definition "+name))
		}
		props, isObject := dm["properties"].(map[string]any)
		if !isObject && dm["type"] == "object" && dm["x-kubernetes-preserve-unknown-fields"] != true {
			isObject = true // a struct with no fields (CustomResourceSubresourceStatus)
		}
		if !isObject {
			f, err := prop(dm)
			done[name] = f
			return f, err
		}
		f := &fieldSpec{kind: objectField, name: short, own: own, fields: map[string]*fieldSpec{}}
		done[name] = f
		for _, k := range sortedKeys(props) {
			p, _ := props[k].(map[string]any)
			if f.fields[k], err = prop(p); err != nil {
				return nil, err
			}
		}
		return f, nil
	}
	prop = func(p map[string]any) (*fieldSpec, error) {
		if r, ok := p["$ref"].(string); ok {
			return def(strings.TrimPrefix(r, "#/definitions/"))
		}
		switch p["type"] {
		case "string":
			return str, nil
		case "boolean":
			return boolean, nil
		case "integer":
			return integer, nil
		case "array":
			items, _ := p["items"].(map[string]any)
			elem, err := prop(items)
			return &fieldSpec{kind: listField, elem: elem}, err
		case "object":
			if ap, ok := p["additionalProperties"].(map[string]any); ok {
				elem, err := prop(ap)
				return &fieldSpec{kind: mapField, elem: elem}, err
			}
		}
		return leaf, nil
	}
	if _, err := def(root); err != nil {
		return nil, err
	}
	return done, nil
}

// apiVersions of a CustomResourceDefinition.
const (
	apiextensionsV1      = "apiextensions.k8s.io/v1"
	apiextensionsV1beta1 = "apiextensions.k8s.io/v1beta1"
)

// BadFields lists the fields of the CRD doc (apiVersion v1 or v1beta1)
// that its Go types do not have, and the values the apiserver could not
// decode into its Go types (served: yes, a list where a mapping goes), in
// key order. extra names top-level keys to allow besides (a template's
// definitions).
func BadFields(doc map[string]any, apiVersion string, extra ...string) []Problem {
	var out []Problem
	otherVersion := apiextensionsV1beta1
	if apiVersion == apiextensionsV1beta1 {
		otherVersion = apiextensionsV1
	}
	// other walks the same place in the other apiVersion's table, to
	// point out a field spelt as that version spells it.
	var walk func(v any, f, other *fieldSpec, ptr, path string)
	walk = func(v any, f, other *fieldSpec, ptr, path string) {
		if f.isSchema() {
			return // judged by the structural pass
		}
		if msg := wrongType(v, f); msg != "" {
			out = append(out, Problem{Pointer: ptr, Field: path, Message: fmt.Sprintf("field %q %s", path, msg)})
			return
		}
		switch f.kind {
		case objectField:
			m, _ := v.(map[string]any)
			for _, k := range sortedKeys(m) {
				sub := joinField(path, k)
				child, known := f.fields[k]
				if !known && k == "$ref" {
					continue // reported as a $ref outside the schema (scanRefs)
				}
				if !known {
					if path == "" && slices.Contains(extra, k) {
						continue
					}
					hint := suggest.DidYouMean(k, slices.Sorted(maps.Keys(f.fields)))
					if other != nil && other.kind == objectField && other.own && other.fields[k] != nil {
						hint = fmt.Sprintf(" (that is an %s field)%s", otherVersion, hint)
					}
					out = append(out, Problem{Pointer: joinPointer(ptr, k), Field: sub, Message: fmt.Sprintf("unknown field %q: %s has no field %q%s", sub, f.name, k, hint)})
					continue
				}
				walk(m[k], child, other.field(k), joinPointer(ptr, k), sub)
			}
		case listField:
			l, _ := v.([]any)
			for i, x := range l {
				walk(x, f.elem, other.element(), joinPointer(ptr, strconv.Itoa(i)), fmt.Sprintf("%s[%d]", path, i))
			}
		case mapField:
			m, _ := v.(map[string]any)
			for _, k := range sortedKeys(m) {
				walk(m[k], f.elem, other.element(), joinPointer(ptr, k), joinField(path, k))
			}
		}
	}
	walk(doc, crdFields(apiVersion), crdFields(otherVersion), "", "")
	return out
}

// wrongType says why v cannot be decoded into a field described by f
// ("must be a boolean (true or false), not the string \"yes\""), or
// returns "" when it can. null fits every field, as encoding/json leaves
// the zero value.
func wrongType(v any, f *fieldSpec) string {
	if v == nil {
		return ""
	}
	var want, hint string
	switch f.kind {
	case leafField:
		return ""
	case stringField:
		if _, ok := v.(string); ok {
			return ""
		}
		want = "a string"
		if _, ok := v.(map[string]any); !ok {
			if _, ok := v.([]any); !ok {
				hint = " (quote the value)"
			}
		}
	case boolField:
		if _, ok := v.(bool); ok {
			return ""
		}
		want = "a boolean (true or false)"
		if s, ok := v.(string); ok && slices.Contains([]string{"yes", "no", "on", "off", "y", "n"}, strings.ToLower(s)) {
			hint = fmt.Sprintf(" (%s is a string in YAML 1.2, which this tool reads; write true or false)", s)
		} else if s == "true" || s == "false" {
			hint = " (remove the quotes)"
		}
	case intField:
		if n, ok := v.(json.Number); ok {
			if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
				return ""
			}
			return fmt.Sprintf("must be an integer, not %s", n)
		}
		want = "an integer"
		if s, ok := v.(string); ok {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				hint = " (remove the quotes)"
			}
		}
	case objectField:
		if _, ok := v.(map[string]any); ok {
			return ""
		}
		want = "a mapping (" + f.name + ")"
	case listField:
		if _, ok := v.([]any); ok {
			return ""
		}
		want = "a list"
	case mapField:
		if _, ok := v.(map[string]any); ok {
			return ""
		}
		want = "a mapping"
	}
	found := DescribeValue(v)
	if s, ok := v.(string); ok {
		found = fmt.Sprintf("the string %q", s)
	} else if n, ok := v.(json.Number); ok {
		found = "the number " + string(n)
	}
	return fmt.Sprintf("must be %s, not %s%s", want, found, hint)
}

// field and element step through a table that may be nil.
func (f *fieldSpec) field(k string) *fieldSpec {
	if f == nil || f.kind != objectField {
		return nil
	}
	return f.fields[k]
}

func (f *fieldSpec) element() *fieldSpec {
	if f == nil || (f.kind != listField && f.kind != mapField) {
		return nil
	}
	return f.elem
}

// joinField extends a field path as the apiserver writes it
// (spec.versions[0].name).
func joinField(path, k string) string {
	if path == "" {
		return k
	}
	if strings.ContainsAny(k, ".[]") {
		return fmt.Sprintf("%s[%q]", path, k)
	}
	return path + "." + k
}

// sortedKeys returns m's keys in order: every walk here goes in key order.
func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// joinPointer appends the reference token tok to the JSON pointer base,
// escaped (RFC 6901).
func joinPointer(base, tok string) string { return base + "/" + docread.EscapePointerToken(tok) }

// DescribeValue names the kind of a decoded value in messages ("a
// mapping", "a list", "null"...).
func DescribeValue(v any) string {
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
