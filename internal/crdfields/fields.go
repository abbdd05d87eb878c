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
	"sync"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// The fields a CustomResourceDefinition may hold outside its schemas, by
// apiVersion: what the apiserver's strict decoding accepts (kubectl's
// default --validate=strict rejects any other). Read from the embedded
// bundles' definitions, the same the minor walk reads (minor.go): v1 from
// the newest minor, v1beta1 from fieldsV1beta1Minor, the last that serves
// it (see the package doc); TestFieldTables holds them against the Go types.

type fieldKind uint8

const (
	leafField   fieldKind = iota // a value not checked here (a schema, raw JSON)
	stringField                  // a string (also a timestamp, a UID, base64 bytes)
	boolField                    // true or false
	intField                     // an integer
	objectField                  // a Go struct: only its fields
	listField                    // a list of elem
	mapField                     // a map from names to elem
)

type fieldSpec struct {
	kind   fieldKind
	name   string // objectField: the Go type's name, for messages
	own    bool   // objectField: an apiextensions definition (whose fields differ by apiVersion), not a shared one (ObjectMeta)
	fields map[string]*fieldSpec
	elem   *fieldSpec
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

// fieldsV1beta1Minor is the minor whose bundle gives the v1beta1 table:
// the last that serves apiextensions.k8s.io/v1beta1, and so the newest a
// v1beta1 CRD may target.
const fieldsV1beta1Minor = "1.21"

// crdFields returns the field table of a CRD of apiVersion (v1 or
// v1beta1).
func crdFields(apiVersion string) *fieldSpec {
	if apiVersion == apiextensionsV1beta1 {
		return crdFieldTables().v1beta1
	}
	return crdFieldTables().v1
}

type fieldTables struct{ v1, v1beta1 *fieldSpec }

// crdFieldTables builds the tables once, on first use. The bundles are
// embedded and checked by package schemas' tests: one that cannot be
// read is a broken build, not an input error.
var crdFieldTables = sync.OnceValue(func() fieldTables {
	v1, err := bundleFields(schemas.Latest(), "v1")
	if err != nil {
		panic(err)
	}
	v1beta1, err := bundleFields(fieldsV1beta1Minor, "v1beta1")
	if err != nil {
		panic(err)
	}
	return fieldTables{v1: v1, v1beta1: v1beta1}
})

// bundleFields walks the CustomResourceDefinition of group (v1,
// v1beta1) in minor's bundle into a field table: each definition once,
// a schema (JSONSchemaProps and its unions) or raw JSON a leaf.
func bundleFields(minor, group string) (*fieldSpec, error) {
	b, err := schemas.Load(minor)
	if err != nil {
		return nil, err
	}
	done := map[string]*fieldSpec{}
	var def func(name string) (*fieldSpec, error)
	var prop func(p map[string]any) (*fieldSpec, error)
	def = func(name string) (*fieldSpec, error) {
		if f, ok := done[name]; ok {
			return f, nil
		}
		short := name[strings.LastIndex(name, ".")+1:]
		if strings.HasPrefix(name, DefsPrefix) && (strings.HasPrefix(short, "JSONSchemaProps") || short == "JSON") {
			return leaf, nil
		}
		d, err := readDefinition(b, name)
		if d == nil || err != nil {
			return nil, fmt.Errorf("Kubernetes %s: no apiextensions %s field table: %v", minor, group, cmp.Or(err, errors.New("no definition "+name)))
		}
		props, isObject := d["properties"].(map[string]any)
		if !isObject && d["type"] == "object" && d["x-kubernetes-preserve-unknown-fields"] != true {
			isObject = true // a struct with no fields (CustomResourceSubresourceStatus)
		}
		if !isObject {
			f, err := prop(d)
			done[name] = f
			return f, err
		}
		f := &fieldSpec{kind: objectField, name: short, own: strings.HasPrefix(name, DefsPrefix), fields: map[string]*fieldSpec{}}
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
	return def(DefsPrefix + group + ".CustomResourceDefinition")
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
func joinPointer(base, tok string) string {
	return base + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

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
