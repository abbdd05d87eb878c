package resolver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// Input limits. They exist so a hostile or accidental input (a YAML alias
// bomb, a multi-gigabyte file) fails fast with a clear message instead of
// exhausting memory.
const (
	// MaxInputBytes is the largest template or referenced file read.
	MaxInputBytes = 64 << 20
	// maxNodes bounds the values built from one file, after alias expansion.
	maxNodes = 4 << 20
	// maxDepth bounds nesting, so deep input cannot exhaust the stack.
	maxDepth = 2000
)

// document is one YAML or JSON document: its value (maps, slices, string,
// bool, json.Number, nil) and the source position of every value, keyed by
// JSON pointer. For mapping entries the position is the key's.
type document struct {
	file  string
	index int
	value any
	pos   map[string]Position
}

// position returns the position of the value at pointer ptr, or of its
// nearest ancestor that has one.
func (d *document) position(ptr string) Position {
	if d == nil {
		return Position{}
	}
	for {
		if p, ok := d.pos[ptr]; ok {
			return p
		}
		i := lastSlash(ptr)
		if i < 0 {
			return Position{File: d.file}
		}
		ptr = ptr[:i]
	}
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// parseDocuments reads every document of a YAML (or JSON) stream. Empty
// documents are skipped. Errors carry file:line:col.
func parseDocuments(file string, src []byte) ([]*document, error) {
	if err := checkText(file, src); err != nil {
		return nil, err
	}
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	dec := yaml.NewDecoder(bytes.NewReader(src))
	budget := maxNodes
	var docs []*document
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if looksLikeJSON(src) {
				return parseJSONDocument(file, src)
			}
			return nil, yamlError(file, err)
		}
		c := &converter{file: file, pos: map[string]Position{}, budget: &budget}
		v, err := c.value(&n, "", 0)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		docs = append(docs, &document{file: file, index: len(docs), value: v, pos: c.pos})
	}
	return docs, nil
}

func checkText(file string, src []byte) error {
	if len(src) > MaxInputBytes {
		return &Error{Pos: Position{File: file}, Err: fmt.Errorf("%w: file is %d bytes, more than the %d MiB limit", ErrInput, len(src), MaxInputBytes>>20)}
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		line, col := lineCol(src, i)
		return &Error{Pos: Position{File: file, Line: line, Col: col}, Err: fmt.Errorf("%w: NUL byte: this is a binary file, not YAML or JSON text", ErrInput)}
	}
	if !utf8.Valid(src) {
		i := firstInvalidUTF8(src)
		line, col := lineCol(src, i)
		return &Error{Pos: Position{File: file, Line: line, Col: col}, Err: fmt.Errorf("%w: invalid UTF-8: save the file as UTF-8 text", ErrInput)}
	}
	return nil
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

func lineCol(src []byte, off int) (int, int) {
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return line, col
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// yamlError turns a yaml.v3 error into an *Error with a position.
func yamlError(file string, err error) error {
	msg := err.Error()
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Pos: Position{File: file, Line: line}, Err: fmt.Errorf("%w: malformed YAML: %s", ErrInput, m[2])}
	}
	return &Error{Pos: Position{File: file}, Err: fmt.Errorf("%w: malformed YAML: %s", ErrInput, trimYAMLPrefix(msg))}
}

func trimYAMLPrefix(s string) string {
	if len(s) > 6 && s[:6] == "yaml: " {
		return s[6:]
	}
	return s
}

func looksLikeJSON(src []byte) bool {
	t := bytes.TrimLeft(src, " \t\r\n\xef\xbb\xbf")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// parseJSONDocument is the fallback for JSON that YAML cannot read (for
// example tab-indented JSON). Positions are known only for errors.
func parseJSONDocument(file string, src []byte) ([]*document, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		pos := Position{File: file}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			pos.Line, pos.Col = lineCol(src, int(min(se.Offset, int64(len(src)))))
		}
		return nil, &Error{Pos: pos, Err: fmt.Errorf("%w: malformed JSON: %w", ErrInput, err)}
	}
	if dec.More() {
		return nil, &Error{Pos: Position{File: file}, Err: fmt.Errorf("%w: malformed JSON: data after the top-level value", ErrInput)}
	}
	if v == nil {
		return nil, nil
	}
	return []*document{{file: file, value: v, pos: map[string]Position{}}}, nil
}

type converter struct {
	file   string
	pos    map[string]Position
	budget *int
}

func (c *converter) errorf(n *yaml.Node, format string, args ...any) error {
	return &Error{Pos: Position{File: c.file, Line: n.Line, Col: n.Column}, Err: fmt.Errorf("%w: "+format, append([]any{ErrInput}, args...)...)}
}

func (c *converter) value(n *yaml.Node, ptr string, depth int) (any, error) {
	*c.budget--
	if *c.budget < 0 {
		return nil, c.errorf(n, "more than %d values after expanding aliases (a YAML alias bomb?)", maxNodes)
	}
	if depth > maxDepth {
		return nil, c.errorf(n, "nested more than %d levels deep", maxDepth)
	}
	if _, seen := c.pos[ptr]; !seen {
		c.pos[ptr] = Position{File: c.file, Line: n.Line, Col: n.Column}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], ptr, depth+1)
	case yaml.AliasNode:
		return c.value(n.Alias, ptr, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			v, err := c.value(item, ptr+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		if err := c.mapping(n, ptr, depth, out, true); err != nil {
			return nil, err
		}
		return out, nil
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return nil, c.errorf(n, "unsupported YAML node")
}

// mapping fills out with the entries of n. Explicit keys win over merged
// ones (<<), and a key written twice is an error.
func (c *converter) mapping(n *yaml.Node, ptr string, depth int, out map[string]any, explicit bool) error {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return c.errorf(k, "mapping keys must be strings")
		}
		key := k.Value
		if _, dup := out[key]; dup {
			if explicit {
				return c.errorf(k, "key %q is written twice in this mapping", key)
			}
			continue
		}
		kptr := joinPointer(ptr, key)
		c.pos[kptr] = Position{File: c.file, Line: k.Line, Col: k.Column}
		val, err := c.value(v, kptr, depth+1)
		if err != nil {
			return err
		}
		out[key] = val
	}
	for _, m := range merges {
		for m.Kind == yaml.AliasNode {
			m = m.Alias
		}
		switch m.Kind {
		case yaml.MappingNode:
			if err := c.mapping(m, ptr, depth+1, out, false); err != nil {
				return err
			}
		case yaml.SequenceNode:
			for _, item := range m.Content {
				for item.Kind == yaml.AliasNode {
					item = item.Alias
				}
				if item.Kind != yaml.MappingNode {
					return c.errorf(item, "a merge key (<<) takes mappings")
				}
				if err := c.mapping(item, ptr, depth+1, out, false); err != nil {
					return err
				}
			}
		default:
			return c.errorf(m, "a merge key (<<) takes a mapping or a list of mappings")
		}
	}
	return nil
}

// isJSONNumber reports whether s is a number as JSON writes it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func (c *converter) scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		return b, nil
	case "!!int":
		if isJSONNumber(n.Value) {
			return json.Number(n.Value), nil
		}
		var i int64
		if err := n.Decode(&i); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), nil
		}
		var u uint64
		if err := n.Decode(&u); err == nil {
			return json.Number(strconv.FormatUint(u, 10)), nil
		}
		return nil, c.errorf(n, "integer %q out of range", n.Value)
	case "!!float":
		if isJSONNumber(n.Value) {
			return json.Number(n.Value), nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, c.errorf(n, "%s has no JSON form; quote it if you mean a string", n.Value)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	default:
		return n.Value, nil
	}
}
