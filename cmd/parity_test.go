package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
)

// TestResolveCompilesAsBuild: resolve, and the Python tool's SRC DST
// line, compile a template exactly as build does where no git work tree
// tells where the project is: the configuration of the working directory
// is followed (its Kubernetes version, no descriptions), and without one
// the default project's NAME.patch.yaml beside the template is applied.
func TestResolveCompilesAsBuild(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"configuration in the working directory, outside git": {
			".crd-resolver.yaml":    "kubernetesVersion: \"1.29\"\nremoveDescriptions: true\n",
			"templates/widget.yaml": strings.Replace(template, "LocalObjectReference", "ResourceRequirements", 1),
		},
		"no configuration, a patch beside the template": {
			"templates/widget.yaml":       template,
			"templates/widget.patch.yaml": "- {op: add, path: /metadata/labels, value: {patched: \"yes\"}}\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if fileio.GitTop(dir) != "" {
				t.Skipf("%s is inside a git work tree", dir)
			}
			for f, content := range files {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644))
			}
			_, stderr, code := runCmd(t, dir, "", "build", "--no-validate")
			require.Equal(t, 0, code, stderr)
			built, err := os.ReadFile(filepath.Join(dir, "dist/widget.yaml"))
			require.NoError(t, err)
			_, body, _ := strings.Cut(string(built), "\n")
			if strings.Contains(name, "patch") {
				require.Contains(t, body, "patched:")
			} else {
				require.Contains(t, string(built), "for Kubernetes 1.29;")
				require.NotContains(t, body, "description:")
			}

			stdout, stderr, code := runCmd(t, dir, "", "resolve", "--no-validate", "templates/widget.yaml")
			require.Equal(t, 0, code, stderr)
			require.Equal(t, body, stdout, "resolve")

			_, stderr, code = runCmd(t, dir, "", "templates/widget.yaml", "out.yaml")
			require.Equal(t, 0, code, stderr)
			legacy, err := os.ReadFile(filepath.Join(dir, "out.yaml"))
			require.NoError(t, err)
			require.Equal(t, string(built), string(legacy), "SRC DST")
		})
	}
}
