package resolver

import (
	"math"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
)

// measure returns the cost of v, a resolved schema or document. It walks
// the whole expansion (a finished $ref target is counted at every use, as
// it is written out at every use), and stops as soon as that is over the
// compile's value budget: the cost it then returns is marked partial and
// is over the budget.
func (r *run) measure(v any) cost {
	m := measurer{left: r.budget.Values + 1}
	c := m.measure(v)
	if m.left < 0 {
		c.Partial = true
	}
	return c
}

// measurer computes costs. left is how many more values it may walk
// (maps, lists and the scalars it is called on); once that is spent it
// stops walking, and the cost it returns is less than the value's.
type measurer struct {
	left int64
}

// unlimited walks any value whole: one already built, or a patch's.
func unlimited() *measurer { return &measurer{left: math.MaxInt64} }

func (m *measurer) measure(v any) cost {
	if m.left--; m.left < 0 {
		return cost{Nodes: 1}
	}
	switch t := v.(type) {
	case map[string]any:
		c := cost{Nodes: 1, Bytes: 2}
		n := 0
		for k, x := range t {
			if k == bundleDefault {
				continue
			}
			n++
			if s, ok := x.(string); ok { // most values: no call
				c.Nodes++
				c.Bytes = sat(c.Bytes + docread.JSONStringLen(k) + 1 + docread.JSONStringLen(s))
				c.Indent++
				c.Depth = max(c.Depth, 1)
				continue
			}
			cc := m.measure(x)
			c.Nodes = sat(c.Nodes + cc.Nodes)
			c.Bytes = sat(c.Bytes + docread.JSONStringLen(k) + 1 + cc.Bytes)
			c.Indent = sat(c.Indent + cc.Indent + cc.Nodes)
			c.Depth = max(c.Depth, cc.Depth+1)
		}
		if n > 1 {
			c.Bytes = sat(c.Bytes + int64(n-1))
		}
		return c
	case []any:
		c := cost{Nodes: 1, Bytes: 2}
		for _, x := range t {
			cc := m.measure(x)
			c.Nodes = sat(c.Nodes + cc.Nodes)
			c.Bytes = sat(c.Bytes + cc.Bytes)
			c.Indent = sat(c.Indent + cc.Indent + cc.Nodes)
			c.Depth = max(c.Depth, cc.Depth+1)
		}
		if len(t) > 1 {
			c.Bytes = sat(c.Bytes + int64(len(t)-1))
		}
		return c
	case []string:
		c := cost{Nodes: 1 + int64(len(t)), Bytes: 2 + int64(max(len(t)-1, 0)), Indent: int64(len(t))}
		if len(t) > 0 {
			c.Depth = 1
		}
		for _, s := range t {
			c.Bytes += docread.JSONStringLen(s)
		}
		return c
	}
	return cost{Nodes: 1, Bytes: docread.ScalarJSONLen(v)}
}
