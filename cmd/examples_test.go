package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTopLevelExamplesJudgedPerSetMinor: the top level's examples are
// judged against every set's CRDs, each CRD's objects for its own set's
// kubernetesVersion, whichever order the sets come in: a v1beta1 CRD of a
// 1.15 set and a v1 CRD with a CEL rule of a 1.37 set both judge their
// objects (before, every CRD was kept for the last set's minor: one of the
// two was "cannot be created", and the rule was dropped or not by order).
// An example given as a FILE argument is one the run reads (judged), not
// "no template reads it" (exit 2).
func TestTopLevelExamplesJudgedPerSetMinor(t *testing.T) {
	companionOnPath(t)
	beta, err := os.ReadFile("../testdata/compile/v1beta1/template.yaml")
	require.NoError(t, err)
	gadget := strings.NewReplacer("widgets", "gadgets", "Widget", "Gadget",
		"          spec: {$ref: io.k8s.api.core.v1.LocalObjectReference}\n",
		"          spec:\n            type: object\n            properties: {name: {type: string}}\n            x-kubernetes-validations:\n            - {rule: 'self.name != \"\"', message: name must not be empty}\n").Replace(template)
	sets := map[string]string{
		"beta first": "  - templates: [beta/*.yaml]\n    outputs: [dist-beta]\n    kubernetesVersion: \"1.15\"\n  - templates: [cel/*.yaml]\n    outputs: [dist-cel]\n    kubernetesVersion: \"1.37\"\n",
		"cel first":  "  - templates: [cel/*.yaml]\n    outputs: [dist-cel]\n    kubernetesVersion: \"1.37\"\n  - templates: [beta/*.yaml]\n    outputs: [dist-beta]\n    kubernetesVersion: \"1.15\"\n",
	}
	for order, s := range sets {
		for _, tc := range []struct {
			name, gadgetSpec string
			want             int
		}{
			{"valid", "{name: x}", 0},
			{"the CEL rule refuses", "{name: ''}", 1},
		} {
			t.Run(order+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				for name, content := range map[string]string{
					".git/HEAD":            "ref: refs/heads/main\n",
					".crd-resolver.yaml":   "examples: [examples/*.yaml]\nsets:\n" + s,
					"beta/widget.yaml":     string(beta),
					"cel/gadget.yaml":      gadget,
					"examples/widget.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {name: x}\n",
					"examples/gadget.yaml": "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: " + tc.gadgetSpec + "\n",
				} {
					require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
					require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
				}
				stdout, stderr, code := runCmd(t, dir, "", "build", "-q")
				require.Equal(t, tc.want, code, "stdout: %s\nstderr: %s", stdout, stderr)
				require.NotContains(t, stderr, "cannot be created")
				if tc.want == 1 {
					require.Contains(t, stderr, "error: examples/gadget.yaml:4:1: Gadget/g: spec: Invalid value: ")
					return
				}
				// An example named as a FILE (a changed file) is judged: it
				// is read, as a template is.
				stdout, stderr, code = runCmd(t, dir, "", "check", "examples/gadget.yaml")
				require.Equal(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
			})
		}
	}
}
