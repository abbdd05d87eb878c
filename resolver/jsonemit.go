package resolver

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
)

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
	var j jsonEmitter
	return j.value(dst, d.obj)
}

// jsonEmitter writes compact JSON of compiled values.
type jsonEmitter struct {
	keys  [][]string // key buffers, by depth
	depth int
}

func (j *jsonEmitter) value(b []byte, v any) []byte {
	switch t := v.(type) {
	case string:
		return appendJSONString(b, t)
	case map[string]any:
		return j.object(b, t)
	case []any:
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = j.value(b, x)
		}
		return append(b, ']')
	case bool:
		return strconv.AppendBool(b, t)
	case nil:
		return append(b, "null"...)
	case json.Number:
		if t == "" {
			return append(b, '0') // as encoding/json writes an empty Number
		}
		return append(b, t...)
	case int:
		return strconv.AppendInt(b, int64(t), 10)
	case int64:
		return strconv.AppendInt(b, t, 10)
	}
	// Anything else (floats from a patch, say) as encoding/json writes it.
	text, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...) // unreachable for compiled values, which came from JSON or YAML
	}
	return append(b, text...)
}

func (j *jsonEmitter) object(b []byte, m map[string]any) []byte {
	for len(j.keys) <= j.depth {
		j.keys = append(j.keys, nil)
	}
	keys := j.keys[j.depth][:0]
	for k := range m {
		if k != bundleDefault {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	j.keys[j.depth] = keys
	j.depth++
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = j.value(b, m[k])
	}
	j.depth--
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it (see
// jsonStringLen): most strings need no escape and are copied whole.
func appendJSONString(b []byte, s string) []byte {
	if docread.JSONStringLen(s) == int64(len(s))+2 && utf8.ValidString(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	text, _ := json.Marshal(s) // a string always encodes
	return append(b, text...)
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
