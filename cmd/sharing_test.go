package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/sharedgen"
)

// TestProjectBuiltWholeEqualsEachAlone (issue 48): a project's build
// compiles its templates with one Compiler, whose cache of resolved $ref
// targets fills as it goes; each output must be the same bytes as the same
// template built in a project of its own. The templates use the same types
// many times, with allOf, required, properties and patches on the uses.
func TestProjectBuiltWholeEqualsEachAlone(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 15
	}
	cases := sharedgen.Templates(4848, n)
	write := func(dir string, cs ...sharedgen.Case) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".crd-resolver.yaml"), []byte("kubernetesVersion: \"1.30\"\nremoveDescriptions: true\n"), 0o644))
		for _, c := range cs {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "templates", c.Name), []byte(c.Src), 0o644))
			if c.Patch != "" {
				stem := strings.TrimSuffix(c.Name, ".yaml")
				require.NoError(t, os.WriteFile(filepath.Join(dir, "templates", stem+".patch.yaml"), []byte(c.Patch), 0o644))
			}
		}
	}
	whole := t.TempDir()
	write(whole, cases...)
	_, stderr, code := runCmd(t, whole, "", "build", "--no-validate", "--quiet")
	require.Equal(t, 0, code, stderr)
	for _, c := range cases {
		alone := t.TempDir()
		write(alone, c)
		_, stderr, code := runCmd(t, alone, "", "build", "--no-validate", "--quiet")
		require.Equal(t, 0, code, stderr)
		got, err := os.ReadFile(filepath.Join(whole, "dist", c.Name))
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join(alone, "dist", c.Name))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s built with %d other templates differs from it built alone", c.Name, n-1)
	}
}
