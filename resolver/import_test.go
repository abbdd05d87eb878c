package resolver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

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

// TestImportPublished: importing a bundle definition, with descriptions
// (put back from where the bundle keeps them), truncated, or without them
// (read from its structure alone), gives what importing the definition as
// published gives (bundlefmt.JoinDescriptions), for every definition of
// the oldest, the first with list types and the newest minor (every minor
// without -short).
func TestImportPublished(t *testing.T) {
	minors := schemas.Versions()
	if testing.Short() {
		minors = []string{minors[0], "1.16", schemas.Latest()}
	}
	for _, minor := range minors {
		b, err := schemas.Load(minor)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{}, {MaxDescriptionLength: 40}, {RemoveDescriptions: true}} {
			opts.KubeVersion = minor
			c, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			r := &run{c: c, diagnostics: newDiagnostics(), budget: newBudget(DefaultBudget)}
			for _, name := range b.Names() {
				got, err := r.importDefinition(minor, name)
				if err != nil {
					t.Fatalf("%s %s: %v", minor, name, err)
				}
				structure, _ := b.Definition(name)
				descs, _ := b.Descriptions(name)
				published, err := bundlefmt.JoinDescriptions(structure, descs)
				if err != nil {
					t.Fatal(err)
				}
				v, err := bundlefmt.Decode(published)
				if err != nil {
					t.Fatal(err)
				}
				want, err := r.importRaw(minor, name, v)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s %+v: imported %v, want %v", minor, name, opts, got, want)
				}
			}
		}
	}
}
