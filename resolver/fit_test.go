package resolver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// TestFitDescriptionsSizes: a fitted CRD's JSONSize is its compact JSON
// exactly, within the limit, and keeps Kubernetes' descriptions
// shallowest first.
func TestFitDescriptionsSizes(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	var names []string
	for _, n := range []string{"daskautoscaler", "daskcluster", "daskjob", "daskworkergroup"} {
		names = append(names, filepath.Join(root, "templates", n+".yaml"))
	}
	for _, limit := range []resolver.Size{262_078, 100_000} {
		c, err := resolver.New(resolver.Options{KubeVersion: "1.37", WorkDir: root, FitDescriptions: limit})
		require.NoError(t, err)
		for _, name := range names {
			src, err := os.ReadFile(name)
			require.NoError(t, err)
			res, err := c.Compile(name, src)
			require.NoError(t, err)
			for _, d := range res.Documents {
				raw, err := json.Marshal(d.Object())
				require.NoError(t, err)
				require.Equal(t, int64(len(raw)), d.JSONSize(), "%s", d.Name)
				fit := d.Descriptions()
				t.Logf("%s limit %d: %d bytes, %d of %d kept, to depth %d, fits %t", d.Name, limit, d.JSONSize(), fit.Kept, fit.Total, fit.Depth, fit.Fits)
				if fit.Fits {
					require.LessOrEqual(t, d.JSONSize(), int64(limit))
				}
			}
		}
	}
}
