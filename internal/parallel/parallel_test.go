package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"

	_ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

// TestEach: every index is called exactly once, on one core and on many.
func TestEach(t *testing.T) {
	for _, procs := range []int{1, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for _, n := range []int{0, 1, 3, 100} {
				calls := make([]atomic.Int32, n)
				Each(n, func(i int) { calls[i].Add(1) })
				for i := range calls {
					if c := calls[i].Load(); c != 1 {
						t.Errorf("GOMAXPROCS %d, n %d: f(%d) called %d times", procs, n, i, c)
					}
				}
			}
		}()
	}
}
