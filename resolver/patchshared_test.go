package resolver

import (
	"bytes"
	"strings"
	"testing"
)

const patchedTemplate = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: NAMEs.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: NAME, plural: NAMEs}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {$ref: io.k8s.api.core.v1.PodSpec}
`

const intoPodSpec = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/containers/items/properties/image"

// TestCompilePatchedSharesNothingChanged: templates with patches of their
// own share one Compiler (CompilePatched). A patch reaching deep into a
// resolved target (a container's image) changes the output of its own
// template only: the next compile, unpatched, and a compile by a fresh
// Compiler give the same bytes. A patch adding a $ref there is refused,
// though the walk looking for one skips the targets the patch left alone.
func TestCompilePatchedSharesNothingChanged(t *testing.T) {
	dir := t.TempDir()
	for _, remove := range []bool{false, true} {
		c, err := New(Options{KubeVersion: "1.37", WorkDir: dir, RemoveDescriptions: remove})
		if err != nil {
			t.Fatal(err)
		}
		compile := func(c *Compiler, name string, patch *Patch) ([]byte, error) {
			t.Helper()
			res, err := c.CompilePatched(name+".yaml", []byte(strings.ReplaceAll(patchedTemplate, "NAME", name)), nil, patch)
			if err != nil {
				return nil, err
			}
			return res.YAML()
		}
		patch, err := ParsePatch("p.json", []byte(`[{"op": "add", "path": "`+intoPodSpec+`/maxLength", "value": 300}]`))
		if err != nil {
			t.Fatal(err)
		}
		patched, err := compile(c, "a", patch)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(patched, []byte("maxLength: 300")) {
			t.Fatalf("descriptions removed %v: the patch is not applied", remove)
		}
		after, err := compile(c, "b", nil)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := New(Options{KubeVersion: "1.37", WorkDir: dir, RemoveDescriptions: remove})
		want, err := compile(fresh, "b", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(after, want) || bytes.Contains(after, []byte("maxLength: 300")) {
			t.Fatalf("descriptions removed %v: the patch of one template reached another's output", remove)
		}
		addRef, err := ParsePatch("p.json", []byte(`[{"op": "add", "path": "`+intoPodSpec+`/items", "value": {"$ref": "io.k8s.api.core.v1.Pod"}}]`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := compile(c, "c", addRef); err == nil || !strings.Contains(err.Error(), "the patch adds a $ref") {
			t.Fatalf("descriptions removed %v: a patch adding a $ref into a resolved target: %v", remove, err)
		}
	}
}
