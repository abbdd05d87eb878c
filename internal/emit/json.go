package emit

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
)

// AppendJSON appends v's compact JSON to dst: the bytes json.Marshal(v)
// returns (keys sorted, HTML characters escaped), leaving out PrivateKey,
// written from the value itself (see resolver's Document.AppendJSON for
// why it is hand-written).
func AppendJSON(dst []byte, v any) []byte {
	var j jsonEmitter
	return j.value(dst, v)
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
		if k != PrivateKey {
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
