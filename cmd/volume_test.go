package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// templatesProject writes a project of n templates (templates/w<i>.yaml,
// kind W<i>) into a new directory and returns it.
func templatesProject(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	for i := range n {
		name := string(rune('a' + i))
		tpl := strings.NewReplacer("widgets", name+"widgets", "Widget", "W"+name).Replace(template)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "templates", name+".yaml"), []byte(tpl), 0o644))
	}
	return dir
}

// TestBuildOutputVolume: build prints what changed and one totals line;
// nothing per unchanged template unless -v.
func TestBuildOutputVolume(t *testing.T) {
	dir := templatesProject(t, 3)
	build := []string{"build", "--no-validate", "--k8s-version", "1.30"}
	out, stderr, code := runCmd(t, dir, "", build...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 4, strings.Count(out, "\n"), out)
	require.True(t, strings.HasSuffix(out, "3 template(s): 3 file(s) created, 0 updated, 0 unchanged, 0 removed; 0 warning(s)\n"), out)

	out, stderr, code = runCmd(t, dir, "", build...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "3 template(s): 0 file(s) created, 0 updated, 3 unchanged, 0 removed; 0 warning(s)\n", out)

	tpl := filepath.Join(dir, "templates", "b.yaml")
	src, err := os.ReadFile(tpl)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(tpl, []byte(strings.Replace(string(src), "LocalObjectReference", "ObjectReference", 1)), 0o644))
	out, stderr, code = runCmd(t, dir, "", build...)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2, out)
	require.True(t, strings.HasPrefix(lines[0], "templates/b.yaml -> dist/b.yaml (updated)"), out)
	require.Equal(t, "3 template(s): 0 file(s) created, 1 updated, 2 unchanged, 0 removed; 0 warning(s)", lines[1])

	out, stderr, code = runCmd(t, dir, "", append(build, "-v")...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 4, strings.Count(out, "(unchanged)")+strings.Count(out, "template(s):"), out)

	out, _, _ = runCmd(t, dir, "", append(build, "--quiet")...)
	require.Empty(t, out)
}

// TestCheckExplainsOnce: one change made by a shared definitions file
// in several templates is explained once, not once per CRD.
func TestCheckExplainsOnce(t *testing.T) {
	dir := templatesProject(t, 3)
	defs := filepath.Join(dir, "templates", "defs.yaml")
	write := func(props string) {
		require.NoError(t, os.WriteFile(defs, []byte("definitions:\n  Spec:\n    type: object\n    properties:\n"+props), 0o644))
	}
	write("      size: {type: integer}\n      name: {type: string}\n")
	for _, n := range []string{"a", "b", "c"} {
		tpl := filepath.Join(dir, "templates", n+".yaml")
		src, err := os.ReadFile(tpl)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(tpl, []byte(strings.Replace(string(src), "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{$ref: defs.yaml#/definitions/Spec}", 1)), 0o644))
	}
	_, stderr, code := runCmd(t, dir, "", "build", "--no-validate", "--k8s-version", "1.30")
	require.Equal(t, 0, code, stderr)
	write("      size: {type: string}\n")
	out, stderr, code := runCmd(t, dir, "", "check", "--no-validate", "--k8s-version", "1.30", "--summary-only")
	require.Equal(t, 1, code, stderr)
	require.Equal(t, 1, strings.Count(out, "the data is lost"), out)
	require.Equal(t, 3, strings.Count(out, "property-removed"), out)
	require.Equal(t, 2, strings.Count(out, "property-removed: as above"), out)
}
