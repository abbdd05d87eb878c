package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestMalformedListsRefused: a kind: List whose items are a mapping
// (kubectl refuses it), or that holds a kind: List (whose objects nothing
// would judge), is an error naming the file, line and column in every
// command that reads Lists (docread.ListItems), never a silent
// pass or an unexplained "no CRD".
func TestMalformedListsRefused(t *testing.T) {
	companionOnPath(t)
	crd := strings.Replace(template, "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{type: object}", 1)
	crdJSON, err := yaml.YAMLToJSON([]byte(crd))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, content, want string
	}{
		{"items a mapping", "apiVersion: v1\nkind: List\nitems:\n  widget: " + string(crdJSON) + "\n", "list.yaml:3:1: /items: bad input: a kind: List's items are a mapping"},
		{"a List in a List", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: [" + string(crdJSON) + "]\n", "list.yaml:4:3: /items/0: bad input: a kind: List inside a kind: List"},
	} {
		for _, args := range [][]string{
			{"validate", "list.yaml"},
			{"validate", "--crd", "list.yaml", "cr.yaml"},
			{"diff", "list.yaml", "crd.yaml"},
			{"export", "jsonschema", "list.yaml", "-o", "schemas"},
		} {
			t.Run(tc.name+"/"+strings.Join(args, " "), func(t *testing.T) {
				dir := t.TempDir()
				for name, content := range map[string]string{
					".git/HEAD":     "ref: refs/heads/main\n",
					"list.yaml":     tc.content,
					"crd.yaml":      crd,
					"cr.yaml":       "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
					"schemas/.keep": "",
				} {
					require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
					require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
				}
				stdout, stderr, code := runCmd(t, dir, "", args...)
				require.NotEqual(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
				require.Contains(t, stdout+stderr, tc.want)
			})
		}
	}
}
