package project

import (
	"fmt"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/lineartest"
)

// TestLinearWork: a configuration is read (and, past maxConfigKeys in a mapping, refused)
// with allocations growing at most linearly in its patches, sets, nesting and line length.
func TestLinearWork(t *testing.T) {
	if testing.Short() {
		t.Skip("measures inputs up to a few MB")
	}
	shapes := []lineartest.Shape{
		{Name: "keys per mapping", Start: 100, Gen: func(n int) []byte {
			var b strings.Builder
			b.WriteString("sets:\n- templates: [t/*.yaml]\n  outputs: [dist]\n  patches:\n")
			for i := range n {
				fmt.Fprintf(&b, "    t/%d.yaml: p/%d.yaml\n", i, i)
			}
			return []byte(b.String())
		}},
		{Name: "keys per mapping, refused", Start: 2000, Gen: func(n int) []byte {
			var b strings.Builder
			for i := range n {
				fmt.Fprintf(&b, "k%d: v\n", i)
			}
			return []byte(b.String())
		}},
		{Name: "mappings", Start: 100, Gen: func(n int) []byte {
			var b strings.Builder
			b.WriteString("sets:\n")
			for i := range n {
				fmt.Fprintf(&b, "- templates: [t%d/*.yaml]\n  outputs: [dist%d]\n", i, i)
			}
			return []byte(b.String())
		}},
		{Name: "nesting", Start: 100, Gen: func(n int) []byte {
			return []byte("sets: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n")
		}},
		{Name: "line length", Start: 20000, Gen: func(n int) []byte {
			return []byte("sets:\n- templates: [" + strings.Repeat("a", n) + "]\n  outputs: [dist]\n")
		}},
	}
	lineartest.Check(t, shapes, lineartest.Allocs(func(src []byte) { _, _ = ParseConfig("c.yaml", src) }))
}
