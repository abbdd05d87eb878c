package resolver_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// TestEveryDefinitionIsASchema: every definition of every embedded
// bundle, and every schema inside one, counts as a schema by the rule
// $ref targets are held to (a mapping of JSON Schema keywords and x-
// extensions, each of its type), so no real target is ever refused.
func TestEveryDefinitionIsASchema(t *testing.T) {
	for _, v := range schemas.Versions() {
		b, err := schemas.Load(v)
		require.NoError(t, err)
		n := 0
		for _, name := range b.Names() {
			raw, err := b.Definition(name)
			require.NoError(t, err)
			def, err := resolver.DecodeJSON(raw)
			require.NoError(t, err)
			m, ok := def.(map[string]any)
			require.True(t, ok, "%s %s", v, name)
			resolver.WalkSchemas(m, func(s map[string]any, p string) {
				n++
				if why := resolver.NotASchema(s); why != "" {
					t.Errorf("Kubernetes %s %s%s: %s", v, name, p, why)
				}
			})
		}
		t.Logf("Kubernetes %s: %d schemas", v, n)
	}
}

// TestEveryDefinition embeds each definition of a bundle, one per CRD, and
// runs the result through the apiserver's CRD validation: the general rule,
// not just the types the golden cases name. Recursive definitions must fail
// with ErrCycle, and compile with --recursion=preserve. Every embedded
// version (~17,000 definitions, ~45 s); -short skips it.
func TestEveryDefinition(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: compiles every definition")
	}
	for _, v := range schemas.Versions() {
		t.Run(v, func(t *testing.T) {
			b, err := schemas.Load(v)
			require.NoError(t, err)
			strict, err := resolver.New(resolver.Options{KubeVersion: v, WorkDir: t.TempDir(), RemoveDescriptions: true})
			require.NoError(t, err)
			cut, err := resolver.New(resolver.Options{KubeVersion: v, WorkDir: t.TempDir(), RemoveDescriptions: true, Recursion: resolver.RecursionPreserve})
			require.NoError(t, err)
			cycles := 0
			// Minors before 1.16 serve only apiextensions.k8s.io/v1beta1, and a
			// v1 template for them is refused: theirs is a v1beta1 one.
			template := crdTemplate
			if schemas.CompareMinors(v, "1.16") < 0 {
				template = crdTemplateV1beta1
			}
			for _, name := range b.Names() {
				src := template(fmt.Sprintf("spec: {$ref: %q}", name))
				res, err := strict.Compile("thing.yaml", []byte(src))
				if errors.Is(err, resolver.ErrCycle) {
					cycles++
					res, err = cut.Compile("thing.yaml", []byte(src))
				}
				require.NoError(t, err, name)
				out, err := res.YAML()
				require.NoError(t, err)
				var obj map[string]any
				require.NoError(t, yaml.Unmarshal(out, &obj))
				crd, err := oracle.Decode(obj)
				require.NoError(t, err, name)
				if errs := crd.ValidateFor(t.Context(), v); len(errs) > 0 { // as validate --k8s-version judges
					var lines []string
					for _, e := range errs[:min(len(errs), 5)] {
						lines = append(lines, e.Error())
					}
					t.Errorf("%s: the apiserver rejects it:\n%s", name, strings.Join(lines, "\n"))
				}
				formats, err := crd.UnrecognizedFormats(v)
				require.NoError(t, err)
				require.Empty(t, formats, name)
			}
			t.Logf("Kubernetes %s: %d definitions, %d recursive", v, len(b.Names()), cycles)
		})
	}
}

// crdTemplateV1beta1 is crdTemplate as an apiextensions.k8s.io/v1beta1
// CRD, for the minors that serve no other.
func crdTemplateV1beta1(props ...string) string {
	var b strings.Builder
	b.WriteString(`apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {kind: Thing, plural: things}
  scope: Namespaced
  version: v1
  validation:
    openAPIV3Schema:
      type: object
      properties:
`)
	for _, p := range props {
		fmt.Fprintf(&b, "        %s\n", p)
	}
	return b.String()
}
