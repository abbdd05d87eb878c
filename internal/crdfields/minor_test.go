package crdfields

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// minorCase is one field of a CRD judged for one minor.
type minorCase struct {
	field      string // what the case writes (a definition's field)
	def        string // the apiextensions definition that declares it
	apiVersion string // apiextensions.k8s.io/...
	minor      string
	// want: "" (known and on by default), "absent" (not in the minor's
	// definition), "gated" (in it, behind a gate off by default), or
	// "apiVersion" (the minor does not serve apiVersion).
	want  string
	first string // the first minor with the field on by default, for absent and gated
}

// minorCRD returns a CRD of apiVersion that writes field where def holds it.
func minorCRD(apiVersion, def, field string) map[string]any {
	schema := map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object"}}}
	spec := schema["properties"].(map[string]any)["spec"].(map[string]any)
	version := map[string]any{"name": "v1", "served": true, "storage": true}
	crdSpec := map[string]any{"group": "example.com", "names": map[string]any{"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced"}
	if apiVersion == apiextensionsV1 {
		version["schema"] = map[string]any{"openAPIV3Schema": schema}
		crdSpec["versions"] = []any{version}
	} else {
		crdSpec["version"] = "v1"
		crdSpec["validation"] = map[string]any{"openAPIV3Schema": schema}
	}
	switch def {
	case "CustomResourceDefinitionSpec":
		crdSpec[field] = false
	case "CustomResourceDefinitionVersion":
		version[field] = []any{map[string]any{"jsonPath": ".spec.color"}}
		if field == "deprecated" {
			version[field] = true
		}
	case "JSONSchemaProps":
		spec[field] = true
		if field == "x-kubernetes-validations" {
			spec[field] = []any{map[string]any{"rule": "self.size > 0"}}
		}
	case "ValidationRule":
		spec["x-kubernetes-validations"] = []any{map[string]any{"rule": "self.size > 0", field: "x"}}
	}
	return map[string]any{"apiVersion": apiVersion, "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "widgets.example.com"}, "spec": crdSpec}
}

// TestCheckVerdicts: each (field, minor) pair gets the verdict of the
// minor's own bundle: a field its apiextensions definition lacks is
// absent, one it has behind a gate off by default (gatedFields) is gated,
// and each names the first minor with it on by default. The verdicts are
// written out, and checked against the bundle's definitions too.
func TestCheckVerdicts(t *testing.T) {
	v1, v1beta1 := apiextensionsV1, apiextensionsV1beta1
	cases := []minorCase{
		{"selectableFields", "CustomResourceDefinitionVersion", v1, "1.16", "absent", "1.31"},
		{"selectableFields", "CustomResourceDefinitionVersion", v1, "1.25", "absent", "1.31"},
		{"selectableFields", "CustomResourceDefinitionVersion", v1, "1.29", "absent", "1.31"},
		{"selectableFields", "CustomResourceDefinitionVersion", v1, "1.30", "gated", "1.31"},
		{"selectableFields", "CustomResourceDefinitionVersion", v1, "1.31", "", ""},
		{"x-kubernetes-validations", "JSONSchemaProps", v1, "1.22", "absent", "1.25"},
		{"x-kubernetes-validations", "JSONSchemaProps", v1, "1.23", "gated", "1.25"},
		{"x-kubernetes-validations", "JSONSchemaProps", v1, "1.24", "gated", "1.25"},
		{"x-kubernetes-validations", "JSONSchemaProps", v1, "1.25", "", ""},
		{"messageExpression", "ValidationRule", v1, "1.26", "absent", "1.27"},
		{"messageExpression", "ValidationRule", v1, "1.27", "", ""},
		{"reason", "ValidationRule", v1, "1.27", "absent", "1.28"},
		{"fieldPath", "ValidationRule", v1, "1.27", "absent", "1.28"},
		{"reason", "ValidationRule", v1, "1.28", "", ""},
		{"fieldPath", "ValidationRule", v1, "1.28", "", ""},
		{"optionalOldSelf", "ValidationRule", v1, "1.28", "absent", "1.30"},
		{"optionalOldSelf", "ValidationRule", v1, "1.29", "gated", "1.30"},
		{"optionalOldSelf", "ValidationRule", v1, "1.30", "", ""},
		{"deprecated", "CustomResourceDefinitionVersion", v1, "1.18", "absent", "1.19"},
		{"deprecated", "CustomResourceDefinitionVersion", v1, "1.19", "", ""},
		{"x-kubernetes-map-type", "JSONSchemaProps", v1, "1.16", "absent", "1.17"},
		{"x-kubernetes-map-type", "JSONSchemaProps", v1, "1.17", "", ""},
		{"preserveUnknownFields", "CustomResourceDefinitionSpec", v1beta1, "1.12", "absent", "1.15"},
		{"preserveUnknownFields", "CustomResourceDefinitionSpec", v1beta1, "1.14", "absent", "1.15"},
		{"preserveUnknownFields", "CustomResourceDefinitionSpec", v1beta1, "1.15", "", ""},
		{"default", "JSONSchemaProps", v1beta1, "1.12", "gated", "1.16"},
		{"default", "JSONSchemaProps", v1beta1, "1.15", "gated", "1.16"},
		{"default", "JSONSchemaProps", v1beta1, "1.16", "", ""},
		{"x-kubernetes-preserve-unknown-fields", "JSONSchemaProps", v1beta1, "1.14", "absent", "1.15"},
		{"x-kubernetes-int-or-string", "JSONSchemaProps", v1beta1, "1.13", "absent", "1.15"},
		{"x-kubernetes-preserve-unknown-fields", "JSONSchemaProps", v1beta1, "1.15", "", ""},
		{"x-kubernetes-list-type", "JSONSchemaProps", v1beta1, "1.15", "absent", "1.16"},
		{"selectableFields", "CustomResourceDefinitionVersion", v1, "1.15", "apiVersion", "1.16"},
		{"selectableFields", "CustomResourceDefinitionVersion", v1, "1.12", "apiVersion", "1.16"},
	}
	for _, tc := range cases {
		name := tc.field + "@" + tc.minor
		t.Run(name, func(t *testing.T) {
			b, err := schemas.Load(tc.minor)
			if err != nil {
				t.Fatal(err)
			}
			group := strings.TrimPrefix(tc.apiVersion, "apiextensions.k8s.io/")
			// The verdict written above is the bundle's, read raw here.
			def, err := readDefinition(b, DefsPrefix+group+"."+tc.def)
			if err != nil {
				t.Fatal(err)
			}
			props, _ := def["properties"].(map[string]any)
			_, has := props[tc.field]
			g, gated := gate(tc.def, tc.field)
			n := minorNumber(tc.minor)
			switch {
			case tc.want == "apiVersion" && def != nil:
				t.Fatalf("the %s bundle has %s.%s: it serves %s", tc.minor, group, tc.def, tc.apiVersion)
			case tc.want == "absent" && has:
				t.Fatalf("the %s bundle's %s has %s: not absent", tc.minor, tc.def, tc.field)
			case tc.want == "gated" && (!has || !gated || n >= g.on):
				t.Fatalf("%s.%s in %s: has %v, gate %v (on from 1.%d): not gated off", tc.def, tc.field, tc.minor, has, gated, g.on)
			case tc.want == "" && (!has || gated && n < g.on):
				t.Fatalf("%s.%s in %s: has %v: not known and on", tc.def, tc.field, tc.minor, has)
			}
			crd := minorCRD(tc.apiVersion, tc.def, tc.field)
			got, err := Check(crd, tc.minor)
			if err != nil {
				t.Fatal(err)
			}
			// Keeps (what diff's rules read) gives the same verdict
			// (resolver's TestKeptByMinor: what validate judges custom
			// resources with drops the field).
			if tc.want != "apiVersion" {
				keeps, first, _, err := Keeps(tc.minor, tc.def, tc.field)
				if err != nil || keeps != (tc.want == "") || first != tc.first {
					t.Errorf("Keeps = %v, %q, %v; want %v, %q", keeps, first, err, tc.want == "", tc.first)
				}
			}
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("got %+v, want nothing", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %+v, want one problem", got)
			}
			p := got[0]
			wantIn := map[string]string{
				"absent":     "has no field " + `"` + tc.field + `" in ` + tc.def,
				"gated":      "feature gate",
				"apiVersion": "serves only apiextensions.k8s.io/v1beta1",
			}[tc.want]
			if !strings.Contains(p.Message, wantIn) || !strings.Contains(p.Message, "pass --k8s-version "+tc.first+" or later") {
				t.Errorf("message %q: want %q and the first minor %s", p.Message, wantIn, tc.first)
			}
			if tc.want == "apiVersion" {
				if p.Pointer != "/apiVersion" {
					t.Errorf("pointer %s, want /apiVersion", p.Pointer)
				}
			} else if !strings.HasSuffix(p.Pointer, "/"+tc.field) || !strings.HasSuffix(p.Field, "."+tc.field) {
				t.Errorf("pointer %s, field %s: want them to end in %s", p.Pointer, p.Field, tc.field)
			}
		})
	}
}

// TestCheckRefusesV1beta1AfterItsRemoval: from 1.22 the apiserver
// serves CRDs only as apiextensions.k8s.io/v1 (a v1beta1 create is a 404,
// integration.TestMinorVerdictsAgreeWithRealAPIServers), so a v1beta1 CRD
// for 1.22+ is refused with the fix; 1.21 still serves it.
func TestCheckRefusesV1beta1AfterItsRemoval(t *testing.T) {
	for minor, want := range map[string]string{
		"1.21": "",
		"1.22": "Kubernetes 1.22 serves only apiextensions.k8s.io/v1 CRDs (v1beta1 was served up to 1.21): write the CRD as apiVersion: apiextensions.k8s.io/v1, or pass --k8s-version 1.21 or earlier",
		"1.29": "Kubernetes 1.29 serves only apiextensions.k8s.io/v1 CRDs (v1beta1 was served up to 1.21): write the CRD as apiVersion: apiextensions.k8s.io/v1, or pass --k8s-version 1.21 or earlier",
	} {
		got, err := Check(minorCRD(apiextensionsV1beta1, "", ""), minor)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == "" && len(got) != 0:
			t.Errorf("%s: got %+v, want nothing", minor, got)
		case want != "" && (len(got) != 1 || got[0].Pointer != "/apiVersion" || got[0].Message != want):
			t.Errorf("%s: got %+v, want one problem at /apiVersion: %s", minor, got, want)
		}
	}
}

// TestMinorWalkFollowsSchemas: the minor walk finds a field the minor
// lacks (x-kubernetes-validations for 1.22) in every schema a schema
// holds, through each union as its Go type decodes it (items as one
// schema or a list of them, additionalProperties and dependencies as a
// schema, not as a boolean or a list of names), and NodeProblems only in
// the node's own keys.
func TestMinorWalkFollowsSchemas(t *testing.T) {
	rules := func() map[string]any {
		return map[string]any{"x-kubernetes-validations": []any{map[string]any{"rule": "true"}}}
	}
	schema := rules()
	for k, v := range map[string]any{
		"type": "object", "additionalItems": false, "items": rules(), "not": rules(), "additionalProperties": rules(),
		"allOf":        []any{rules()},
		"dependencies": map[string]any{"d": rules(), "e": []any{"a", "b"}},
		"definitions":  map[string]any{"p": rules()}, "patternProperties": map[string]any{"p": rules()},
		"properties": map[string]any{"a": rules(), "b": map[string]any{"items": []any{rules(), rules()}}},
	} {
		schema[k] = v
	}
	crd := minorCRD(apiextensionsV1, "", "")
	crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"] = map[string]any{"openAPIV3Schema": schema}
	got, err := Check(crd, "1.22")
	if err != nil {
		t.Fatal(err)
	}
	var ptrs []string
	for _, p := range got {
		ptrs = append(ptrs, strings.TrimPrefix(p.Pointer, "/spec/versions/0/schema/openAPIV3Schema"))
	}
	want := []string{
		"/additionalProperties", "/allOf/0", "/definitions/p", "/dependencies/d", "/items", "/not",
		"/patternProperties/p", "/properties/a", "/properties/b/items/0", "/properties/b/items/1", "",
	}
	for i := range want {
		want[i] += "/x-kubernetes-validations"
	}
	if !slices.Equal(ptrs, want) {
		t.Errorf("Check found\n%s\nwant\n%s", strings.Join(ptrs, "\n"), strings.Join(want, "\n"))
	}
	b, err := schemas.Load("1.22")
	if err != nil {
		t.Fatal(err)
	}
	node := NodeProblems(schema, NewMinor("1.22", b), false)
	if len(node) != 1 || node[0].Pointer != "/x-kubernetes-validations" {
		t.Errorf("NodeProblems found %+v, want the node's own x-kubernetes-validations only", node)
	}
}

// TestMinorsAreShared: the embedded Minors and their field graphs are
// read by many walks at once and written by none once read (go test
// -race sees a write): Check, BadFields, Keeps and NodeProblems from
// several goroutines over the same minors, the first reading them.
func TestMinorsAreShared(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			minor := []string{"1.16", "1.22", "1.27", schemas.Latest()}[i%4]
			crd := minorCRD(apiextensionsV1, "ValidationRule", "reason")
			if _, err := Check(crd, minor); err != nil {
				t.Error(err)
			}
			BadFields(crd, apiextensionsV1)
			if _, _, _, err := Keeps(minor, "JSONSchemaProps", "default"); err != nil {
				t.Error(err)
			}
			m, err := embeddedMinor(minor)
			if err != nil {
				t.Error(err)
				return
			}
			NodeProblems(map[string]any{"x-kubernetes-validations": []any{map[string]any{"rule": "true", "reason": "x"}}}, m, false)
		})
	}
	wg.Wait()
}
