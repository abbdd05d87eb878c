package resolver

import (
	"os"
	"path/filepath"
	"testing"
)

// TestParsedFilesAreReused: a file in Options.Parsed that still holds the
// bytes it was parsed from is not parsed again (its documents are the
// Source's), and the compile is the same as without; a file that changed
// since is parsed again.
func TestParsedFilesAreReused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git", "")
	template := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              $ref: shared.yaml#/definitions/Spec
`
	shared := "definitions:\n  Spec:\n    type: object\n    properties:\n      size: {type: integer}\n"
	write("shared.yaml", shared)
	abs := filepath.Join(dir, "shared.yaml")
	compile := func(parsed map[string]*Source) (*Compiler, string) {
		t.Helper()
		c, err := New(Options{KubeVersion: "1.30", WorkDir: dir, Parsed: parsed})
		if err != nil {
			t.Fatal(err)
		}
		y, _, _ := compileText(t, c, template)
		return c, y
	}
	_, want := compile(nil)
	s := Parse("shared.yaml", []byte(shared), 0)
	c, got := compile(map[string]*Source{abs: s})
	if got != want {
		t.Errorf("with the parse reused:\n%s\nwant\n%s", got, want)
	}
	if docs := c.files[abs]; len(docs) != 1 || docs[0] != s.docs[0] {
		t.Error("the parsed file was parsed again")
	}
	stale := Parse("shared.yaml", []byte(shared+"  Other: {type: string}\n"), 0)
	c, got = compile(map[string]*Source{abs: stale})
	if got != want {
		t.Errorf("with a stale parse:\n%s\nwant\n%s", got, want)
	}
	if docs := c.files[abs]; len(docs) != 1 || docs[0] == stale.docs[0] {
		t.Error("a parse of other bytes was used")
	}
	other := Parse("elsewhere/shared.yaml", []byte(shared), 0) // positions would name another file
	if c, _ = compile(map[string]*Source{abs: other}); c.files[abs][0] == other.docs[0] {
		t.Error("a parse under another name was used")
	}
}
