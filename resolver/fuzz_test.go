package resolver_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// FuzzCompile feeds arbitrary templates (seeded with every golden case) to
// the compiler and checks four properties: no panic; no $ref keyword in the
// output; compiling the output again gives the same bytes (the output is a
// fixed point); and two compiles give byte-identical output.
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
			c, err := resolver.New(resolver.Options{KubeVersion: "1.30", WorkDir: dir, Root: dir, Recursion: resolver.RecursionPreserve})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Compile("template.yaml", src)
			if err != nil {
				return nil, err
			}
			for _, d := range res.Documents {
				if left := refsLeft(d.Object(), ""); len(left) > 0 {
					t.Fatalf("$ref left in the output at %v", left)
				}
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
