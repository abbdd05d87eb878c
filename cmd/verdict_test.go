package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// v1beta1Widget is an apiextensions.k8s.io/v1beta1 template, in JSON.
const v1beta1Widget = `{"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced", "version": "v1",
  "validation": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"$ref": "io.k8s.api.core.v1.LocalObjectReference"}}}}}}
`

// TestV1beta1ForNewMinorsIsAnError: a v1beta1 template compiled for a
// minor that serves only v1 (1.22 and later) is an error in resolve,
// build, check and the Python tool's form alike, as validate
// --k8s-version refuses the output; --allow-removed-api (or the
// configuration's allowRemovedAPI) makes it a warning, and validate still
// says what the minor's apiserver would.
func TestV1beta1ForNewMinorsIsAnError(t *testing.T) {
	companionOnPath(t)
	dir := t.TempDir()
	config := "sets:\n- templates: [templates/*.json]\n  outputs: [dist]\n"
	for name, content := range map[string]string{".git/HEAD": "ref: refs/heads/main\n", "templates/widget.json": v1beta1Widget, ".crd-resolver.yaml": config} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	const refused = "Kubernetes 1.30 serves only apiextensions.k8s.io/v1"
	for _, args := range [][]string{
		{"resolve", "templates/widget.json", "--k8s-version", "1.30"},
		{"resolve", "templates/widget.json", "--k8s-version", "1.22"},
		{"build", "--k8s-version", "1.30"},
		{"check", "--k8s-version", "1.30"},
		{"diff", "--from", "1.21", "--to", "1.30"},
		{"--k8s-version", "1.30", "templates/widget.json", "-"},
	} {
		_, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, "/apiVersion: bad input: apiextensions.k8s.io/v1beta1 CRDs are served up to Kubernetes 1.21", "%v", args)
		require.Contains(t, stderr, "--allow-removed-api", "%v", args)
		_, err := os.Stat(filepath.Join(dir, "dist"))
		require.True(t, os.IsNotExist(err), "%v wrote dist/", args)
	}
	// 1.21 serves v1beta1: no word about it.
	_, stderr, code := runCmd(t, dir, "", "resolve", "templates/widget.json", "--k8s-version", "1.21")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "v1beta1 CRDs")

	// With the flag: a warning, and validate refuses the output for the minor.
	for _, args := range [][]string{
		{"resolve", "templates/widget.json", "--k8s-version", "1.30", "--allow-removed-api", "--no-validate", "--output-file", "out.yaml"},
		{"build", "--k8s-version", "1.30", "--allow-removed-api", "--no-validate"},
		{"check", "--k8s-version", "1.30", "--allow-removed-api", "--no-validate"},
		{"--k8s-version", "1.30", "--allow-removed-api", "templates/widget.json", "legacy.yaml"},
	} {
		stdout, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		if args[0] == "check" {
			continue // up to date: check says nothing
		}
		require.Contains(t, stdout+stderr, "warning: templates/widget.json:1:2: /apiVersion: apiextensions.k8s.io/v1beta1 CRDs are not served by Kubernetes 1.22 and later", "%v", args)
	}
	for _, out := range []string{"out.yaml", "dist/widget.yaml", "legacy.yaml"} {
		stdout, stderr, code := runCmd(t, dir, "", "validate", "--k8s-version", "1.30", out)
		require.Equal(t, 1, code, "validate %s: %s", out, stderr)
		require.Contains(t, stdout+stderr, refused)
	}

	// The configuration's key does what the flag does; the flag wins.
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".crd-resolver.yaml"), []byte("kubernetesVersion: '1.30'\nallowRemovedAPI: true\n"+config), 0o644))
	_, stderr, code = runCmd(t, dir, "", "check", "--no-validate")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runCmd(t, dir, "", "check", "--no-validate", "--allow-removed-api=false")
	require.Equal(t, 2, code, stderr)

	// diff compiles the templates too, and takes the flag as build does
	// (the configuration's key above, or the flag); it is no option for two
	// compiled files.
	_, stderr, code = runCmd(t, dir, "", "diff", "--from", "1.21", "--to", "1.30", "--allow-removed-api=false")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "bad input: apiextensions.k8s.io/v1beta1 CRDs are served up to Kubernetes 1.21")
	stdout, stderr, code := runCmd(t, dir, "", "diff", "--from", "1.21", "--to", "1.30")
	require.Contains(t, []int{0, 1}, code, stderr)
	require.NotContains(t, stdout+stderr, "bad input", stderr)
	_, stderr, code = runCmd(t, dir, "", "diff", "out.yaml", "legacy.yaml", "--allow-removed-api")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "OLD and NEW are compiled CRDs")
}
