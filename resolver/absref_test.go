package resolver_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// TestAbsoluteFileRef: an absolute path in a file $ref (the Python tool
// documents them) is that path, under the same confinement as a relative
// one: inside the root it resolves; outside it is refused with the path
// as written.
func TestAbsoluteFileRef(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "proj"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "defs.yaml"), []byte("definitions:\n  X: {type: object, properties: {a: {type: string}}}\n"), 0o644))
	}
	c, err := resolver.New(resolver.Options{KubeVersion: "1.30", WorkDir: root, Root: root, AllowRemovedAPI: true}) // pinTemplate is v1beta1
	require.NoError(t, err)
	res, err := c.Compile(filepath.Join(root, "t.yaml"), pinTemplate(filepath.Join(root, "defs.yaml")+"#/definitions/X"))
	require.NoError(t, err)
	out, err := res.YAML()
	require.NoError(t, err)
	require.Contains(t, string(out), "a:\n")

	ref := filepath.Join(outside, "defs.yaml") + "#/definitions/X"
	_, err = c.Compile(filepath.Join(root, "t.yaml"), pinTemplate(ref))
	require.True(t, errors.Is(err, resolver.ErrOutsideRoot), "%v", err)
	require.Contains(t, err.Error(), `$ref "`+ref+`"`)
	require.False(t, strings.Contains(err.Error(), "no file"), "%v", err)
}
