package resolver

import "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/emit"

// AppendJSON appends the CRD's compact JSON to dst: the bytes
// json.Marshal(d.Object()) returns (keys sorted, HTML characters
// escaped), JSONSize of them, written from the compiled value itself. A
// hand-written piece, kept because a user workload shows it: hack/bench.sh's
// `check` of the generated projects sends every CRD to the validator as
// JSON, and json.Marshal of Object (a copy of each CRD, then reflection over
// every map) took that workload more than a tenth more CPU and half again
// its memory. Safe for concurrent use with other AppendJSON calls; not
// with a compile running on the Compiler.
func (d Document) AppendJSON(dst []byte) []byte {
	return emit.AppendJSON(dst, d.obj)
}

// View returns the CRD as Object does, as plain JSON-like values, but
// shared: a subtree without the compiler's private keys is the compiled
// document's own (and so the same maps as in the other documents of its
// Compiler that use the same $ref target); only the maps and lists on the
// way to a private key are copies. Read it, never change it. A project's
// outputs compare and hash their CRDs through views, so a subtree they
// share is the same map in each.
func (d Document) View() map[string]any {
	v, _ := view(d.obj)
	return v.(map[string]any)
}

// view returns v without the private keys, sharing what holds none; it
// reports whether it made a copy.
func view(v any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		// What was read before a copy is needed is the original.
		var out map[string]any
		for k, x := range t {
			nx, copied := x, false
			if k != bundleDefault {
				nx, copied = view(x)
			}
			if out == nil && (copied || k == bundleDefault) {
				out = make(map[string]any, len(t))
				for k2, x2 := range t {
					if k2 != bundleDefault {
						out[k2] = x2
					}
				}
			}
			if out != nil && k != bundleDefault {
				out[k] = nx
			}
		}
		if out == nil {
			return t, false
		}
		return out, true
	case []any:
		return cowList(t, view)
	}
	return v, false
}
