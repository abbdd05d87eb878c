package crdfields

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestFieldTables: the field tables read from the bundles (fields.go)
// are the json fields of the apiserver's Go types, schemas (JSONSchemaProps)
// and their unions (unions) included, walked by reflection:
// v1 (from the newest minor) exactly, so a module bump that brings a field
// the newest bundle lacks fails here; v1beta1 (from 1.21, the last minor
// serving it) up to the fields the types gained or lost after 1.21, each
// listed, so a 1.21 apiserver's own fields are what a v1beta1 CRD may hold.
func TestFieldTables(t *testing.T) {
	for _, tc := range []struct {
		apiVersion string
		typ        reflect.Type
		since121   []string // what the Go types gained (+) or lost (-) after 1.21
	}{
		{apiextensionsV1, reflect.TypeFor[apiextensionsv1.CustomResourceDefinition](), nil},
		{apiextensionsV1beta1, reflect.TypeFor[apiextensionsv1beta1.CustomResourceDefinition](), []string{
			"+metadata.managedFields[].subresource", // 1.22
			"-metadata.clusterName",                 // dropped in 1.25
			"+spec.selectableFields",                // 1.30
			"+spec.versions[].selectableFields",     // 1.30
			"+status.conditions[].observedGeneration",
			"+status.observedGeneration",
			"+spec.validation.openAPIV3Schema.x-kubernetes-validations", // 1.23
		}},
	} {
		t.Run(tc.apiVersion, func(t *testing.T) {
			var diffs []string
			compareFields(&diffs, map[compared]bool{}, "", crdFields(tc.apiVersion), tc.typ)
			slices.Sort(diffs)
			want := slices.Clone(tc.since121)
			slices.Sort(want)
			if !slices.Equal(diffs, want) {
				t.Errorf("the table and the Go types differ at\n%s\nwant\n%s", strings.Join(diffs, "\n"), strings.Join(want, "\n"))
			}
		})
	}
	// ObjectMeta on its own, as the table names it.
	var diffs []string
	compareFields(&diffs, map[compared]bool{}, "metadata", crdFields(apiextensionsV1).fields["metadata"], reflect.TypeFor[metav1.ObjectMeta]())
	if len(diffs) > 0 {
		t.Errorf("ObjectMeta differs at %v", diffs)
	}
}

// TestV1beta1FieldsAre121s: a v1beta1 CRD is judged by 1.21's fields, the
// last minor serving it: selectableFields (1.30) is unknown there, and
// said to be a v1 field; clusterName (up to 1.24) is not; a v1 CRD's
// metadata.clusterName is not called a v1beta1 field.
func TestV1beta1FieldsAre121s(t *testing.T) {
	doc := map[string]any{
		"apiVersion": apiextensionsV1beta1, "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "x", "clusterName": "c"},
		"spec":     map[string]any{"group": "g", "versions": []any{map[string]any{"name": "v1", "selectableFields": []any{}}}},
	}
	var got []string
	for _, p := range BadFields(doc, apiextensionsV1beta1) {
		got = append(got, p.Pointer+": "+p.Message)
	}
	doc["apiVersion"] = apiextensionsV1
	delete(doc["spec"].(map[string]any), "versions")
	for _, p := range BadFields(doc, apiextensionsV1) {
		got = append(got, p.Pointer+": "+p.Message)
	}
	want := []string{
		`/spec/versions/0/selectableFields: unknown field "spec.versions[0].selectableFields": CustomResourceDefinitionVersion has no field "selectableFields" (that is an apiextensions.k8s.io/v1 field)`,
		`/metadata/clusterName: unknown field "metadata.clusterName": ObjectMeta has no field "clusterName"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

// compared is a node of a table held against a Go type: each once, as a
// schema holds itself.
type compared struct {
	spec *fieldSpec
	typ  reflect.Type
}

// compareFields appends to diffs where spec does not describe typ (a
// field at path): "+field" a field only typ has, "-field" one only the
// table has, a sentence for a field of another kind. Fields go in order,
// so a node met twice is reported at the same path every run.
func compareFields(diffs *[]string, seen map[compared]bool, path string, spec *fieldSpec, typ reflect.Type) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if spec == nil {
		*diffs = append(*diffs, "+"+path) // the type has it, the table not
		return
	}
	if seen[compared{spec, typ}] {
		return
	}
	seen[compared{spec, typ}] = true
	// A union marshals itself as its Schema (a mapping) or its other field.
	if _, isUnion := unions[typ.Name()]; isUnion && typ.Kind() == reflect.Struct {
		if spec.kind != unionField || typ.NumField() != 2 {
			*diffs = append(*diffs, fmt.Sprintf("%s: %s is a union of a schema and one other field, the table says kind %d", path, typ, spec.kind))
			return
		}
		for i := range 2 {
			if f := typ.Field(i); f.Name == "Schema" {
				compareFields(diffs, seen, path, spec.elem, f.Type)
			} else {
				compareFields(diffs, seen, path+"|", spec.or, f.Type)
			}
		}
		return
	}
	// Leaves: scalars, []byte (base64) and types with their own JSON
	// form (Time, FieldsV1, JSON).
	isLeaf := typ.Kind() != reflect.Struct && typ.Kind() != reflect.Slice && typ.Kind() != reflect.Map ||
		typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.Uint8 ||
		typ.Implements(jsonMarshaler) || reflect.PointerTo(typ).Implements(jsonMarshaler)
	switch {
	case isLeaf:
		if want := leafKind(typ); spec.kind != want {
			*diffs = append(*diffs, fmt.Sprintf("%s: %s is a leaf of kind %d, the table says kind %d", path, typ, want, spec.kind))
		}
	case typ.Kind() == reflect.Slice:
		if spec.kind != listField {
			*diffs = append(*diffs, fmt.Sprintf("%s: %s is a list, the table says kind %d", path, typ, spec.kind))
			return
		}
		compareFields(diffs, seen, path+"[]", spec.elem, typ.Elem())
	case typ.Kind() == reflect.Map:
		if spec.kind != mapField {
			*diffs = append(*diffs, fmt.Sprintf("%s: %s is a map, the table says kind %d", path, typ, spec.kind))
			return
		}
		compareFields(diffs, seen, path+"{}", spec.elem, typ.Elem())
	default:
		if spec.kind != objectField {
			*diffs = append(*diffs, fmt.Sprintf("%s: %s is a struct, the table says kind %d", path, typ, spec.kind))
			return
		}
		if spec.name != typ.Name() {
			*diffs = append(*diffs, fmt.Sprintf("%s: the table names %s, the type is %s", path, spec.name, typ.Name()))
		}
		fields := jsonFields(typ)
		for _, name := range slices.Sorted(maps.Keys(fields)) {
			compareFields(diffs, seen, joinField(path, name), spec.fields[name], fields[name])
		}
		for name := range spec.fields {
			if _, ok := fields[name]; !ok {
				*diffs = append(*diffs, "-"+joinField(path, name)) // the table has it, the type not
			}
		}
	}
}

// leafKind is the table's kind for a leaf of Go type typ: what
// encoding/json decodes into it.
func leafKind(typ reflect.Type) fieldKind {
	switch typ.Kind() {
	case reflect.String:
		return stringField
	case reflect.Bool:
		return boolField
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return intField
	case reflect.Slice: // []byte: base64 text
		return stringField
	}
	if typ == reflect.TypeFor[metav1.Time]() {
		return stringField // RFC 3339 text (or null)
	}
	return leafField // raw JSON, a float
}

// jsonFields returns the json field names of a struct, with inline
// (embedded) structs' fields merged in, as encoding/json sees them.
func jsonFields(typ reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && (name == "" || strings.Contains(","+opts+",", ",inline,")) {
			for n, ft := range jsonFields(f.Type) {
				out[n] = ft
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// TestUnknownFields: a misspelt field is found at its pointer with a
// suggestion, also inside lists and maps; known fields are not.
func TestUnknownFields(t *testing.T) {
	doc := map[string]any{
		"apiVersion": apiextensionsV1, "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "x", "labels": map[string]any{"scpoe": "fine: label names are free"}},
		"spec": map[string]any{
			"scpoe":    "Namespaced",
			"versions": []any{map[string]any{"name": "v1", "servd": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{"anything": "goes"}}}},
		},
	}
	got := BadFields(doc, apiextensionsV1)
	var ptrs []string
	for _, p := range got {
		ptrs = append(ptrs, p.Pointer)
	}
	if want := []string{"/spec/scpoe", "/spec/versions/0/servd"}; !slices.Equal(ptrs, want) {
		t.Fatalf("unknown fields at %v, want %v", ptrs, want)
	}
	if !strings.Contains(got[1].Message, `"spec.versions[0].servd"`) || !strings.Contains(got[1].Message, "did you mean served?") {
		t.Errorf("message: %s", got[1].Message)
	}
}

// TestFieldTypes: a value the apiserver could not decode into the CRD's Go
// types is found at its pointer; null, whole numbers and the right types
// are not.
func TestFieldTypes(t *testing.T) {
	doc := map[string]any{
		"apiVersion": apiextensionsV1, "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "x", "creationTimestamp": nil, "generation": json.Number("2"), "labels": map[string]any{"a": true}},
		"spec": map[string]any{
			"scope": "Namespaced", "preserveUnknownFields": false, "names": "widgets",
			"versions": []any{map[string]any{"name": "v1", "served": "on", "storage": true,
				"additionalPrinterColumns": []any{map[string]any{"name": "n", "priority": json.Number("1.5")}}}},
		},
	}
	got := BadFields(doc, apiextensionsV1)
	var ptrs []string
	for _, p := range got {
		ptrs = append(ptrs, p.Pointer+": "+p.Message)
	}
	want := []string{
		`/metadata/labels/a: field "metadata.labels.a" must be a string, not a boolean (quote the value)`,
		`/spec/names: field "spec.names" must be a mapping (CustomResourceDefinitionNames), not the string "widgets"`,
		`/spec/versions/0/additionalPrinterColumns/0/priority: field "spec.versions[0].additionalPrinterColumns[0].priority" must be an integer, not 1.5`,
		`/spec/versions/0/served: field "spec.versions[0].served" must be a boolean (true or false), not the string "on" (on is a string in YAML 1.2, which this tool reads; write true or false)`,
	}
	if !slices.Equal(ptrs, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(ptrs, "\n"), strings.Join(want, "\n"))
	}
}
