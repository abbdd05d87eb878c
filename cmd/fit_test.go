package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestFitDescriptionsFlag: --fit-descriptions on resolve and on the Python
// tool's SRC DST line keeps Kubernetes' descriptions that fit, shallowest
// first; a limit nothing fits is the size guard's error (exit 2, nothing
// written); with -r it is a usage error.
func TestFitDescriptionsFlag(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	tpl := strings.Replace(template, "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{$ref: io.k8s.api.core.v1.ObjectReference}", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widget.yaml"), []byte(tpl), 0o644))
	descriptions := func(text string) []string {
		var obj map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(text), &obj))
		var out []string
		var walk func(v any, path string)
		walk = func(v any, path string) {
			m, _ := v.(map[string]any)
			if _, ok := m["description"]; ok {
				out = append(out, path)
			}
			props, _ := m["properties"].(map[string]any)
			for k, x := range props {
				walk(x, path+"."+k)
			}
		}
		versions, _ := obj["spec"].(map[string]any)["versions"].([]any)
		walk(versions[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"], "")
		return out
	}
	full, stderr, code := runCmd(t, dir, "", "resolve", "widget.yaml", "--k8s-version", "1.37", "--no-validate")
	require.Equal(t, 0, code, stderr)
	all := descriptions(full)
	require.Greater(t, len(all), 2)

	// A limit between the sizes with and without: the field's own
	// description (depth 1) stays, and of its fields' (depth 2) the first
	// in key order.
	fitted, stderr, code := runCmd(t, dir, "", "resolve", "widget.yaml", "--k8s-version", "1.37", "--no-validate", "--fit-descriptions", "1500")
	require.Equal(t, 0, code, stderr)
	kept := descriptions(fitted)
	require.Less(t, len(kept), len(all))
	slices.Sort(kept)
	require.Equal(t, []string{".spec", ".spec.apiVersion", ".spec.fieldPath", ".spec.kind"}, kept)
	require.Less(t, len(fitted), len(full))

	_, stderr, code = runCmd(t, dir, "", "widget.yaml", "out.yaml", "--k8s-version", "1.37", "--fit-descriptions", "1500")
	require.Equal(t, 0, code, stderr)
	legacy, err := os.ReadFile(filepath.Join(dir, "out.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(legacy), strings.TrimPrefix(fitted, "---\n"))

	_, stderr, code = runCmd(t, dir, "", "widget.yaml", "small.yaml", "--k8s-version", "1.37", "--fit-descriptions", "100")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "compiled CRD too large: CRD widgets.example.com is ")
	require.Contains(t, stderr, `more than the 100 bytes fitDescriptions "100" allows`)
	require.NoFileExists(t, filepath.Join(dir, "small.yaml"))

	_, stderr, code = runCmd(t, dir, "", "resolve", "widget.yaml", "--no-validate", "-r", "--fit-descriptions", "helm")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "exclude each other")
}

// TestBuildFitDescriptions: build's summary says what fitDescriptions
// kept, and a CRD too large without any of Kubernetes' descriptions is
// the size guard's error, with nothing written (goldens in testdata/cmd).
func TestBuildFitDescriptions(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	tpl := strings.Replace(template, "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{$ref: io.k8s.api.core.v1.ObjectReference}", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(tpl), 0o644))
	abs, _ := filepath.Abs("../testdata/cmd")
	for _, tc := range []struct {
		limit, golden string
		wantCode      int
	}{
		{"1500", "build-fit.txt", 0},
		{"client-side-apply", "build-fit-all.txt", 0},
		{"500", "build-fit-error.txt", 2},
	} {
		t.Run(tc.limit, func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".crd-resolver.yaml"), []byte("kubernetesVersion: \"1.37\"\nfitDescriptions: "+tc.limit+"\n"), 0o644))
			before, _ := os.ReadFile(filepath.Join(dir, "dist/widget.yaml"))
			stdout, stderr, code := runCmd(t, dir, "", "build", "--no-validate")
			require.Equal(t, tc.wantCode, code, "stderr: %s", stderr)
			golden.Check(t, filepath.Join(abs, tc.golden), []byte(stdout+"--- stderr\n"+stderr))
			if code != 0 {
				after, err := os.ReadFile(filepath.Join(dir, "dist/widget.yaml"))
				require.NoError(t, err)
				require.Equal(t, string(before), string(after), "a failed build wrote its output")
			}
		})
	}
}

// TestClientSideFitCountsOwnAnnotations: client-side apply copies a CRD
// into an annotation beside the CRD's own annotations, so with
// fitDescriptions: client-side-apply (and resolve's --fit-descriptions) a
// CRD with annotations of its own keeps only the descriptions that fit
// beside them: "fits client-side apply" and no size warning in the same
// run; annotations that leave no room are the size guard's error, saying
// so.
func TestClientSideFitCountsOwnAnnotations(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	withAnnotation := func(n int) string {
		tpl := strings.Replace(template, "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{$ref: io.k8s.api.core.v1.PodTemplateSpec}", 1)
		return strings.Replace(tpl, "  name: widgets.example.com\n", "  name: widgets.example.com\n  annotations: {notes: \""+strings.Repeat("x", n)+"\"}\n", 1)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".crd-resolver.yaml"), []byte("kubernetesVersion: \"1.37\"\nfitDescriptions: client-side-apply\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(withAnnotation(60_000)), 0o644))
	stdout, stderr, code := runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "fits client-side apply, 0 warning(s)")
	require.NotContains(t, stdout+stderr, "warning:")

	_, stderr, code = runCmd(t, dir, "", "resolve", "--no-config", "--no-validate", "--fit-descriptions", "client-side-apply", "templates/widget.yaml")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "warning:")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(withAnnotation(150_000)), 0o644))
	_, stderr, code = runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, `fitDescriptions "client-side-apply" allows (client-side apply's, less the CRD's own annotations, which it counts twice)`)
}
