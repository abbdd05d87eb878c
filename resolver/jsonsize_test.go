package resolver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// TestDocumentJSONSize: Document.JSONSize, measured during the compile, is
// exactly len(json.Marshal(Object())), View equals Object, and AppendJSON writes exactly those
// bytes (the first time, from the cache of shared subtrees after it, and
// from several goroutines at once), for every compiled golden case and
// for the Dask templates in templates/, with and without Kubernetes'
// descriptions (shared $ref targets, patches and escapes included).
func TestDocumentJSONSize(t *testing.T) {
	check := func(t *testing.T, res *resolver.Result) {
		t.Helper()
		for _, d := range res.Documents {
			b, err := json.Marshal(d.Object())
			require.NoError(t, err)
			require.Equal(t, int64(len(b)), d.JSONSize(), "%s: JSONSize against json.Marshal", d.Name)
			require.Equal(t, string(b), string(d.AppendJSON(nil)), "%s: AppendJSON against json.Marshal", d.Name)
			require.Equal(t, d.Object(), d.View(), "%s: View against Object", d.Name)
			var wg sync.WaitGroup
			got := make([][]byte, 4)
			for i := range got {
				wg.Go(func() { got[i] = d.AppendJSON([]byte("prefix")) })
			}
			wg.Wait()
			for _, g := range got {
				require.Equal(t, "prefix"+string(b), string(g), "%s: AppendJSON again, concurrently", d.Name)
			}
		}
	}
	dirs, err := filepath.Glob("../testdata/compile/*")
	require.NoError(t, err)
	compiled := 0
	for _, dir := range dirs {
		co, opts := loadCase(t, dir)
		if opts.WorkDir == "" {
			continue
		}
		c, err := resolver.New(opts)
		if err != nil {
			continue // an error case
		}
		src, err := os.ReadFile(filepath.Join(dir, co.Template))
		require.NoError(t, err)
		res, err := c.Compile(co.Template, src)
		if err != nil {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) { check(t, res) })
		compiled += len(res.Documents)
	}
	require.Greater(t, compiled, 20, "too few golden cases compiled")

	templates, err := filepath.Glob("../templates/dask*.yaml")
	require.NoError(t, err)
	// NAME.patch.yaml beside a template is its JSON patch, not a template.
	templates = slices.DeleteFunc(templates, func(f string) bool { return strings.HasSuffix(f, ".patch.yaml") })
	require.Len(t, templates, 4)
	abs, err := filepath.Abs("..")
	require.NoError(t, err)
	for _, remove := range []bool{false, true} {
		c, err := resolver.New(resolver.Options{KubeVersion: "1.37", WorkDir: abs, RemoveDescriptions: remove})
		require.NoError(t, err)
		for _, tpl := range templates {
			src, err := os.ReadFile(tpl)
			require.NoError(t, err)
			res, err := c.Compile(filepath.Join("templates", filepath.Base(tpl)), src)
			require.NoError(t, err)
			check(t, res)
		}
	}
}
