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

// TestEveryDefinition embeds each definition of a bundle, one per CRD, and
// runs the result through the apiserver's CRD validation: the general rule,
// not just the types the golden cases name. Recursive definitions must fail
// with ErrCycle, and compile with --recursion=preserve. Every embedded
// version (~14,000 definitions, ~45 s); -short skips it.
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
			for _, name := range b.Names() {
				src := fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {kind: Thing, plural: things}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {$ref: %q}
`, name)
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
				if errs := crd.Validate(t.Context()); len(errs) > 0 {
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
