package resolver

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeJSON parses one JSON value into map[string]any, []any, string,
// bool, json.Number and nil, like encoding/json with UseNumber but without
// reflection: bundle definitions are decoded on every compile, and this is
// several times faster. Duplicate keys keep the last value, as
// encoding/json does.
func decodeJSON(data []byte) (any, error) {
	return decodeJSONSkipping(data, "")
}

// decodeJSONSkipping is decodeJSON leaving out every object member named
// skip (its value is checked, not kept), so text that would be thrown away
// (descriptions under -r) is never allocated.
func decodeJSONSkipping(data []byte, skip string) (any, error) {
	return (&jsonDecoder{data: data, skip: skip}).all()
}

// all decodes the one value of d's data.
func (d *jsonDecoder) all() (any, error) {
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, d.errorf("data after the top-level value")
	}
	return v, nil
}

type jsonDecoder struct {
	data []byte
	pos  int
	skip string
	// skipTop are members (few) of the top-level object whose values,
	// when mappings, are checked and left out: each becomes
	// skippedMapping{}. A lazy target replaces those values with its
	// entries (lazyTarget), so building them is work thrown away: for
	// PodSpec, most of its text.
	skipTop []string
	// shared says data never changes and lives as long as the process (a
	// bundle's chunk): a string without escapes is then data's own bytes,
	// not a copy. A compile with descriptions decoded 1.5 MB of them for
	// this repository's operator set, every byte copied onto fresh heap
	// pages after the chunk's.
	shared bool
}

// skippedMapping stands for a member value a decode left out
// (jsonDecoder.skipTop).
type skippedMapping struct{}

// members calls f with each member of the object that is d's data, in
// order, its value decoded; a member whose key skip (when not nil) reports
// is passed over, its value checked as skipValue checks it, never built.
// What follows the object is an error.
func (d *jsonDecoder) members(skip func(k string) bool, f func(k string, v any) error) error {
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return d.errorf("expected an object")
	}
	d.pos++
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
	} else {
		for {
			k, err := d.key(d.string)
			if err != nil {
				return err
			}
			if skip != nil && skip(k) {
				if err := d.skipValue(1); err != nil {
					return err
				}
			} else {
				v, err := d.value(1)
				if err != nil {
					return err
				}
				if err := f(k, v); err != nil {
					return err
				}
			}
			d.space()
			if d.pos >= len(d.data) {
				return d.errorf("unexpected end of input in an object")
			}
			if d.data[d.pos] == '}' {
				d.pos++
				break
			}
			if d.data[d.pos] != ',' {
				return d.errorf("expected ',' or '}'")
			}
			d.pos++
		}
	}
	d.space()
	if d.pos != len(d.data) {
		return d.errorf("data after the top-level value")
	}
	return nil
}

func (d *jsonDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON at offset %d: %s", d.pos, fmt.Sprintf(format, args...))
}

func (d *jsonDecoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, d.errorf("nested more than %d levels deep", maxDepth)
	}
	if d.pos >= len(d.data) {
		return nil, d.errorf("unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.stringInterned()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	default:
		return nil, d.errorf("unexpected character %q", c)
	}
}

func (d *jsonDecoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.errorf("expected %s", word)
	}
	d.pos += len(word)
	return nil
}

func (d *jsonDecoder) object(depth int) (any, error) {
	d.pos++ // {
	m := map[string]any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		k, err := d.key(d.stringInterned)
		if err != nil {
			return nil, err
		}
		if depth == 0 && len(d.skipTop) > 0 && d.pos < len(d.data) && d.data[d.pos] == '{' && slices.Contains(d.skipTop, k) {
			if err := d.skipValue(depth + 1); err != nil {
				return nil, err
			}
			m[k] = skippedMapping{}
		} else if d.skip != "" && k == d.skip && d.pos < len(d.data) && d.data[d.pos] == '"' {
			if err := d.skipString(); err != nil {
				return nil, err
			}
		} else {
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of input in an object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return m, nil
		default:
			return nil, d.errorf("expected ',' or '}'")
		}
	}
}

func (d *jsonDecoder) array(depth int) (any, error) {
	d.pos++ // [
	list := []any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return list, nil
	}
	for {
		d.space()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of input in an array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return list, nil
		default:
			return nil, d.errorf("expected ',' or ']'")
		}
	}
}

func (d *jsonDecoder) number() (any, error) {
	start := d.pos
	s := string(d.numberText())
	if !isJSONNumber(s) {
		d.pos = start
		return nil, d.errorf("malformed number %q", s)
	}
	return json.Number(s), nil
}

// skipValue moves past a value without building it, checking it as value
// would but for the escapes and UTF-8 of its strings (skipString).
func (d *jsonDecoder) skipValue(depth int) error {
	if depth > maxDepth {
		return d.errorf("nested more than %d levels deep", maxDepth)
	}
	if d.pos >= len(d.data) {
		return d.errorf("unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{', c == '[':
		end, what := byte('}'), "an object"
		if c == '[' {
			end, what = ']', "an array"
		}
		d.pos++
		d.space()
		if d.pos < len(d.data) && d.data[d.pos] == end {
			d.pos++
			return nil
		}
		for {
			d.space()
			if c == '{' {
				if _, err := d.key(func() (string, error) { return "", d.skipString() }); err != nil {
					return err
				}
			}
			if err := d.skipValue(depth + 1); err != nil {
				return err
			}
			d.space()
			if d.pos >= len(d.data) {
				return d.errorf("unexpected end of input in %s", what)
			}
			switch d.data[d.pos] {
			case ',':
				d.pos++
			case end:
				d.pos++
				return nil
			default:
				return d.errorf("expected ',' or %q", end)
			}
		}
	case c == '"':
		return d.skipString()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.pos
		if !isJSONNumber(sharedString(d.numberText())) {
			d.pos = start
			return d.errorf("malformed number")
		}
		return nil
	default:
		return d.errorf("unexpected character %q", c)
	}
}

// key reads an object member's key with read, and the colon after it, up
// to its value.
func (d *jsonDecoder) key(read func() (string, error)) (string, error) {
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return "", d.errorf("expected a string key")
	}
	k, err := read()
	if err != nil {
		return "", err
	}
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		return "", d.errorf("expected ':'")
	}
	d.pos++
	d.space()
	return k, nil
}

// numberText moves past what may be a number and returns it, unchecked.
func (d *jsonDecoder) numberText() []byte {
	start := d.pos
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			d.pos++
			continue
		}
		break
	}
	return d.data[start:d.pos]
}

// skipString moves past a string without building it.
func (d *jsonDecoder) skipString() error {
	for i := d.pos + 1; i < len(d.data); i++ {
		if i = stringRun(sharedString(d.data), i); i == len(d.data) {
			break
		}
		switch c := d.data[i]; {
		case c == '\\':
			i++
		case c == '"':
			d.pos = i + 1
			return nil
		case c < 0x20:
			d.pos = i
			return d.errorf("control character in a string")
		}
	}
	return d.errorf("unterminated string")
}

var errBadEscape = errors.New("bad escape")

// interned are the keys and short values schemas repeat thousands of
// times; decoding shares one copy of each instead of allocating it.
var interned = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"type", "description", "properties", "items", "required", "format", "$ref", "default",
		"additionalProperties", "enum", "object", "array", "string", "integer", "number", "boolean",
		"int32", "int64", "double", "byte", "date-time", "int-or-string", "atomic", "map", "set", "granular",
		"x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type",
		"x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-group-version-kind",
		"x-kubernetes-unions", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string",
		"x-kubernetes-embedded-resource", "x-kubernetes-validations", "merge", "retainKeys", "replace",
		"name", "namespace", "key", "value", "kind", "apiVersion", "metadata", "spec", "status", "TCP",
		"allOf", "anyOf", "oneOf", "not", "nullable", "minimum", "maximum", "pattern", "uniqueItems",
	} {
		m[s] = s
	}
	return m
}()

// stringInterned is string() returning the shared copy of common words.
func (d *jsonDecoder) stringInterned() (string, error) {
	start := d.pos + 1
	for i := start; i < len(d.data) && i-start < 40; i++ {
		switch d.data[i] {
		case '"':
			if s, ok := interned[string(d.data[start:i])]; ok {
				d.pos = i + 1
				return s, nil
			}
			return d.string()
		case '\\':
			return d.string()
		}
	}
	return d.string()
}

func (d *jsonDecoder) string() (string, error) {
	d.pos++ // "
	start := d.pos
	// Fast path: no escapes.
	for d.pos < len(d.data) {
		d.pos = stringRun(sharedString(d.data), d.pos)
		if d.pos == len(d.data) {
			break
		}
		c := d.data[d.pos]
		if c == '"' {
			s := d.data[start:d.pos]
			d.pos++
			if d.shared && utf8.Valid(s) {
				return sharedString(s), nil
			}
			return utf8String(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", d.errorf("control character in a string")
		}
		d.pos++
	}
	buf := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return utf8String(buf), nil
		case c < 0x20:
			return "", d.errorf("control character in a string")
		case c != '\\':
			buf = append(buf, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.data) {
			break
		}
		esc := d.data[d.pos+1]
		d.pos += 2
		switch esc {
		case '"', '\\', '/':
			buf = append(buf, esc)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := d.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				// A pair makes one rune; a lone half is U+FFFD and what
				// follows is read on its own, as encoding/json does.
				paired := utf8.RuneError
				if d.pos+5 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
					at := d.pos
					d.pos += 2
					r2, err := d.hex4()
					if err != nil {
						return "", err
					}
					if paired = utf16.DecodeRune(r, r2); paired == utf8.RuneError {
						d.pos = at
					}
				}
				r = paired
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", d.errorf("%v \\%c", errBadEscape, esc)
		}
	}
	return "", d.errorf("unterminated string")
}

func (d *jsonDecoder) hex4() (rune, error) {
	if d.pos+4 > len(d.data) {
		return 0, d.errorf("short \\u escape")
	}
	n, err := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 32)
	if err != nil {
		return 0, d.errorf("bad \\u escape")
	}
	d.pos += 4
	return rune(n), nil
}

// utf8String converts b, replacing each invalid UTF-8 byte with U+FFFD as
// encoding/json does.
func utf8String(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return string(out)
}
