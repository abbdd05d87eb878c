package crdvalidate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// BenchmarkDocuments validates the repository's compiled CRDs as check
// sends them: dist/ (without Kubernetes' descriptions), one document per
// CRD, each as JSON objects. With -run x -bench Documents -cpu 1,2 it shows
// what the second core brings.
func BenchmarkDocuments(b *testing.B) {
	benchmarkDir(b, "../../dist/*.yaml")
}

// BenchmarkDocumentsWithDescriptions: the same for operator/crds/, which
// keep Kubernetes' descriptions (4.8 times the bytes).
func BenchmarkDocumentsWithDescriptions(b *testing.B) {
	benchmarkDir(b, "../../operator/crds/*.yaml")
}

func benchmarkDir(b *testing.B, glob string) {
	files, err := filepath.Glob(glob)
	if err != nil {
		b.Fatal(err)
	}
	var docs []project.ValidationDoc
	size := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(src, []byte("\nkind: CustomResourceDefinition\n")) {
			continue
		}
		raw, err := yaml.YAMLToJSON(src)
		if err != nil {
			b.Fatal(err)
		}
		size += len(raw)
		docs = append(docs, project.ValidationDoc{Name: f, Objects: []json.RawMessage{raw}, KubernetesVersion: "1.37"})
	}
	if len(docs) == 0 {
		b.Fatalf("no CRDs in %s", glob)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, r := range Documents(b.Context(), docs) {
			if len(r.Problems) > 0 {
				b.Fatalf("%s: %v", r.Name, r.Problems)
			}
		}
	}
}

// BenchmarkStream judges a stream of 5,000 small DaskWorkerGroups against
// the compiled Dask CRDs, as `validate --crd dist/ stream.yaml` does: the
// per-object cost hack/bench-validate.sh compares with kubeconform's.
func BenchmarkStream(b *testing.B) {
	crds := corpusCRDs(b)
	const n = 5000
	for b.Loop() {
		judgeWorkerGroups(b, crds, n)
	}
}
