// Package lineartest holds the linear-work test family: inputs that grow along one
// dimension (keys per mapping, mappings, documents, nesting, line length), doubled step by
// step, and the check that what reading them costs, counted in allocations (never wall
// time), grows at most linearly. Tests of check's and diff's reader (schemadiff),
// validate's (crdvalidate) and the configuration's (project) use it.
package lineartest

import (
	"fmt"
	"strings"
	"testing"
)

// Shape is a family of inputs: Gen(n) grows with n along one dimension.
type Shape struct {
	Name  string
	Start int // the smallest n measured; then 2n, 4n, 8n
	Gen   func(n int) []byte
}

// maxGrowth is the most the count may grow when the input doubles: 2 and some slack for
// maps and slices growing by powers of two (a quadratic reader shows 4).
const maxGrowth = 2.5

// Check measures count(Gen(n)) for n, 2n, 4n and 8n of every shape and fails when a
// doubling more than doubles it (beyond slack); it logs the counts and growths.
func Check(t *testing.T, shapes []Shape, count func(t *testing.T, src []byte) float64) {
	for _, s := range shapes {
		t.Run(s.Name, func(t *testing.T) {
			var prev float64
			var growths []string
			for i, n := 0, s.Start; i < 4; i, n = i+1, n*2 {
				c := count(t, s.Gen(n))
				if i > 0 {
					g := c / prev
					growths = append(growths, fmt.Sprintf("%.2f", g))
					if g > maxGrowth {
						t.Errorf("n %d -> %d: the count grows from %.0f to %.0f (x%.2f): not linear", n/2, n, prev, c, g)
					}
				}
				prev = c
			}
			t.Logf("growth per doubling: %s (last count %.0f)", strings.Join(growths, ", "), prev)
		})
	}
}

// Allocs is a count function: the allocations of f on src, averaged over a few runs.
func Allocs(f func(src []byte)) func(t *testing.T, src []byte) float64 {
	return func(t *testing.T, src []byte) float64 {
		return testing.AllocsPerRun(2, func() { f(src) })
	}
}

// crd is one CRD document named after i whose schema is schema.
func crd(i int, schema string) string {
	return fmt.Sprintf("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: w%d.example.com\nspec:\n  group: example.com\n  names:\n    kind: W%d\n    plural: w%d\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n%s", i, i, i, schema)
}

// CRDShapes are CRD streams growing along each dimension, as check, diff and validate read
// them: a mapping of n keys (properties), n mappings in a list (rules), n documents,
// properties nested n deep, and a line of n bytes (a description), in block YAML and, for
// keys, in JSON too.
func CRDShapes() []Shape {
	const indent = "        "
	return []Shape{
		{"keys per mapping", 2000, func(n int) []byte {
			var b strings.Builder
			b.WriteString(indent + "type: object\n" + indent + "properties:\n")
			for i := range n {
				fmt.Fprintf(&b, "%s  p%d: {type: string}\n", indent, i)
			}
			return []byte(crd(0, b.String()))
		}},
		{"keys per mapping, JSON", 2000, func(n int) []byte {
			var b strings.Builder
			b.WriteString(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"w.example.com"},"spec":{"group":"example.com","names":{"kind":"W","plural":"w"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{`)
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"p%d":{"type":"string"}`, i)
			}
			b.WriteString("}}}}]}}\n")
			return []byte(b.String())
		}},
		{"mappings", 1000, func(n int) []byte {
			var b strings.Builder
			b.WriteString(indent + "type: object\n" + indent + "x-kubernetes-validations:\n")
			for i := range n {
				fmt.Fprintf(&b, "%s- rule: self.a != %d\n%s  message: m%d\n", indent, i, indent, i)
			}
			return []byte(crd(0, b.String()))
		}},
		{"documents", 50, func(n int) []byte {
			var b strings.Builder
			for i := range n {
				b.WriteString("---\n")
				b.WriteString(crd(i, indent+"type: object\n"+indent+"properties:\n"+indent+"  a: {type: string}\n"))
			}
			return []byte(b.String())
		}},
		{"nesting", 100, func(n int) []byte {
			var b strings.Builder
			for i := range n {
				pad := indent + strings.Repeat("  ", 2*i)
				fmt.Fprintf(&b, "%stype: object\n%sproperties:\n%s  p:\n", pad, pad, pad)
			}
			b.WriteString(indent + strings.Repeat("  ", 2*n) + "type: string\n")
			return []byte(crd(0, b.String()))
		}},
		{"line length", 20000, func(n int) []byte {
			return []byte(crd(0, indent+"type: object\n"+indent+"description: "+strings.Repeat("word ", n/5)+"end\n"))
		}},
	}
}
