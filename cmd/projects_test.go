package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProjectsOfFiles: in a repository whose projects live in svc/ and
// api/ (no configuration at the root), build and check run from the root
// find each file's project, ignore a YAML file of none, act on every
// project without files, and name files as they are opened from the root,
// compile errors included.
func TestProjectsOfFiles(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		".git/HEAD":                 "",
		"svc/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\n",
		"svc/templates/widget.yaml": template,
		"api/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\n",
		"api/templates/gizmo.yaml":  strings.NewReplacer("widgets", "gizmos", "Widget", "Gizmo").Replace(template),
		"deploy/values.yaml":        "replicas: 1\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	stdout, stderr, code := runCmd(t, root, "", "build", "--no-validate", "deploy/values.yaml")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout+stderr, "a file of no project: nothing to do, and no error")

	stdout, stderr, code = runCmd(t, root, "", "check", "--no-validate", "--summary-only", "svc/templates/widget.yaml")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stdout, "svc/dist/widget.yaml:\n  widgets.example.com: 0 breaking, 1 compatible\n")
	require.Contains(t, stdout, "missing: svc/dist/widget.yaml (from svc/templates/widget.yaml)\n0 stale, 1 missing, 0 unexpected:")
	require.NotContains(t, stdout, "gizmo")

	stdout, stderr, code = runCmd(t, root, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "api/templates/gizmo.yaml -> api/dist/gizmo.yaml (created)")
	require.Contains(t, stdout, "svc/templates/widget.yaml -> svc/dist/widget.yaml (created)")

	// From inside a project, its own names, as before.
	stdout, stderr, code = runCmd(t, filepath.Join(root, "svc"), "", "check", "--no-validate")
	require.Equal(t, 0, code, stdout+stderr)

	require.NoError(t, os.WriteFile(filepath.Join(root, "svc/templates/widget.yaml"), []byte(strings.Replace(template, "LocalObjectReference", "LocalObjectReferense", 1)), 0o644))
	_, stderr, code = runCmd(t, root, "", "build", "--no-validate", "svc/templates/widget.yaml")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "error: svc/templates/widget.yaml:")
}
