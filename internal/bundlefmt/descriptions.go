package bundlefmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SplitDescriptions splits the JSON of a definition in two: its structure, the definition
// without the "description" (a string) of any schema node, and its descriptions, a JSON
// object from the JSON pointer of each such node (inside the definition, "" for its root)
// to the text, nil when there is none. Both are compact, keys sorted, numbers as written,
// '<', '>' and '&' unescaped (Encode). The schema nodes are those a compile walks (WalkSchemas), so
// a compile that removes descriptions may read the structure alone.
func SplitDescriptions(def []byte) (structure, descriptions []byte, err error) {
	v, err := Decode(def)
	if err != nil {
		return nil, nil, err
	}
	s, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errors.New("not a JSON object")
	}
	descs := map[string]string{}
	WalkSchemas(s, "", func(node map[string]any, ptr string) {
		if d, ok := node["description"].(string); ok {
			descs[ptr] = d
			delete(node, "description")
		}
	})
	if structure, err = Encode(s); err != nil {
		return nil, nil, err
	}
	if len(descs) > 0 {
		if descriptions, err = Encode(descs); err != nil {
			return nil, nil, err
		}
	}
	return structure, descriptions, nil
}

// JoinDescriptions puts descriptions (nil: none) back into structure, as SplitDescriptions
// split them, and returns the definition's JSON: the JSON SplitDescriptions was given, byte
// for byte, when that was compact with sorted keys (as the generator writes it).
func JoinDescriptions(structure, descriptions []byte) ([]byte, error) {
	v, err := Decode(structure)
	if err != nil {
		return nil, err
	}
	if descriptions != nil {
		var descs map[string]string
		if err := json.Unmarshal(descriptions, &descs); err != nil {
			return nil, fmt.Errorf("descriptions: %w", err)
		}
		if len(descs) == 0 {
			return nil, errors.New("descriptions: an empty set of descriptions is stored as none")
		}
		for ptr, text := range descs {
			node, err := Lookup(v, ptr)
			if err != nil {
				return nil, fmt.Errorf("descriptions: %w", err)
			}
			m, ok := node.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("descriptions: %q names no schema", ptr)
			}
			if _, has := m["description"]; has {
				return nil, fmt.Errorf("descriptions: %q has a description in the structure too", ptr)
			}
			m["description"] = text
		}
	}
	return Encode(v)
}

// Schema keys by the shape of their value: SchemaValued keys hold one schema (items: or a
// list of them), SchemaLists keys a list of schemas, SchemaMaps keys a map of name to schema.
// Every other key of a schema (default, enum, example, x-kubernetes-validations...) is data,
// never walked: a "$ref" inside a default value is just a string. This is the one statement
// of a schema's children, for WalkSchemas and for resolver's walks. Switches, not sets: they
// run for every key of every schema.
func SchemaValued(k string) bool {
	switch k {
	case "items", "additionalProperties", "not", "additionalItems":
		return true
	}
	return false
}

// SchemaLists: see SchemaValued.
func SchemaLists(k string) bool {
	switch k {
	case "allOf", "anyOf", "oneOf":
		return true
	}
	return false
}

// SchemaMaps: see SchemaValued.
func SchemaMaps(k string) bool {
	switch k {
	case "properties", "patternProperties", "definitions", "dependencies":
		return true
	}
	return false
}

// WalkSchemas calls fn with every schema node of the decoded schema s, s first, and its
// JSON pointer (under ptr), parent before children: the nodes resolver's walkSchemas visits (the
// children SchemaValued, SchemaLists and SchemaMaps name). fn may change the node's other
// keys.
func WalkSchemas(s map[string]any, ptr string, fn func(node map[string]any, ptr string)) {
	fn(s, ptr)
	visit := func(v any, ptr string) {
		if m, ok := v.(map[string]any); ok {
			WalkSchemas(m, ptr, fn)
		}
	}
	visitList := func(v any, ptr string) {
		if list, ok := v.([]any); ok {
			for i, item := range list {
				visit(item, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	for k, child := range s {
		kp := ptr + "/" + escapeToken(k)
		switch {
		case SchemaValued(k):
			visit(child, kp)
			visitList(child, kp)
		case SchemaLists(k):
			visitList(child, kp)
		case SchemaMaps(k):
			if m, ok := child.(map[string]any); ok {
				for name, c := range m {
					visit(c, kp+"/"+escapeToken(name))
				}
			}
		}
	}
}

// Lookup returns the value at the JSON pointer ptr in v.
func Lookup(v any, ptr string) (any, error) {
	if ptr == "" {
		return v, nil
	}
	if ptr[0] != '/' {
		return nil, fmt.Errorf("%q is not a JSON pointer", ptr)
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := v.(type) {
		case map[string]any:
			next, ok := t[tok]
			if !ok {
				return nil, fmt.Errorf("%q names no schema", ptr)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) || strconv.Itoa(i) != tok {
				return nil, fmt.Errorf("%q names no schema", ptr)
			}
			v = t[i]
		default:
			return nil, fmt.Errorf("%q names no schema", ptr)
		}
	}
	return v, nil
}

func escapeToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// Decode parses one JSON value into map[string]any, []any, string, bool,
// json.Number (numbers kept as written) and nil: encoding/json with
// UseNumber, and nothing after the value.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("JSON at offset %d: data after the top-level value", dec.InputOffset())
	}
	return v, nil
}

// Encode writes compact JSON, map keys sorted, without escaping '<', '>' and '&': the form
// of every definition a bundle stores.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
