package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// TestOutputFlags: one -o scheme, as kubectl, helm and kubeconform have
// it: a visible -o/--output names an output format, a destination is
// --output-file or --output-dir; and a flag name has one type in every
// command (--budget is a size everywhere).
func TestOutputFlags(t *testing.T) {
	root := NewRootCmd(nil, nil)
	types := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			where := c.CommandPath() + " --" + f.Name
			if f.Hidden {
				return
			}
			if f.Name == "output" {
				require.True(t, strings.HasPrefix(f.Usage, "output format: "), "%s: %q", where, f.Usage)
				require.Equal(t, "o", f.Shorthand, where)
			}
			if strings.HasPrefix(f.Name, "output-") {
				require.Empty(t, f.Shorthand, where)
			}
			if typ, seen := types[f.Name]; seen {
				require.Equal(t, typ, f.Value.Type(), "%s has another type than elsewhere", where)
			}
			types[f.Name] = f.Value.Type()
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	require.Equal(t, "size", types["budget"])
}

// TestOutputSpellings: resolve's and export's destinations are
// --output-file and --output-dir; the -o spellings scripts used before
// write the same files.
func TestOutputSpellings(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widget.yaml"), []byte(template), 0o644))
	for _, args := range [][]string{
		{"resolve", "widget.yaml", "--no-validate", "--k8s-version", "1.30", "--output-file", "a.yaml"},
		{"resolve", "widget.yaml", "--no-validate", "--k8s-version", "1.30", "-o", "b.yaml"},
		{"resolve", "widget.yaml", "--no-validate", "--k8s-version", "1.30", "--output", "c.yaml"},
	} {
		_, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 0, code, "%q: %s", args, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a.yaml"))
	for _, n := range []string{"b.yaml", "c.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		require.Equal(t, string(a), strings.Replace(string(b), n, "a.yaml", 1), n)
	}
	for _, args := range [][]string{
		{"export", "jsonschema", "--output-dir", "s1", "a.yaml"},
		{"export", "jsonschema", "-o", "s2", "a.yaml"},
	} {
		_, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 0, code, "%q: %s", args, stderr)
		out := args[3]
		entries, err := os.ReadDir(filepath.Join(dir, out))
		require.NoError(t, err)
		require.NotEmpty(t, entries)
	}
}

// TestEverydayMistakes: what a user gets for the everyday mistakes says what to
// run instead.
func TestEverydayMistakes(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widget.yaml"), []byte(template), 0o644))
	_, stderr, code := runCmd(t, dir, "", "resolve", "widget.yaml", "--no-validate", "--k8s-version", "1.30", "--output-file", "compiled.yaml")
	require.Equal(t, 0, code, stderr)

	// The Python tool's form with one argument: resolve is what was meant.
	_, stderr, code = runCmd(t, dir, "", "widget.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "run 'k8s-crd-resolver resolve widget.yaml'")

	// A template given to diff is named as one, at its first $ref.
	for _, args := range [][]string{{"diff", "widget.yaml", "compiled.yaml"}, {"diff", "compiled.yaml", "widget.yaml"}} {
		out, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 2, code, "%q", args)
		require.Empty(t, out)
		require.Equal(t, "error: widget.yaml:17:18: widget.yaml is a CRD template (a $ref at /spec/versions/0/schema/openAPIV3Schema/properties/spec/$ref), not a compiled CRD: diff compares compiled CRDs; compile it first (k8s-crd-resolver resolve widget.yaml --output-file compiled.yaml), or run diff with no arguments to compare the project's outputs with a fresh build\n", stderr)
	}

	// diff takes check's --summary-only.
	_, stderr, code = runCmd(t, dir, "", "diff", "--summary-only", "compiled.yaml", "compiled.yaml")
	require.Equal(t, 0, code, stderr)
}

// TestPatchVersionWarningForUsers: a patch newer than the embedded one is
// a warning that says what a user can do (a newer k8s-crd-resolver), not
// a make target of this repository.
func TestPatchVersionWarningForUsers(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widget.yaml"), []byte(template), 0o644))
	_, stderr, code := runCmd(t, dir, "", "resolve", "widget.yaml", "--k8s-version", "1.30.99", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "use a newer k8s-crd-resolver")
	require.NotContains(t, stderr, "make ")
}
