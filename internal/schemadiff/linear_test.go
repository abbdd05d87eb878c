package schemadiff

import (
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/lineartest"
)

// TestLinearWork: what check and build --fail-on-change read back, and diff's files, are
// parsed and compared with allocations growing at most linearly in each dimension of the
// input.
func TestLinearWork(t *testing.T) {
	if testing.Short() {
		t.Skip("measures inputs up to a few MB")
	}
	lineartest.Check(t, lineartest.CRDShapes(), lineartest.Allocs(func(src []byte) {
		crds, err := Parse("x", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		Compare(crds, crds)
	}))
}
