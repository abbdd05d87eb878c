package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// TestCorpusAgreesWithTheAPIServer creates every custom resource of the
// corpus (testdata/resources/cases, whose first lines say what
// `k8s-crd-resolver validate` must answer, held by
// internal/crdvalidate's TestCorpusVerdicts) on the real kube-apiserver,
// as a dry-run create with fieldValidation=Strict (a pruned field is an
// error, as validate reports it by default), against the same CRDs: this
// repository's dist/ and the corpus' CEL widget. The apiserver's verdict
// must be validate's: refused for "invalid", accepted without a warning
// for "valid", accepted with a warning for "warning".
func TestCorpusAgreesWithTheAPIServer(t *testing.T) {
	e := newSUEnv(t)
	ctx := t.Context()
	crds := e.dyn.Resource(crdGVR)
	apply := func(data []byte) string {
		t.Helper()
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			t.Fatal(err)
		}
		raw, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		force := true
		if _, err := crds.Patch(ctx, obj.GetName(), types.ApplyPatchType, raw, metav1.PatchOptions{FieldManager: "corpus-test", Force: &force}); err != nil {
			t.Fatalf("applying CRD %s: %v", obj.GetName(), err)
		}
		return obj.GetName()
	}
	var names []string
	dist, err := filepath.Glob("../dist/dask*.yaml")
	if err != nil || len(dist) == 0 {
		t.Fatalf("no CRDs in dist/: %v", err)
	}
	for _, f := range dist {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, apply(b))
	}
	// The widget, compiled from its template as the corpus test compiles it.
	out, err := yaml.Marshal(compileTemplate(t, "resolve", "testdata/resources/widget.template.yaml", "-r", "--no-config", "--no-validate").Object)
	if err != nil {
		t.Fatal(err)
	}
	widget := apply(out)
	names = append(names, widget)
	t.Cleanup(func() { _ = crds.Delete(context.WithoutCancel(ctx), widget, metav1.DeleteOptions{}) })
	for _, name := range names {
		eventually(t, name+" Established", func(ctx context.Context) (bool, string, error) {
			got, err := crds.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, "", nil
				}
			}
			return false, "not yet", nil
		})
		// And served: discovery of a new CRD lags its Established condition.
		got, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		group, _, _ := unstructured.NestedString(got.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(got.Object, "spec", "names", "plural")
		versions, _, _ := unstructured.NestedSlice(got.Object, "spec", "versions")
		for _, v := range versions {
			m, _ := v.(map[string]any)
			if m["served"] != true {
				continue
			}
			gvr := schema.GroupVersionResource{Group: group, Version: m["name"].(string), Resource: plural}
			eventually(t, gvr.String()+" served", func(ctx context.Context) (bool, string, error) {
				_, err := e.dyn.Resource(gvr).Namespace(e.ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					return false, err.Error(), nil
				}
				return true, "", nil
			})
		}
	}

	files, err := filepath.Glob("../testdata/resources/cases/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(b), "\n")
			verdict := strings.Fields(strings.TrimPrefix(first, "# want: "))[0]
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(b, &obj.Object); err != nil {
				t.Fatal(err)
			}
			obj.SetNamespace(e.ns)
			gv, err := schema.ParseGroupVersion(obj.GetAPIVersion())
			if err != nil {
				t.Fatal(err)
			}
			plural := strings.ToLower(obj.GetKind()) + "s"
			e.warn.take()
			// An unserved or unknown version is a 404: refused, as validate
			// refuses it.
			_, cerr := e.dyn.Resource(gv.WithResource(plural)).Namespace(e.ns).Create(t.Context(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
			warns := e.warn.take()
			switch verdict {
			case "valid":
				if cerr != nil || len(warns) > 0 {
					t.Errorf("validate says valid; the apiserver: error %v, warnings %q", cerr, warns)
				}
			case "invalid":
				if cerr == nil {
					t.Errorf("validate says invalid; the apiserver accepted it (warnings %q)", warns)
				}
			case "warning":
				if cerr != nil || len(warns) == 0 {
					t.Errorf("validate says accepted with a warning; the apiserver: error %v, warnings %q", cerr, warns)
				}
			default:
				t.Fatalf("unknown verdict %q", verdict)
			}
		})
	}
}
