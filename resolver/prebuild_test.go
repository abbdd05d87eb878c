package resolver

import (
	"errors"
	"strings"
	"testing"
)

func TestPrebuild(t *testing.T) {
	for _, c := range []struct {
		name, raw         string
		structure, descrs string
	}{{
		name: "io.k8s.api.core.v1.Thing",
		raw: `{"description":"A thing <b> & more.","type":"object","x-kubernetes-group-version-kind":[{"kind":"Thing"}],
			"properties":{
				"ports":{"type":"array","items":{"$ref":"#/definitions/io.k8s.api.core.v1.ContainerPort","default":{}},"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["containerPort","protocol"],"x-kubernetes-patch-strategy":"merge","description":"Ports."},
				"ref":{"$ref":"#/definitions/io.k8s.api.core.v1.ObjectReference","x-kubernetes-map-type":"granular","description":"A ref."},
				"port":{"type":"string","format":"int-or-string"},
				"when":{"type":"string","format":"date-time"},
				"odd":{"type":"string","format":"no-such-format"},
				"flag":{"type":"boolean","default":true}
			}}`,
		// Extensions a CRD cannot hold and unknown formats dropped, int-or-string made
		// structural, defaults set aside, list-map keys left for the compile (the items
		// are a $ref), a $ref site kept with what it adds; descriptions apart.
		structure: `{"properties":{"flag":{"type":"boolean","x-k8s-crd-resolver-default":true},"odd":{"type":"string"},"port":{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true},"ports":{"items":{"$ref":"#/definitions/io.k8s.api.core.v1.ContainerPort","x-k8s-crd-resolver-default":{}},"type":"array","x-kubernetes-list-map-keys":["containerPort","protocol"],"x-kubernetes-list-type":"map"},"ref":{"$ref":"#/definitions/io.k8s.api.core.v1.ObjectReference","x-kubernetes-map-type":"granular"},"when":{"format":"date-time","type":"string"}},"type":"object"}`,
		descrs:    `{"":"A thing <b> & more.","/properties/ports":"Ports.","/properties/ref":"A ref."}`,
	}, {
		name:      "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
		raw:       `{"description":"Int or string.","type":"string","format":"int-or-string"}`,
		structure: `{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}`,
		descrs:    `{"":"Int or string."}`,
	}} {
		structure, descrs, err := Prebuild("1.37", c.name, []byte(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(structure) != c.structure || string(descrs) != c.descrs {
			t.Errorf("%s:\n got %s\n     %s\nwant %s\n     %s", c.name, structure, descrs, c.structure, c.descrs)
		}
	}
	// What the structural pass would have to say something about is refused: a compile
	// would have raised it at every use.
	for raw, want := range map[string]string{
		`{"properties":{"x":{"description":"untyped"}}}`:                "no type: any value is kept",
		`{"type":"object","additionalProperties":false}`:                "dropped additionalProperties: false",
		`{"type":"string","x-kubernetes-list-type":"atomic","type2":1}`: "dropped type2",
	} {
		if _, _, err := Prebuild("1.37", "a.B", []byte(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Prebuild(%s) = %v, want an error saying %q", raw, err, want)
		}
	}
	if _, _, err := Prebuild("1.15", "a.B", []byte(`{"type":"object"}`)); !errors.Is(err, ErrInput) {
		t.Errorf("Prebuild for 1.15 = %v, want ErrInput", err)
	}
}

// compileText compiles template with c and returns the YAML and the
// warnings, one a line.
func compileText(t *testing.T, c *Compiler, template string) (string, string, *Result) {
	t.Helper()
	res, err := c.Compile("thing.yaml", []byte(template))
	if err != nil {
		t.Fatal(err)
	}
	out, err := res.YAML()
	if err != nil {
		t.Fatal(err)
	}
	var ws []string
	for _, w := range res.Warnings {
		ws = append(ws, w.String())
	}
	return string(out), strings.Join(ws, "\n"), res
}
