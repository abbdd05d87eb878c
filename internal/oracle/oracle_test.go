package oracle

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

const widget = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.example.com"},
"spec":{"group":"example.com","names":{"kind":"Widget","plural":"widgets"},"scope":"Namespaced",
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
"properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","default":3}}}}}}}]}}`

// TestDecodeJSONIsStrict: DecodeJSON refuses what the apiserver's strict
// field validation refuses, naming each field with its path.
func TestDecodeJSONIsStrict(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		want           []string // every one in the error
	}{
		{"unknown field", `"scope":`, `"scoop":1,"scope":`, []string{`unknown field "spec.scoop"`}},
		{"unknown nested field", `"served":true`, `"served":true,"servd":true`, []string{`unknown field "spec.versions[0].servd"`}},
		{"unknown schema field", `"type":"integer"`, `"type":"integer","maximun":3`, []string{`unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.maximun"`}},
		{"two unknown fields", `"scope":`, `"a":1,"b":2,"scope":`, []string{`unknown field "spec.a"`, `unknown field "spec.b"`}},
		{"duplicate field", `"scope":`, `"scope":"Cluster","scope":`, []string{`duplicate field "spec.scope"`}},
		{"duplicate property", `"properties":{"size"`, `"properties":{"size":{"type":"string"},"size"`, []string{`duplicate field "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size"`}},
		{"field names are case-sensitive", `"scope":`, `"Scope":`, []string{`unknown field "spec.Scope"`}},
		{"wrong type", `"served":true`, `"served":"yes"`, []string{"cannot unmarshal string", "served"}},
		{"other apiVersion", `"apiextensions.k8s.io/v1"`, `"apps/v1"`, []string{"apiVersion apps/v1 is not apiextensions.k8s.io/v1 or v1beta1"}},
		{"no apiVersion", `"apiVersion":"apiextensions.k8s.io/v1",`, ``, []string{"apiVersion <nil> is not apiextensions.k8s.io/v1 or v1beta1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(widget, tc.from, tc.to, 1)
			if src == widget {
				t.Fatalf("%q not in the CRD", tc.from)
			}
			_, err := DecodeJSON([]byte(src))
			if err == nil {
				t.Fatal("decoded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			var strict *StrictError
			if isStrict := strings.Contains(tc.want[0], " field "); isStrict != errors.As(err, &strict) {
				t.Errorf("error %v (%T): a StrictError: %v, want %v", err, err, !isStrict, isStrict)
			}
		})
	}
	crd, err := DecodeJSON([]byte(widget))
	if err != nil {
		t.Fatal(err)
	}
	if crd.Kind != "CustomResourceDefinition" || crd.APIVersion != "apiextensions.k8s.io/v1" || crd.Internal.Name != "widgets.example.com" {
		t.Errorf("decoded %q %q %q", crd.APIVersion, crd.Kind, crd.Internal.Name)
	}
}

// TestDecodeJSONAsTheMapRoundTrip: decoding a CRD's JSON once gives the
// internal CRD that the way of before gave (decode into a map, encode the
// map, decode that strictly into the v1 type), for each of the repository's
// compiled CRDs, with and without Kubernetes' descriptions.
func TestDecodeJSONAsTheMapRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../../dist/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no dist files: %v", err)
	}
	more, _ := filepath.Glob("../../operator/crds/*.yaml")
	n := 0
	for _, f := range append(files, more...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte("\nkind: CustomResourceDefinition\n")) {
			continue // kustomization.yaml
		}
		n++
		raw, err := yaml.YAMLToJSON(src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeJSON(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if want := roundTrip(t, raw); !reflect.DeepEqual(got.Internal, want) {
			t.Errorf("%s: DecodeJSON differs from the map round trip", f)
		}
	}
	if n < 8 {
		t.Errorf("compared %d CRDs, want the 8 of dist/ and operator/crds/", n)
	}
}

func roundTrip(t *testing.T, raw []byte) *apiextensions.CustomResourceDefinition {
	t.Helper()
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var v1 apiextensionsv1.CustomResourceDefinition
	d = json.NewDecoder(bytes.NewReader(again))
	d.DisallowUnknownFields()
	if err := d.Decode(&v1); err != nil {
		t.Fatal(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, internal, nil); err != nil {
		t.Fatal(err)
	}
	return internal
}

// TestDecodeJSONv1beta1: a v1beta1 CRD decodes as one, strictly too.
func TestDecodeJSONv1beta1(t *testing.T) {
	src := `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
"spec":{"group":"example.com","version":"v1","names":{"kind":"Widget","plural":"widgets"},"scope":"Namespaced",
"validation":{"openAPIV3Schema":{"type":"object"}}}}`
	crd, err := DecodeJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if crd.APIVersion != "apiextensions.k8s.io/v1beta1" || crd.Internal.Spec.Validation == nil {
		t.Errorf("decoded %q, validation %v", crd.APIVersion, crd.Internal.Spec.Validation)
	}
	if errs := crd.Validate(t.Context()); len(errs) > 0 {
		t.Errorf("invalid: %v", errs)
	}
	_, err = DecodeJSON([]byte(strings.Replace(src, `"version":"v1"`, `"version":"v1","versoin":"v1"`, 1)))
	var strict *StrictError
	if !errors.As(err, &strict) || !strings.Contains(err.Error(), `unknown field "spec.versoin"`) {
		t.Errorf("err = %v, want an unknown field spec.versoin", err)
	}
}
