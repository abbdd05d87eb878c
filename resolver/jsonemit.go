package resolver

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// AppendJSON appends the CRD's compact JSON to dst: the bytes
// json.Marshal(d.Object()) returns (keys sorted, HTML characters
// escaped), JSONSize of them. It writes from the compiled value itself,
// with no copy of it: the subtrees a document shares with the Compiler's
// cache (a PodSpec in every template) are encoded once per Compiler and
// copied from then on.
//
// Hand-written rather than json.Marshal of Object: that copies the whole
// CRD into fresh maps and sorts every mapping's keys again, and for a
// project of 1,000 templates embedding a PodTemplateSpec the copies and
// their collection took check ten seconds of its time (issue 21).
//
// Safe for concurrent use with other AppendJSON calls, also of documents
// of the same Compiler (they share its cache, under a lock); not with a
// compile running on that Compiler.
func (d Document) AppendJSON(dst []byte) []byte {
	if d.render == nil { // a Document made without a compile
		b, _ := json.Marshal(d.Object())
		return append(dst, b...)
	}
	d.render.jsonMu.Lock()
	defer d.render.jsonMu.Unlock()
	j := jsonEmitter{cache: d.render}
	return j.value(dst, d.obj)
}

// jsonEmitter writes compact JSON of compiled values, shared subtrees
// from the render cache's JSON texts.
type jsonEmitter struct {
	cache *renderCache
	keys  [][]string // key buffers, by depth
	depth int
}

func (j *jsonEmitter) value(b []byte, v any) []byte {
	switch t := v.(type) {
	case string:
		return appendJSONString(b, t)
	case map[string]any:
		id := mapID(t)
		if _, ok := j.cache.shared[id]; !ok {
			return j.object(b, t)
		}
		if text, ok := j.cache.json[id]; ok {
			return append(b, text...)
		}
		start := len(b)
		b = j.object(b, t)
		j.remember(id, b[start:])
		return b
	case *lazyEntry:
		id := unsafe.Pointer(t)
		if text, ok := j.cache.json[id]; ok {
			return append(b, text...)
		}
		start := len(b)
		b = j.value(b, t.mustValue())
		j.remember(id, b[start:])
		return b
	case []any:
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = j.value(b, x)
		}
		return append(b, ']')
	case []string:
		b = append(b, '[')
		for i, s := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
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

func (j *jsonEmitter) remember(id unsafe.Pointer, text []byte) {
	if j.cache.json == nil {
		j.cache.json = map[unsafe.Pointer][]byte{}
	}
	j.cache.json[id] = slices.Clone(text)
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
	if jsonStringLen(s) == int64(len(s))+2 && utf8.ValidString(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	text, _ := json.Marshal(s) // a string always encodes
	return append(b, text...)
}

// jsonCache is the part of renderCache AppendJSON and View use.
type jsonCache struct {
	jsonMu sync.Mutex
	json   map[unsafe.Pointer][]byte // JSON texts of shared subtrees and lazy entries
	views  map[unsafe.Pointer]any    // their views
}

// View returns the CRD as Object does, as plain JSON-like values, but
// shared: the subtrees it has in common with the other documents of its
// Compiler (the $ref targets it cached) are the same maps in each view,
// copied once per Compiler. Read it, never change it. A project's
// outputs compare and hash their CRDs through views, so what they share
// is compared once (project/twins.go). Safe for concurrent use as
// AppendJSON is.
func (d Document) View() map[string]any {
	if d.render == nil {
		return d.Object()
	}
	d.render.jsonMu.Lock()
	defer d.render.jsonMu.Unlock()
	return copyClean(d.obj, d.render).(map[string]any)
}

func (c *renderCache) remember(id unsafe.Pointer, v any) {
	if c.views == nil {
		c.views = map[unsafe.Pointer]any{}
	}
	c.views[id] = v
}
