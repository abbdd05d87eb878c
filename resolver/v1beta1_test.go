package resolver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// compileCase compiles testdata/compile/<name> and returns its one CRD.
func compileCase(t *testing.T, name string) map[string]any {
	t.Helper()
	dir := filepath.Join("../testdata/compile", name)
	co, opts := loadCase(t, dir)
	c, err := resolver.New(opts)
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(dir, co.Template))
	require.NoError(t, err)
	res, err := c.Compile(co.Template, src)
	require.NoError(t, err)
	require.Len(t, res.Documents, 1)
	return res.Documents[0].Object()
}

func validate(t *testing.T, obj map[string]any) field.ErrorList {
	t.Helper()
	crd, err := oracle.Decode(obj)
	require.NoError(t, err)
	return crd.Validate(t.Context())
}

// TestV1beta1Defaults: a v1beta1 CRD embedding a PodSpec needs the ports'
// protocol default, and the apiserver's own validation rejects defaults
// unless spec.preserveUnknownFields is false. The compiled CRD passes; the
// same CRD with preserveUnknownFields left at its v1beta1 default (true),
// as the compiler produced it before, is rejected for exactly that reason.
func TestV1beta1Defaults(t *testing.T) {
	obj := compileCase(t, "v1beta1-pod")
	spec := obj["spec"].(map[string]any)
	require.Equal(t, false, spec["preserveUnknownFields"])
	require.Empty(t, validate(t, obj))

	delete(spec, "preserveUnknownFields")
	errs := validate(t, obj)
	require.Len(t, errs, 1, "%v", errs)
	require.Equal(t, "spec.preserveUnknownFields", errs[0].Field)
	require.Equal(t, "must be false in order to use defaults in the schema", errs[0].Detail)

	// The author's preserveUnknownFields: true stands; the CRD holds no
	// default, so the same validation accepts it.
	obj = compileCase(t, "v1beta1-preserve-unknown-fields")
	require.Equal(t, true, obj["spec"].(map[string]any)["preserveUnknownFields"])
	require.Empty(t, validate(t, obj))
	schema := obj["spec"].(map[string]any)["validation"].(map[string]any)["openAPIV3Schema"].(map[string]any)
	require.Empty(t, defaultsIn(schema, ""))
	// ... and would reject one default added to it.
	props := schema["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
	props["replicas"] = map[string]any{"type": "integer", "default": 1}
	errs = validate(t, obj)
	require.Len(t, errs, 1, "%v", errs)
	require.Equal(t, "must be false in order to use defaults in the schema", errs[0].Detail)
}

// defaultsIn lists the paths of every default in a schema.
func defaultsIn(v any, path string) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if k == "default" && !strings.HasSuffix(path, "/properties") {
				out = append(out, path)
				continue
			}
			if k == "enum" || k == "example" {
				continue
			}
			out = append(out, defaultsIn(x, path+"/"+k)...)
		}
	case []any:
		for _, x := range t {
			out = append(out, defaultsIn(x, path)...)
		}
	}
	return out
}
