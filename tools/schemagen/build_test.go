package main

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

const fixtureSwagger = `{
  "swagger": "2.0",
  "definitions": {
    "io.k8s.api.core.v1.ContainerPort": {
      "properties": {
        "containerPort": {"type": "integer", "format": "int32"},
        "protocol": {"type": "string", "description": "Defaults to \"TCP\" <here> & there."}
      },
      "required": ["containerPort"],
      "type": "object"
    },
    "io.k8s.api.core.v1.Container": {
      "properties": {
        "ports": {"items": {"$ref": "#/definitions/io.k8s.api.core.v1.ContainerPort"}, "type": "array"},
        "resources": {"$ref": "#/definitions/io.k8s.api.core.v1.ResourceRequirements"},
        "stdin": {"type": "boolean", "default": true},
        "tty": {"type": "string"},
        "big": {"type": "integer", "maximum": 18446744073709551615}
      },
      "type": "object"
    },
    "io.k8s.api.core.v1.ResourceRequirements": {"type": "object"}
  }
}`

const fixtureV3 = `{
  "openapi": "3.0.0",
  "components": {"schemas": {
    "io.k8s.api.core.v1.ContainerPort": {
      "properties": {
        "containerPort": {"type": "integer", "format": "int32", "default": 0},
        "protocol": {"type": "string", "default": "TCP"}
      },
      "type": "object"
    },
    "io.k8s.api.core.v1.Container": {
      "properties": {
        "ports": {"items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ContainerPort"}], "default": {}}, "type": "array"},
        "resources": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ResourceRequirements"}], "default": {}},
        "stdin": {"type": "boolean", "default": false},
        "tty": {"type": "boolean", "default": false}
      },
      "type": "object"
    }
  }}
}`

func fixtureRelease() *release {
	return &release{
		Version: "v1.99.3",
		Swagger: []byte(fixtureSwagger),
		V3:      map[string][]byte{"api/openapi-spec/v3/api__v1_openapi.json": []byte(fixtureV3)},
		Go:      fixtureGo(),
	}
}

// fixtureGo is the Go source under testdata/, as two modules.
func fixtureGo() *goSource {
	return newGoSource([]goModule{
		{Path: "k8s.io/api", Version: "v0.99.3", Sum: "h1:api", Dir: "testdata/k8s.io/api"},
		{Path: "k8s.io/apimachinery", Version: "v0.99.3", Sum: "h1:apimachinery", Dir: "testdata/k8s.io/apimachinery"},
	})
}

// readBundle returns what a bundle holds: "manifest.json", and "definitions/NAME" for each
// definition (its structure, and after a newline its descriptions, if any).
func readBundle(t *testing.T, data []byte) map[string]string {
	t.Helper()
	rd, err := bundlefmt.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.Check(); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"manifest.json": string(rd.Manifest)}
	for i, name := range rd.Names() {
		def, err := rd.AppendStructure(nil, i)
		if err != nil {
			t.Fatal(err)
		}
		if descs, err := rd.AppendDescriptions(nil, i); err != nil {
			t.Fatal(err)
		} else if descs != nil {
			def = append(append(def, '\n'), descs...)
		}
		out["definitions/"+name] = string(def)
	}
	return out
}

func TestBuildDeterministic(t *testing.T) {
	first, st, err := build(fixtureRelease(), nil)
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := build(fixtureRelease(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("building the same release twice gave different bytes")
	}
	if st.Definitions != 3 || st.Defaults != 4 {
		t.Errorf("stats = %+v, want 3 definitions and 4 defaults", st)
	}
}

// TestBuildRoundTrip: what a bundle stores gives back, byte for byte, every definition the
// generator made of the release (the swagger's, with its additions), and rebuilding from
// them (repack) writes the same bundle.
func TestBuildRoundTrip(t *testing.T) {
	r := fixtureRelease()
	r.Swagger = []byte(strings.Replace(fixtureSwagger, `"io.k8s.api.core.v1.ResourceRequirements": {"type": "object"}`,
		`"io.k8s.api.core.v1.ResourceRequirements": {"type": "object"},
		"io.k8s.api.core.v1.Tricky": {"description": "Root.", "type": "object", "properties": {
			"description": {"type": "string", "description": "A property named description."},
			"a/b~c": {"type": "array", "items": {"type": "object", "description": "Items.", "default": {"description": "data, not a description"}}},
			"any": {"allOf": [{"description": "First."}, {"type": "string"}], "x-kubernetes-validations": [{"rule": "true", "message": "m", "description": "kept"}]},
			"map": {"type": "object", "additionalProperties": {"type": "string", "description": "Values."}, "example": {"description": 1}}}}`, 1))
	_, want, _, err := definitions(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := build(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := bundlefmt.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := publishedDefinitions(rd)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != 4 {
		t.Fatalf("%d definitions back of %d", len(got), len(want))
	}
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s:\n got %s\nwant %s", name, got[name], w)
		}
	}
	i, _ := rd.Find("io.k8s.api.core.v1.Tricky")
	structure, _ := rd.Structure(i)
	descs, _ := rd.Descriptions(i)
	for _, kept := range []string{`"data, not a description"`, `"description":"kept"`, `"description":1`, `"description":{"type":"string"}`} {
		if !bytes.Contains(structure, []byte(kept)) {
			t.Errorf("the structure lacks %s: %s", kept, structure)
		}
	}
	if wantDescs := `{"":"Root.","/properties/any/allOf/0":"First.","/properties/a~1b~0c/items":"Items.","/properties/description":"A property named description.","/properties/map/additionalProperties":"Values."}`; string(descs) != wantDescs {
		t.Errorf("descriptions %s, want %s", descs, wantDescs)
	}
}

func TestBuildDefaults(t *testing.T) {
	data, _, err := build(fixtureRelease(), nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := readBundle(t, data)
	for name, want := range map[string]string{
		// Stored as published, defaults copied; descriptions apart, keeping < > &; numbers
		// verbatim. The Go type's +k8s:enum (with "", the unset value of an optional field).
		"definitions/io.k8s.api.core.v1.ContainerPort": `{"properties":{"containerPort":{"default":0,"format":"int32","type":"integer"},"protocol":{"default":"TCP","enum":["","SCTP","TCP","UDP"],"type":"string"}},"required":["containerPort"],"type":"object"}` + "\n" +
			`{"/properties/protocol":"Defaults to \"TCP\" <here> & there."}`,
		// items and allOf-wrapped $refs get their defaults; an existing default stays; a
		// property whose v3 type differs gets none.
		"definitions/io.k8s.api.core.v1.Container": `{"properties":{"big":{"maximum":18446744073709551615,"type":"integer"},"ports":{"items":{"$ref":"#/definitions/io.k8s.api.core.v1.ContainerPort","default":{}},"type":"array"},"resources":{"$ref":"#/definitions/io.k8s.api.core.v1.ResourceRequirements","default":{}},"stdin":{"default":true,"type":"boolean"},"tty":{"type":"string"}},"type":"object"}`,
		// An empty struct stays a plain object.
		"definitions/io.k8s.api.core.v1.ResourceRequirements": `{"type":"object"}`,
	} {
		if got := entries[name]; got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	var m bundlefmt.Manifest
	if err := json.Unmarshal([]byte(entries["manifest.json"]), &m); err != nil {
		t.Fatal(err)
	}
	if m.Format != bundlefmt.FormatVersion || m.KubernetesVersion != "v1.99.3" || len(m.SHA256) != 2 || m.DefaultsFrom != "" {
		t.Errorf("manifest = %+v", m)
	}
	wantObjects := map[string]bundlefmt.Object{
		"io.k8s.api.core.v1.ResourceRequirements": {Kind: bundlefmt.ObjectEmpty, Decl: "k8s.io/api@v0.99.3/core/v1/types.go:33", Why: "struct{}"},
	}
	if !reflect.DeepEqual(m.Objects, wantObjects) || !reflect.DeepEqual(m.GoModules, map[string]string{"k8s.io/api@v0.99.3": "h1:api", "k8s.io/apimachinery@v0.99.3": "h1:apimachinery"}) {
		t.Errorf("manifest objects %+v, modules %v", m.Objects, m.GoModules)
	}
	if !reflect.DeepEqual(m.Constraints, map[string]int{"enum": 1}) {
		t.Errorf("manifest constraints %v", m.Constraints)
	}
}

func TestBuildBorrowedDefaults(t *testing.T) {
	schemas, _, err := v3Schemas(map[string][]byte{"x.json": []byte(fixtureV3)})
	if err != nil {
		t.Fatal(err)
	}
	r := fixtureRelease()
	r.V3 = nil
	donor := &defaultsDonor{Version: "v1.23.17", Schemas: schemas, SHA256: map[string]string{"k8s.io/kubernetes@v1.23.17/x.json": "00"}}
	data, st, err := build(r, donor)
	if err != nil {
		t.Fatal(err)
	}
	entries := readBundle(t, data)
	if !strings.Contains(entries["definitions/io.k8s.api.core.v1.ContainerPort"], `"default":"TCP"`) || st.Defaults != 4 {
		t.Errorf("borrowed defaults missing: %+v %s", st, entries["definitions/io.k8s.api.core.v1.ContainerPort"])
	}
	if !strings.Contains(entries["manifest.json"], `"defaultsFrom": "v1.23.17"`) || !strings.Contains(entries["manifest.json"], "k8s.io/kubernetes@v1.23.17/x.json") {
		t.Errorf("manifest does not record the borrowed defaults:\n%s", entries["manifest.json"])
	}
}

func TestParse(t *testing.T) {
	if m, p, err := parseRelease("v1.30.14"); err != nil || m != 30 || p != 14 {
		t.Errorf("parseRelease = %d %d %v", m, p, err)
	}
	for _, bad := range []string{"1.30.14", "v1.30", "v1.38.0-beta.0", "v2.1.0"} {
		if _, _, err := parseRelease(bad); err == nil {
			t.Errorf("parseRelease(%q) succeeded", bad)
		}
	}
	if m, err := parseMinorArg("1.38"); err != nil || m != 38 {
		t.Errorf("parseMinorArg = %d %v", m, err)
	}
}

// TestEmbedListUpToDate: schemas/bundles.go embeds exactly the bundles in schemas/data, as
// the generator writes it.
func TestEmbedListUpToDate(t *testing.T) {
	minors, err := bundleMinors("../../schemas/data")
	if err != nil {
		t.Fatal(err)
	}
	want, err := embedListSource(minors, "data")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../schemas/bundles.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("schemas/bundles.go is not what the generator writes for schemas/data (%d minors); run make schemas", len(minors))
	}
}
