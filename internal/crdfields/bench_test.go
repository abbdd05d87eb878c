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
	for _, v := range []string{schemas.Latest(), fieldsV1beta1Minor} {
		if _, err := schemas.Load(v); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := bundleFields(schemas.Latest(), "v1"); err != nil {
			b.Fatal(err)
		}
		if _, err := bundleFields(fieldsV1beta1Minor, "v1beta1"); err != nil {
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
	load := func(v string) (Definitions, error) { b, err := schemas.Load(v); return b, err }
	b.Run("Fresh", func(b *testing.B) {
		for b.Loop() {
			if p := MinorProblems(doc, "v1", latest, here, load, nil, false, nil); len(p) != 0 {
				b.Fatal(p)
			}
		}
	})
	b.Run("Warm", func(b *testing.B) {
		props := map[string]map[string]any{}
		for b.Loop() {
			if p := MinorProblems(doc, "v1", latest, here, load, props, false, nil); len(p) != 0 {
				b.Fatal(p)
			}
		}
	})
}
