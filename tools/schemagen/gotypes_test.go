package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// goFixtureDefs are swagger definitions of the Go fixture under testdata/.
const goFixtureDefs = `{
  "io.k8s.api.core.v1.Responder": {"type": "object", "properties": {
    "owners": {"type": "array", "items": {"type": "string"}},
    "name": {"type": "string"},
    "priority": {"type": "integer", "format": "int32"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "gated": {"type": "array", "items": {"type": "string"}},
    "className": {"type": "string"},
    "uid": {"type": "string"},
    "protocol": {"type": "string"},
    "mode": {"type": "string"},
    "status": {"type": "string", "default": ""},
    "reason": {"type": "string"},
    "count": {"type": "integer", "format": "int32"},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "extension": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.runtime.RawExtension"}
  }},
  "io.k8s.api.core.v1.ResourceRequirements": {"type": "object"},
  "io.k8s.api.core.v1.Arbitrary": {"type": "object"},
  "io.k8s.api.core.v1.Alias": {},
  "io.k8s.apimachinery.pkg.runtime.RawExtension": {"type": "object"},
  "io.k8s.apimachinery.pkg.runtime.Unknown": {"type": "object"}
}`

func goFixture(t *testing.T, minor int) (map[string]map[string]any, *goReport) {
	t.Helper()
	var defs map[string]map[string]any
	d := json.NewDecoder(strings.NewReader(goFixtureDefs))
	d.UseNumber()
	if err := d.Decode(&defs); err != nil {
		t.Fatal(err)
	}
	rep, err := goAnnotate(fixtureGo(), minor, defs)
	if err != nil {
		t.Fatal(err)
	}
	return defs, rep
}

// TestGoObjects: property-less objects are classified by their Go declarations, and the
// definitions say it.
func TestGoObjects(t *testing.T) {
	defs, rep := goFixture(t, 37)
	want := map[string]string{
		"io.k8s.api.core.v1.ResourceRequirements":      "empty k8s.io/api@v0.99.3/core/v1/types.go:33 struct{}",
		"io.k8s.api.core.v1.Arbitrary":                 "arbitrary k8s.io/api@v0.99.3/core/v1/types.go:105 underlying type map[string]interface{}, not a struct",
		"io.k8s.api.core.v1.Alias":                     "empty k8s.io/api@v0.99.3/core/v1/types.go:108 struct{}",
		"io.k8s.apimachinery.pkg.runtime.RawExtension": "arbitrary k8s.io/apimachinery@v0.99.3/pkg/runtime/types.go:5 UnmarshalJSON of its own",
		"io.k8s.apimachinery.pkg.runtime.Unknown":      "arbitrary k8s.io/apimachinery@v0.99.3/pkg/runtime/types.go:12 OpenAPISchemaType of its own",
	}
	got := map[string]string{}
	for name, o := range rep.Objects {
		got[name] = o.Kind + " " + o.Decl + " " + o.Why
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("objects:\n got %v\nwant %v", got, want)
	}
	if defs["io.k8s.api.core.v1.Alias"]["type"] != "object" || defs["io.k8s.api.core.v1.ResourceRequirements"]["x-kubernetes-preserve-unknown-fields"] != nil {
		t.Errorf("empty structs: %v %v", defs["io.k8s.api.core.v1.Alias"], defs["io.k8s.api.core.v1.ResourceRequirements"])
	}
	if defs["io.k8s.apimachinery.pkg.runtime.RawExtension"]["x-kubernetes-preserve-unknown-fields"] != true {
		t.Errorf("RawExtension: %v", defs["io.k8s.apimachinery.pkg.runtime.RawExtension"])
	}
}

// TestGoObjectWithFields: a property-less definition whose struct has JSON fields is an
// error, never a guess.
func TestGoObjectWithFields(t *testing.T) {
	defs := map[string]map[string]any{"io.k8s.api.core.v1.ContainerPort": {"type": "object"}}
	_, err := goAnnotate(fixtureGo(), 37, defs)
	if err == nil || !strings.Contains(err.Error(), "core/v1/types.go:8: the swagger definition has no properties, but the struct has JSON fields containerPort, protocol") {
		t.Fatalf("err = %v", err)
	}
	defs = map[string]map[string]any{"io.k8s.api.core.v1.Missing": {"type": "object"}}
	if _, err := goAnnotate(fixtureGo(), 37, defs); err == nil || !strings.Contains(err.Error(), "declares no type Missing") {
		t.Fatalf("err = %v", err)
	}
}

// TestGoMarkers: each marker kind lands on its property; left-out kinds are counted.
func TestGoMarkers(t *testing.T) {
	defs, rep := goFixture(t, 37)
	props := defs["io.k8s.api.core.v1.Responder"]["properties"].(map[string]any)
	want := map[string]string{
		"owners":    `{"items":{"type":"string"},"maxItems":2,"minItems":1,"type":"array"}`,
		"name":      `{"format":"k8s-short-name","minLength":1,"type":"string"}`,
		"priority":  `{"format":"int32","maximum":100000,"minimum":0,"type":"integer"}`,
		"tags":      `{"items":{"maxLength":63,"type":"string"},"maxItems":10,"type":"array"}`,
		"gated":     `{"items":{"type":"string"},"type":"array"}`,
		"className": `{"type":"string"}`,
		"uid":       `{"type":"string"}`,
		"protocol":  `{"enum":["","SCTP","TCP","UDP"],"type":"string"}`,
		"mode":      `{"enum":["SCTP","TCP","UDP"],"type":"string"}`,
		"status":    `{"default":"","enum":["False","True","Unknown"],"type":"string"}`,
		"reason":    `{"maxLength":1024,"minLength":1,"pattern":"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$","type":"string"}`,
		"count":     `{"format":"int32","type":"integer"}`,
		"labels":    `{"additionalProperties":{"type":"string"},"type":"object"}`,
		"extension": `{"$ref":"#/definitions/io.k8s.apimachinery.pkg.runtime.RawExtension"}`,
	}
	for name, w := range want {
		got, err := bundlefmt.Encode(props[name])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != w {
			t.Errorf("%s:\n got %s\nwant %s", name, got, w)
		}
	}
	for _, reason := range []string{"alpha", "ifEnabled", "immutable", "format k8s-uuid (unknown to the apiserver of this minor)"} {
		if rep.Skipped[reason] != 1 {
			t.Errorf("skipped[%q] = %d, want 1 (all: %v)", reason, rep.Skipped[reason], rep.Skipped)
		}
	}
	if n := rep.Skipped[`format rejecting the unset value "" or 0 of an optional field`] + rep.Skipped[`minimum rejecting the unset value "" or 0 of an optional field`]; n != 2 {
		t.Errorf("zero-value rejections skipped: %d, want 2 (className, count): %v", n, rep.Skipped)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "labels: +k8s:maxItems=4: swagger type \"object\"; left out") {
		t.Errorf("notes: %v", rep.Notes)
	}

	// Before 1.34 the apiserver knows no k8s-short-name: the bundle does not carry it.
	defs, _ = goFixture(t, 33)
	if f := defs["io.k8s.api.core.v1.Responder"]["properties"].(map[string]any)["name"].(map[string]any)["format"]; f != nil {
		t.Errorf("1.33 name format = %v", f)
	}
}

func TestParseMarkers(t *testing.T) {
	skipped := map[string]int{}
	for in, want := range map[string]marker{
		`+k8s:beta(since: "1.37")=+k8s:format="k8s-short-name"`: {name: "format", value: "k8s-short-name"},
		`+k8s:eachVal=+k8s:maxLength=63`:                        {name: "maxLength", value: "63", each: true},
		`+k8s:beta(since: "1.37")=+k8s:eachVal=+k8s:minimum=1`:  {name: "minimum", value: "1", each: true},
	} {
		got, ok := parseK8sMarker(in, false, skipped)
		if !ok || got != want {
			t.Errorf("%s: got %+v %v, want %+v", in, got, ok, want)
		}
	}
	for _, in := range []string{`+k8s:alpha(since: "1.37")=+k8s:maxItems=3`, `+k8s:ifEnabled(G)=+k8s:maxItems=3`, `+k8s:subfield(name)=+k8s:format=k8s-long-name`, `+k8s:optional`, `+k8s:listType=map`, `+k8s:beta(since: "1.37"`} {
		if got, ok := parseK8sMarker(in, false, skipped); ok {
			t.Errorf("%s: got %+v", in, got)
		}
	}
}

// TestGoSelfMarshalling: an object whose Go type marshals itself is arbitrary JSON, whatever
// properties the swagger lists (runtime.RawExtension's "Raw" before 1.16).
func TestGoSelfMarshalling(t *testing.T) {
	defs := map[string]map[string]any{"io.k8s.apimachinery.pkg.runtime.RawExtension": {
		"type": "object", "required": []any{"Raw"},
		"properties": map[string]any{"Raw": map[string]any{"type": "string", "format": "byte"}},
	}}
	rep, err := goAnnotate(fixtureGo(), 14, defs)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := bundlefmt.Encode(defs["io.k8s.apimachinery.pkg.runtime.RawExtension"])
	if string(got) != `{"type":"object","x-kubernetes-preserve-unknown-fields":true}` {
		t.Errorf("RawExtension = %s", got)
	}
	o := rep.Objects["io.k8s.apimachinery.pkg.runtime.RawExtension"]
	if o.Kind != "arbitrary" || o.Why != "UnmarshalJSON of its own; the swagger's properties Raw are not its JSON" {
		t.Errorf("object = %+v", o)
	}
}
