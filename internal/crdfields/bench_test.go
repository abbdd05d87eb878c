package crdfields

import (
	"os"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// BenchmarkFieldTables: what a process pays, once, to build the field
// tables BadFields judges by (v1 from the newest bundle, v1beta1 from
// 1.21's), bundles already decoded.
func BenchmarkFieldTables(b *testing.B) {
	v1, err := schemas.Load(schemas.Latest())
	if err != nil {
		b.Fatal(err)
	}
	v1beta1, err := schemas.Load(fieldsV1beta1Minor)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := readFields(v1, "v1"); err != nil {
			b.Fatal(err)
		}
		if _, err := readFields(v1beta1, "v1beta1"); err != nil {
			b.Fatal(err)
		}
	}
}

// daskCRD is the compiled DaskCluster CRD of the repository (dist/), a
// real CRD with its whole expanded schema.
func daskCRD(b *testing.B) map[string]any {
	raw, err := os.ReadFile("../../dist/daskcluster.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	return doc
}

// BenchmarkMinorProblems: judging the compiled DaskCluster CRD for the
// newest minor, as a fresh process does (nothing cached but the decoded
// bundle); Warm judges it again with what the first judging cached, as a
// compile of many templates does.
func BenchmarkMinorProblems(b *testing.B) {
	doc := daskCRD(b)
	latest := schemas.Latest()
	here, err := schemas.Load(latest)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Fresh", func(b *testing.B) {
		for b.Loop() {
			if p := MinorProblems(doc, "v1", NewMinor(latest, here), false, nil); len(p) != 0 {
				b.Fatal(p)
			}
		}
	})
	b.Run("Warm", func(b *testing.B) {
		minor := NewMinor(latest, here)
		for b.Loop() {
			if p := MinorProblems(doc, "v1", minor, false, nil); len(p) != 0 {
				b.Fatal(p)
			}
		}
	})
}
