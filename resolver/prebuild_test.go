package resolver

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
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

// TestPrebuiltIsStructural: the structural pass has nothing left to do on a definition a
// bundle stores structural. Every definition of the newest bundle and of the oldest
// Normalized one, compiled with and without descriptions, gives the same bytes and warnings
// when the whole pass runs over it again.
func TestPrebuiltIsStructural(t *testing.T) {
	versions := schemas.Versions()
	i := slices.Index(versions, "1.16")
	if i < 0 {
		t.Fatal("no 1.16 bundle")
	}
	for _, v := range []string{versions[i], versions[len(versions)-1]} {
		b, err := schemas.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		if !b.Normalized() {
			t.Fatalf("the %s bundle is not Normalized", v)
		}
		for _, remove := range []bool{false, true} {
			compile := func(renormalize bool) (string, string) {
				c, err := New(Options{KubeVersion: v, WorkDir: t.TempDir(), RemoveDescriptions: remove, Recursion: RecursionPreserve, Budget: 1 << 30})
				if err != nil {
					t.Fatal(err)
				}
				c.renormalize = renormalize
				out, warnings, _ := compileText(t, c, everyDefinition(b.Names(), ""))
				return out, warnings
			}
			fast, fastWarnings := compile(false)
			full, fullWarnings := compile(true)
			if fast != full || fastWarnings != fullWarnings {
				t.Errorf("Kubernetes %s (remove descriptions %v): the structural pass changes a prebuilt definition", v, remove)
			}
			if len(fast) < 1<<20 {
				t.Errorf("Kubernetes %s: only %d bytes compiled", v, len(fast))
			}
		}
	}
}

// TestLazyIsEager: definitions with entries are decoded no deeper than a
// template looks (lazy.go), without descriptions and (the newest minors)
// with them. Every definition of the newest bundle and of 1.16, each at
// the root of a spec, as the item of a list-map whose keys a pass must
// look up, inside an allOf beside a property of the template's own, under
// a v1beta1 CRD, with a patch of the metadata and with one reaching into
// entries (a list-map key's default and description), compiles to the
// same bytes, warnings, JSON size and object as when every definition is
// resolved in full.
func TestLazyIsEager(t *testing.T) {
	versions := schemas.Versions()
	for _, mode := range []struct {
		v       string
		remove  bool
		entries bool // the bundle stores entries for the mode (those with descriptions: the newest three minors)
	}{{"1.16", true, true}, {"1.16", false, false}, {versions[len(versions)-1], true, true}, {versions[len(versions)-1], false, true}, {versions[len(versions)-3], false, true}} {
		v, remove := mode.v, mode.remove
		b, err := schemas.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		template := everyDefinition(b.Names(),
			"          ports: {type: array, items: {$ref: io.k8s.api.core.v1.ContainerPort}, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [containerPort, protocol]}\n"+
				"          merged: {allOf: [{$ref: io.k8s.api.core.v1.PodSpec}, {properties: {extra: {type: string}}}]}\n"+
				"          own: {$ref: io.k8s.api.core.v1.ServiceSpec, properties: {extra: {type: integer}}}\n")
		compile := func(eager bool, template string, patch *Patch) (string, string, []int64, []map[string]any) {
			c, err := New(Options{KubeVersion: v, WorkDir: t.TempDir(), RemoveDescriptions: remove, Recursion: RecursionPreserve, Budget: 1 << 30, Patch: patch})
			if err != nil {
				t.Fatal(err)
			}
			if !eager && (c.lazy != nil) != mode.entries {
				t.Fatalf("Kubernetes %s, remove descriptions %v: lazy entries %v", v, remove, c.lazy != nil)
			}
			c.eager = eager
			out, warnings, res := compileText(t, c, template)
			if c.lazy != nil && !eager && !slices.ContainsFunc(slices.Collect(maps.Values(c.lazy.defs)), func(d *lazyDef) bool { return d != nil }) {
				t.Fatalf("Kubernetes %s, remove descriptions %v: no definition was read from its entries", v, remove)
			}
			var sizes []int64
			var objs []map[string]any
			for _, d := range res.Documents {
				sizes = append(sizes, d.JSONSize())
				objs = append(objs, d.Object())
			}
			return out, warnings, sizes, objs
		}
		v1 := template
		v1beta1 := strings.Replace(strings.Replace(v1, "apiextensions.k8s.io/v1\n", "apiextensions.k8s.io/v1beta1\n", 1),
			"    schema:\n      openAPIV3Schema:", "    schema:\n      openAPIV3Schema:", 1)
		patch, err := ParsePatch("patch.json", []byte(`[{"op":"add","path":"/metadata/labels","value":{"patched":"yes"}}]`))
		if err != nil {
			t.Fatal(err)
		}
		const protocol = "/spec/versions/0/schema/openAPIV3Schema/properties/own/properties/ports/items/properties/protocol"
		deep, err := ParsePatch("deep.json", []byte(`[{"op":"add","path":"`+protocol+`/default","value":"UDP"},{"op":"add","path":"`+protocol+`/description","value":"patched"}]`))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name     string
			template string
			patch    *Patch
		}{{"v1", v1, nil}, {"v1beta1", v1beta1, nil}, {"patched", v1, patch}, {"patched deep", v1, deep}} {
			lazyOut, lazyWarnings, lazySizes, lazyObjs := compile(false, c.template, c.patch)
			eagerOut, eagerWarnings, eagerSizes, eagerObjs := compile(true, c.template, c.patch)
			if lazyOut != eagerOut || lazyWarnings != eagerWarnings {
				t.Errorf("Kubernetes %s, remove descriptions %v, %s: lazy entries change the output or the warnings", v, remove, c.name)
			}
			if !slices.Equal(lazySizes, eagerSizes) || !reflect.DeepEqual(lazyObjs, eagerObjs) {
				t.Errorf("Kubernetes %s, remove descriptions %v, %s: lazy entries change the JSON size (%v, %v) or the object", v, remove, c.name, lazySizes, eagerSizes)
			}
			if len(lazyOut) < 1<<20 {
				t.Errorf("Kubernetes %s, %s: only %d bytes compiled", v, c.name, len(lazyOut))
			}
		}
	}
}

// TestLazyObjectsConcurrently: Document.Object resolves lazy entries in
// full, and stays safe to call from many goroutines at once (validation
// reads the objects of a build in parallel). Run with -race.
func TestLazyObjectsConcurrently(t *testing.T) {
	files, _ := filepath.Glob("../templates/dask*.yaml")
	// NAME.patch.yaml beside a template is its JSON patch, not a template.
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".patch.yaml") })
	if len(files) == 0 {
		t.Skip("no templates")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{WorkDir: wd, RemoveDescriptions: true})
	if err != nil {
		t.Fatal(err)
	}
	var docs []Document
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compile(f, src)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, res.Documents...)
	}
	objs := make([][]map[string]any, 4)
	var wg sync.WaitGroup
	for g := range objs {
		wg.Go(func() {
			for _, d := range docs {
				objs[g] = append(objs[g], d.Object())
			}
		})
	}
	wg.Wait()
	for g := 1; g < len(objs); g++ {
		if !reflect.DeepEqual(objs[g], objs[0]) {
			t.Fatalf("goroutine %d got other objects", g)
		}
	}
	if d := refsLeftIn(objs[0]); d != "" {
		t.Fatal(d)
	}
}

// refsLeftIn reports a value that is no plain JSON (a lazy entry left
// unresolved) in objs, or "".
func refsLeftIn(objs []map[string]any) string {
	var walk func(v any) string
	walk = func(v any) string {
		switch t := v.(type) {
		case map[string]any:
			for _, x := range t {
				if s := walk(x); s != "" {
					return s
				}
			}
		case []any:
			for _, x := range t {
				if s := walk(x); s != "" {
					return s
				}
			}
		case string, bool, nil, json.Number:
		default:
			return fmt.Sprintf("a %T in an object", v)
		}
		return ""
	}
	for _, o := range objs {
		if s := walk(o); s != "" {
			return s
		}
	}
	return ""
}

// everyDefinition is a template holding, beside the properties in extra
// (lines of YAML at the indentation of properties), each of names as a
// property of its own.
func everyDefinition(names []string, extra string) string {
	var src strings.Builder
	src.WriteString("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: things.example.com}\n" +
		"spec:\n  group: example.com\n  names: {kind: Thing, plural: things}\n  scope: Namespaced\n  versions:\n" +
		"  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n")
	src.WriteString(extra)
	for i, name := range names {
		fmt.Fprintf(&src, "          p%d: {$ref: %q}\n", i, name)
	}
	return src.String()
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
