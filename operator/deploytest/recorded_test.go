package deploytest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// recordedDir holds built-in objects with the real kube-apiserver's
// verdicts; its kustomize-*.yaml files are this repository's kustomize
// output (README.md there).
const recordedDir = "../../testdata/apiserver-recorded"

// TestRecordedObjectsAreKustomize: each kustomize-*.yaml of
// testdata/apiserver-recorded is, after its recorded comment, an object of
// `kubectl kustomize deploy` (which TestKustomizeMatchesChart holds to the
// chart's), and every object of that build but its CRDs has one: a change
// to deploy/ or the chart is re-recorded, not left behind.
func TestRecordedObjectsAreKustomize(t *testing.T) {
	files, err := filepath.Glob(recordedDir + "/kustomize-*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no kustomize-*.yaml in %s: %v", recordedDir, err)
	}
	key := func(o *unstructured.Unstructured) string {
		return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
	}
	want := map[string]*unstructured.Unstructured{}
	for _, o := range buildKustomize(t).objects {
		want[key(o)] = o
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The recorded verdict is the file's leading comment.
		for bytes.HasPrefix(b, []byte("#")) {
			_, b, _ = bytes.Cut(b, []byte("\n"))
		}
		got := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(b, &got.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		w, ok := want[key(got)]
		if !ok {
			t.Errorf("%s: %s is not in the kustomize build of deploy/", filepath.Base(f), key(got))
			continue
		}
		delete(want, key(got))
		if d := cmp.Diff(w.Object, got.Object); d != "" {
			t.Errorf("%s differs from the kustomize build (-) (update it and re-record: testdata/apiserver-recorded/README.md):\n%s", filepath.Base(f), d)
		}
	}
	for k := range want {
		if !strings.HasPrefix(k, "CustomResourceDefinition ") {
			t.Errorf("the kustomize build has %s, which testdata/apiserver-recorded lacks", k)
		}
	}
}
