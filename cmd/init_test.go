package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// TestPinning: a build whose minor comes from the tool's default says how
// to pin it when it creates outputs, and when an output moves from another
// minor (an upgrade of the tool), never on other runs; init writes a configuration
// with the newest minor pinned (after which the build says nothing), and
// never replaces an existing one.
func TestPinning(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(template), 0o644))
	newest := schemas.Latest()

	_, stderr, code := runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "note: compiled for Kubernetes "+newest+", this k8s-crd-resolver's newest, as no kubernetesVersion is set")
	require.Contains(t, stderr, "`k8s-crd-resolver init` writes one")
	_, stderr, code = runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "note:", "a run that writes nothing says nothing")
	// An update at the same minor says nothing; an output an older tool wrote
	// for its own newest (another minor) is said to move.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(template+"# changed\n"), 0o644))
	out := filepath.Join(dir, "dist/widget.yaml")
	old, err := os.ReadFile(out)
	require.NoError(t, err)
	_, body, _ := strings.Cut(string(old), "\n")
	require.NoError(t, os.WriteFile(out, project.SealedFile("templates/widget.yaml", []byte(body+"# stale\n"), newest), 0o644))
	_, stderr, code = runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "note:", "an update at the same minor")
	require.NoError(t, os.WriteFile(out, []byte(strings.Replace(string(old), "for Kubernetes "+newest+";", "for Kubernetes 1.12;", 1)), 0o644))
	_, stderr, code = runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "note: dist/widget.yaml moved from Kubernetes 1.12 to "+newest+", this k8s-crd-resolver's newest, as no kubernetesVersion is set")

	_, stderr, code = runCmd(t, dir, "", "init")
	require.Equal(t, 0, code, stderr)
	cfg, err := os.ReadFile(filepath.Join(dir, ".crd-resolver.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), "kubernetesVersion: \""+newest+"\"\n")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "dist")))
	_, stderr, code = runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "note:", "pinned")
	_, err = os.Stat(filepath.Join(dir, "dist/widget.yaml"))
	require.NoError(t, err, "init's configuration builds templates/ into dist/")

	require.NoError(t, os.WriteFile(filepath.Join(dir, ".crd-resolver.yaml"), []byte("kubernetesVersion: \"1.30\"\n"), 0o644))
	_, stderr, code = runCmd(t, dir, "", "init", "--k8s-version", "1.29")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "exists already")
	cfg, err = os.ReadFile(filepath.Join(dir, ".crd-resolver.yaml"))
	require.NoError(t, err)
	require.Equal(t, "kubernetesVersion: \"1.30\"\n", string(cfg))
}
