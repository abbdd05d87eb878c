package resolver_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// fuzzBudget is the compile budget of the fuzz targets: small enough that
// blow-ups the fuzzer finds cost little, large enough for a PodSpec.
const fuzzBudget = 2 << 20

// FuzzCompile feeds arbitrary templates (seeded with every golden case) to
// the compiler and checks five properties: no panic; no $ref keyword in the
// output; the output stays within the budget (its compact JSON and its
// number of values), so the work per input is bounded; compiling the
// output again gives the same bytes (the output is a fixed point); and two
// compiles give byte-identical output.
//
//	go test ./resolver -run '^$' -fuzz FuzzCompile -fuzztime 1m
func FuzzCompile(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/compile/*/template.yaml")
	for _, s := range seeds {
		if src, err := os.ReadFile(s); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte(fidelityTemplate))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		compile := func(src []byte) ([]byte, error) {
			c, err := resolver.New(resolver.Options{KubeVersion: "1.30", WorkDir: dir, Root: dir, Recursion: resolver.RecursionPreserve, Budget: fuzzBudget})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Compile("template.yaml", src)
			if err != nil {
				var list resolver.ErrorList
				if !errors.As(err, &list) {
					t.Fatalf("not an ErrorList: %T %v", err, err)
				}
				return nil, err
			}
			var size, values int
			for _, d := range res.Documents {
				obj := d.Object()
				if left := refsLeft(obj, ""); len(left) > 0 {
					t.Fatalf("$ref left in the output at %v", left)
				}
				raw, err := json.Marshal(obj)
				if err != nil {
					t.Fatalf("the output is no JSON: %v", err)
				}
				size += len(raw)
				values += countValues(obj)
			}
			if size > fuzzBudget || values > fuzzBudget/32 {
				t.Fatalf("the output is %d bytes of JSON and %d values, over the %d-byte budget", size, values, fuzzBudget)
			}
			return res.YAML()
		}
		out, err := compile(src)
		if err != nil {
			return // bad input is fine; a panic is not
		}
		again, err := compile(src)
		if err != nil || !bytes.Equal(out, again) {
			t.Fatalf("not deterministic: %v", err)
		}
		fixed, err := compile(out)
		if err != nil {
			t.Fatalf("the output does not compile again: %v\n%s", err, out)
		}
		if !bytes.Equal(out, fixed) {
			t.Fatalf("compiling the output changes it:\n--- first\n%s\n--- second\n%s", out, fixed)
		}
	})
}

func countValues(v any) int {
	n := 1
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			n += countValues(x)
		}
	case []any:
		for _, x := range t {
			n += countValues(x)
		}
	}
	return n
}

// patchTarget is the CRD FuzzParsePatch applies patches to.
var patchTarget = crdTemplate(`spec: {$ref: io.k8s.api.core.v1.ServiceSpec}`)

// FuzzParsePatch feeds arbitrary patches (seeded with the golden cases'
// patches) to ParsePatch and applies those that parse, as a Compile
// does: no panic; every error is positioned and wraps ErrInput (parsing),
// ErrPatch or ErrBudget (applying); the result stays within the budget.
//
//	go test ./resolver -run '^$' -fuzz FuzzParsePatch -fuzztime 1m
func FuzzParsePatch(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/compile/*/*.patch.*")
	for _, s := range seeds {
		if src, err := os.ReadFile(s); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte(`[{"op": "copy", "from": "/spec", "path": "/spec/x"}, {"op": "move", "from": "/spec/x", "path": "/metadata/x"}]`))
	f.Add([]byte("- {op: add, path: /spec/versions/-, value: {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := resolver.ParsePatch("p.yaml", src)
		if err != nil {
			var list resolver.ErrorList
			if !errors.As(err, &list) || !errors.Is(err, resolver.ErrInput) && !errors.Is(err, resolver.ErrBudget) {
				t.Fatalf("ParsePatch: %T %v", err, err)
			}
			for _, e := range list {
				if e.Pos.File == "" {
					t.Fatalf("no position: %v", e)
				}
			}
			return
		}
		c, err := resolver.New(resolver.Options{KubeVersion: "1.30", WorkDir: dir, Root: dir, RemoveDescriptions: true, Patch: p, Budget: fuzzBudget})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compile("widget.yaml", []byte(patchTarget))
		if err != nil {
			if !errors.Is(err, resolver.ErrPatch) && !errors.Is(err, resolver.ErrBudget) && !errors.Is(err, resolver.ErrInput) {
				t.Fatalf("Compile: %v", err)
			}
			return
		}
		for _, d := range res.Documents {
			raw, err := json.Marshal(d.Object())
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) > fuzzBudget {
				t.Fatalf("the patched CRD is %d bytes of JSON, over the %d-byte budget", len(raw), fuzzBudget)
			}
		}
		if _, err := res.YAML(); err != nil {
			t.Fatal(err)
		}
	})
}
