package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadersTakeWhatTheCompileWrites: the deepest CRD the compiler
// writes is read back by every command that reads CRDs, also inside the
// kind: List resolve -o json prints for several (and kubectl get for
// any), two levels deeper; one level deeper, the compile refuses it. One
// limit: the compiler's, with a List's two levels on top for readers.
func TestReadersTakeWhatTheCompileWrites(t *testing.T) {
	companionOnPath(t)
	deep := func(levels int) string {
		var b strings.Builder
		b.WriteString(strings.Replace(template, "          spec: {$ref: io.k8s.api.core.v1.LocalObjectReference}\n", "          spec:\n", 1))
		ind := "            "
		for range levels {
			b.WriteString(ind + "type: object\n" + ind + "properties:\n" + ind + "  a:\n")
			ind += "    "
		}
		b.WriteString(ind + "type: string\n---\n")
		b.WriteString(strings.NewReplacer("widgets", "gadgets", "Widget", "Gadget").Replace(template))
		return b.String()
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "schemas"), 0o755))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "deep.yaml"), []byte(deep(996)), 0o644))
	for _, format := range []string{"yaml", "json"} {
		out, stderr, code := runCmd(t, dir, "", "resolve", "--no-validate", "-o", format, "deep.yaml")
		require.Equal(t, 0, code, stderr)
		name := "deep-out." + format
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(out), 0o644))
		for _, args := range [][]string{
			{"diff", name, name},
			{"validate", name},
			{"export", "jsonschema", name, "-o", "schemas"},
		} {
			stdout, stderr, code := runCmd(t, dir, "", args...)
			require.Equal(t, 0, code, "%v\nstdout: %s\nstderr: %s", args, stdout, stderr)
		}
	}

	// One level of properties more than the compiler writes: refused.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "deeper.yaml"), []byte(deep(997)), 0o644))
	_, stderr, code := runCmd(t, dir, "", "resolve", "--no-validate", "deeper.yaml")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "more than 2000 levels deep")
}
