package resolver_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// crdTemplate is a CRD template (kind Thing) whose root schema has the
// given properties, written from line 16 on, one a line.
func crdTemplate(props ...string) string { return crdTemplateFor("Thing", "things", props...) }

// crdTemplateFor is crdTemplate for another kind and plural.
func crdTemplateFor(kind, plural string, props ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[2]s.example.com}
spec:
  group: example.com
  names: {kind: %[1]s, plural: %[2]s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
`, kind, plural)
	for _, p := range props {
		fmt.Fprintf(&b, "          %s\n", p)
	}
	return b.String()
}

// TestBundleDiagnosticsAtUsersRef: a warning raised inside a Kubernetes
// definition is reported at the $ref of the template being compiled that
// leads there, also when one Compiler resolved (and cached) the
// definition for another template where the $ref sat elsewhere and the
// chain was another.
func TestBundleDiagnosticsAtUsersRef(t *testing.T) {
	c, err := resolver.New(resolver.Options{KubeVersion: "1.37", WorkDir: t.TempDir(), RemoveDescriptions: true})
	require.NoError(t, err)
	const status = "io.k8s.api.resource.v1.ResourceClaimStatus"
	const atomic = "list-map key shareID is neither required nor defaulted by Kubernetes; the list is atomic in this CRD (server-side apply replaces it whole)"
	cases := []struct {
		name, src string
		want      string
	}{
		{"direct", crdTemplate(`status: {$ref: ` + status + `}`),
			`direct.yaml:16:20: /spec/versions/0/schema/openAPIV3Schema/properties/status/$ref: $ref "` + status + `": in ResourceClaimStatus -> .devices: ` + atomic},
		// Cached now: the warning replays with the chain that leads to it here.
		{"nested", crdTemplate(`a: {type: string}`, `claim: {$ref: io.k8s.api.resource.v1.ResourceClaim}`),
			`nested.yaml:17:19: /spec/versions/0/schema/openAPIV3Schema/properties/claim/$ref: $ref "io.k8s.api.resource.v1.ResourceClaim": in ResourceClaim -> .status -> ResourceClaimStatus -> .devices: ` + atomic},
		{"again", crdTemplate(`a: {type: string}`, `b: {type: string}`, `status: {$ref: `+status+`}`),
			`again.yaml:18:20: /spec/versions/0/schema/openAPIV3Schema/properties/status/$ref: $ref "` + status + `": in ResourceClaimStatus -> .devices: ` + atomic},
	}
	for _, tc := range cases {
		res, err := c.Compile(tc.name+".yaml", []byte(tc.src))
		require.NoError(t, err)
		var got []string
		for _, w := range res.Warnings {
			got = append(got, w.String())
		}
		require.Equal(t, []string{tc.want}, got, tc.name)
	}
}

// TestBundleCycleErrorOncePerRef: JSONSchemaProps refers to itself
// through seven of its fields; that is one cycle, one error per $ref of
// the template that reaches it, at that $ref, whatever the Compiler
// resolved before.
func TestBundleCycleErrorOncePerRef(t *testing.T) {
	c, err := resolver.New(resolver.Options{KubeVersion: "1.37", WorkDir: t.TempDir(), RemoveDescriptions: true})
	require.NoError(t, err)
	const props = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"
	for range 2 {
		_, err = c.Compile("cycle.yaml", []byte(crdTemplate(`a: {$ref: `+props+`}`, `b: {type: object, additionalProperties: {$ref: `+props+`}}`)))
		var list resolver.ErrorList
		require.True(t, errors.As(err, &list))
		require.Len(t, list, 2, "%v", err)
		for i, want := range []string{"16:15", "17:52"} {
			require.True(t, errors.Is(list[i], resolver.ErrCycle))
			require.Equal(t, "cycle.yaml:"+want, list[i].Pos.String())
			require.Contains(t, list[i].Err.Error(), "recursive $ref: JSONSchemaProps -> .allOf[*] -> JSONSchemaProps (and 6 more paths back)")
		}
	}
}

// testBundle is a Kubernetes bundle of a few definitions, for cases the
// real ones do not have.
type testBundle map[string]string

func (b testBundle) Definition(name string) ([]byte, error) {
	d, ok := b[name]
	if !ok {
		return nil, fmt.Errorf("no definition %q", name)
	}
	return []byte(d), nil
}

func (b testBundle) Has(name string) bool { _, ok := b[name]; return ok }

func (b testBundle) Names() []string {
	var out []string
	for n := range b {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// TestBundleCycleReachedTwice: X reaches the cycle of Z both directly and
// through Y. It is one error, at the template's $ref, counting both
// paths; and Y, whose own cycle error was a repeat, is not cached as if
// it had resolved: another template's $ref to Y fails too.
func TestBundleCycleReachedTwice(t *testing.T) {
	bundle := testBundle{
		"io.test.X": `{"type":"object","properties":{"p":{"$ref":"#/definitions/io.test.Z"},"q":{"$ref":"#/definitions/io.test.Y"}}}`,
		"io.test.Y": `{"type":"object","properties":{"z":{"$ref":"#/definitions/io.test.Z"}}}`,
		"io.test.Z": `{"type":"object","properties":{"next":{"$ref":"#/definitions/io.test.Z"}}}`,
	}
	// Y is resolved after Z or before, as map order has it: try both.
	for range 20 {
		c, err := resolver.New(resolver.Options{WorkDir: t.TempDir(), Bundles: func(string) (resolver.Definitions, string, error) { return bundle, "1.0", nil }})
		require.NoError(t, err)
		_, err = c.Compile("x.yaml", []byte(crdTemplate(`x: {$ref: io.test.X}`)))
		require.EqualError(t, err, `x.yaml:16:15: /spec/versions/0/schema/openAPIV3Schema/properties/x/$ref: $ref "io.test.X": recursive $ref: X -> .p -> Z -> .next -> Z (and 1 more path back); a CRD schema cannot be recursive: pass --recursion=preserve to cut the cycle with x-kubernetes-preserve-unknown-fields`)
		_, err = c.Compile("y.yaml", []byte(crdTemplate(`y: {$ref: io.test.Y}`)))
		require.EqualError(t, err, `y.yaml:16:15: /spec/versions/0/schema/openAPIV3Schema/properties/y/$ref: $ref "io.test.Y": recursive $ref: Y -> .z -> Z -> .next -> Z; a CRD schema cannot be recursive: pass --recursion=preserve to cut the cycle with x-kubernetes-preserve-unknown-fields`)
	}
}
