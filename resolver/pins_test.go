package resolver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// pythonToolPins are the releases whose swagger.json the Python tool
// ships as k8s_crd_resolver/schemata/k8s-<release>.json.
var pythonToolPins = []string{"1.12.3", "1.12.10", "1.13.4", "1.13.8", "1.14.4", "1.15.3"}

func pinTemplate(ref string) []byte {
	return fmt.Appendf(nil, `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: pins.example.com}
spec:
  group: example.com
  names: {kind: Pin, plural: pins}
  scope: Namespaced
  version: v1
  validation:
    openAPIV3Schema:
      type: object
      properties:
        target: {$ref: '%s'}
`, ref)
}

// TestPythonToolPins: every bundle the Python tool ships resolves, in
// both of the forms its templates use, to the embedded bundle of that
// minor (compiling for that minor, so no pin warning).
func TestPythonToolPins(t *testing.T) {
	for _, pin := range pythonToolPins {
		minor := pin[:strings.LastIndex(pin, ".")]
		for _, ref := range []string{
			"python://k8s_crd_resolver/schemata/k8s-" + pin + ".json#/definitions/io.k8s.api.core.v1.ObjectReference",
			"https://raw.githubusercontent.com/kubernetes/kubernetes/v" + pin + "/api/openapi-spec/swagger.json#/definitions/io.k8s.api.core.v1.ObjectReference",
		} {
			t.Run(ref, func(t *testing.T) {
				c, err := resolver.New(resolver.Options{KubeVersion: minor, WorkDir: t.TempDir()})
				require.NoError(t, err)
				res, err := c.Compile("pin.yaml", pinTemplate(ref))
				require.NoError(t, err)
				require.Empty(t, res.Warnings)
				out, err := res.YAML()
				require.NoError(t, err)
				require.Contains(t, string(out), "fieldPath:")
			})
		}
	}
}

// TestDeprecatedAlias: the pre-1.8 names 1.12 and 1.13 keep as aliases
// (io.k8s.kubernetes.pkg.api.v1.ObjectReference) compile to their target
// with its own description, not the alias's "Deprecated. Please use ...".
func TestDeprecatedAlias(t *testing.T) {
	c, err := resolver.New(resolver.Options{KubeVersion: "1.12", WorkDir: t.TempDir()})
	require.NoError(t, err)
	res, err := c.Compile("pin.yaml", pinTemplate("io.k8s.kubernetes.pkg.api.v1.ObjectReference"))
	require.NoError(t, err)
	out, err := res.YAML()
	require.NoError(t, err)
	require.Contains(t, string(out), "description: ObjectReference contains enough information")
	require.NotContains(t, string(out), "Deprecated. Please use")
}

// TestKubeVersionsNamePins: a compile names every minor its content came
// from, also when a reused Compiler serves a pinned target from its
// cache (build compiles many templates with one Compiler).
func TestKubeVersionsNamePins(t *testing.T) {
	dir := t.TempDir()
	shared := "definitions:\n  Job:\n    $ref: 'python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/io.k8s.api.batch.v1.JobSpec'\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "shared.yaml"), []byte(shared), 0o644))
	c, err := resolver.New(resolver.Options{KubeVersion: "1.30", WorkDir: dir, AllowRemovedAPI: true}) // pinTemplate is v1beta1
	require.NoError(t, err)
	for _, tc := range []struct {
		ref  string
		want []string
	}{
		{"shared.yaml#/definitions/Job", []string{"1.21"}},
		{"shared.yaml#/definitions/Job", []string{"1.21"}}, // from the cache
		{"io.k8s.api.core.v1.ObjectReference", []string{"1.30"}},
	} {
		res, err := c.Compile(filepath.Join(dir, "pin.yaml"), pinTemplate(tc.ref))
		require.NoError(t, err)
		require.Equal(t, tc.want, res.KubeVersions, tc.ref)
		if tc.want[0] == "1.21" {
			pins := 0
			for _, w := range res.Warnings {
				if strings.Contains(w.Message, "pins Kubernetes 1.21, not the target 1.30") {
					pins++
				}
			}
			require.Equal(t, 1, pins, "one pin warning, cached or not: %v", res.Warnings)
		}
	}
}
