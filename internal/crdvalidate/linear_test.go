package crdvalidate

import (
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/lineartest"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// TestLinearWork: validate's files are split into documents with allocations growing at
// most linearly in each dimension of the input.
func TestLinearWork(t *testing.T) {
	if testing.Short() {
		t.Skip("measures inputs up to a few MB")
	}
	lineartest.Check(t, lineartest.CRDShapes(), lineartest.Allocs(func(src []byte) {
		if _, err := splitDocuments(project.ValidationDoc{Name: "x", Content: string(src)}); err != nil {
			t.Fatal(err)
		}
	}))
}
