package schemadiff_test

import (
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/schemadiff"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// daskOutputs compiles the repository's Dask templates (every set of .crd-resolver.yaml)
// for one Kubernetes version and parses the results.
func daskOutputs(b *testing.B, version string) [][]*schemadiff.CRD {
	b.Helper()
	proj, err := project.Open("../..", project.Options{Policy: project.Policy{KubernetesVersion: version}})
	if err != nil {
		b.Fatal(err)
	}
	outs, err := proj.Compile(nil)
	if err != nil {
		b.Fatal(err)
	}
	var res [][]*schemadiff.CRD
	for _, o := range outs {
		crds, err := schemadiff.FromObjects(o.Template.Name, o.Objects())
		if err != nil {
			b.Fatal(err)
		}
		res = append(res, crds)
	}
	return res
}

// BenchmarkCompareDask compares every compiled Dask CRD (both sets: without and with
// Kubernetes' descriptions, 8 CRDs) between Kubernetes 1.25 (the oldest minor that takes
// them all: daskautoscaler has x-kubernetes-validations) and 1.37: the comparison alone.
func BenchmarkCompareDask(b *testing.B) {
	old, new := daskOutputs(b, "1.25"), daskOutputs(b, "1.37")
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for i := range old {
			n += len(schemadiff.Compare(old[i], new[i]).Changes)
		}
		if n == 0 {
			b.Fatal("no changes between 1.25 and 1.37")
		}
	}
}

// BenchmarkParseAndCompareDask adds parsing the YAML of both sides, what `diff OLD NEW`
// and check do per file.
func BenchmarkParseAndCompareDask(b *testing.B) {
	var old, new [][]byte
	for _, side := range []struct {
		v   string
		dst *[][]byte
	}{{"1.25", &old}, {"1.37", &new}} {
		proj, err := project.Open("../..", project.Options{Policy: project.Policy{KubernetesVersion: side.v}})
		if err != nil {
			b.Fatal(err)
		}
		outs, err := proj.Compile(nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range outs {
			data, err := o.Bytes()
			if err != nil {
				b.Fatal(err)
			}
			*side.dst = append(*side.dst, data)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		for i := range old {
			o, err := schemadiff.Parse("old", old[i], 0)
			if err != nil {
				b.Fatal(err)
			}
			n, err := schemadiff.Parse("new", new[i], 0)
			if err != nil {
				b.Fatal(err)
			}
			schemadiff.Compare(o, n)
		}
	}
}
