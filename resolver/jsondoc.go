package resolver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The strict JSON reader, for JSON that YAML cannot read (tab
// indentation, a "\/" escape...). It gives the same document{value, pos}
// as the YAML path: the position of every key and value, a key written
// twice is an error at the second, numbers are checked as checkNumber
// says, and the values are charged to the compile's budget.
//
// It is its own small scanner on top of jsonDecoder (the bundle decoder,
// tested against encoding/json on every bundle definition) rather than
// encoding/json's Decoder.Token: Token reports only the offset after each
// token and collapses what a position needs (where a key starts, where a
// malformed number begins) into one syntax error offset.
//
// Several top-level values are several documents, as the documents of a
// YAML stream are (kubectl reads a JSON stream the same way); anything
// else after a value is an error at its position.

type jsonDocReader struct {
	jsonDecoder
	file   string
	lines  []int // offset of the start of every line
	at     map[string]Position
	budget *budget
	// The last position computed: positions are asked for in increasing offsets, so the
	// next one on the same line counts only the characters after it (counting from the
	// start of the line each time is quadratic in a one-line document, which JSON often is).
	lastOff, lastLine, lastCol int
	numbers                    ErrorList // numbers that cannot be read
}

func parseJSONDocuments(file string, src []byte, b *budget) ([]*document, error) {
	r := &jsonDocReader{jsonDecoder: jsonDecoder{data: src}, file: file, lines: []int{0}, budget: b}
	for i, c := range src {
		if c == '\n' {
			r.lines = append(r.lines, i+1)
		}
	}
	var docs []*document
	lastEnd := 0 // where the last value ended
	for {
		r.space()
		if r.pos >= len(src) {
			return r.done(docs, nil)
		}
		if c := src[r.pos]; lastEnd > 0 && !strings.ContainsRune(`{["tfn-0123456789`, rune(c)) {
			return r.done(nil, r.errorAt(r.pos, "found %q after the value that ends at %d:%d; a JSON file holds one value, or several one after another", c, r.position(lastEnd-1).Line, r.position(lastEnd-1).Col))
		}
		r.at = map[string]Position{}
		before := b.used
		v, err := r.value("", 0)
		if err != nil {
			return r.done(nil, err)
		}
		lastEnd = r.pos
		if v != nil {
			docs = append(docs, &document{file: file, index: len(docs), value: v, pos: r.at, cost: b.used.minus(before)})
		}
	}
}

// done returns docs, or every number that cannot be read followed by
// err, the error that stopped the reading, if any.
func (r *jsonDocReader) done(docs []*document, err error) ([]*document, error) {
	if len(r.numbers) == 0 {
		return docs, err
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return nil, err
		}
		return nil, append(r.numbers, e)
	}
	return nil, r.numbers
}

// position turns a byte offset into line:col (columns count characters,
// as yaml.v3 does).
func (r *jsonDocReader) position(off int) Position {
	i, found := slices.BinarySearch(r.lines, off)
	if !found {
		i--
	}
	start := r.lines[i]
	if r.lastLine == i+1 && r.lastOff >= start && r.lastOff <= off {
		r.lastCol += utf8.RuneCount(r.data[r.lastOff:off])
	} else {
		r.lastCol = utf8.RuneCount(r.data[start:off]) + 1
	}
	r.lastOff, r.lastLine = off, i+1
	return Position{File: r.file, Line: i + 1, Col: r.lastCol}
}

func (r *jsonDocReader) errorAt(off int, format string, args ...any) error {
	return &Error{Pos: r.position(min(off, len(r.data))), Err: fmt.Errorf("%w: malformed JSON: "+format, append([]any{ErrInput}, args...)...)}
}

// wrap turns a jsonDecoder error ("JSON at offset N: msg") into one with a
// position.
func (r *jsonDocReader) wrap(err error) error {
	_, msg, _ := strings.Cut(err.Error(), ": ")
	return r.errorAt(r.pos, "%s", msg)
}

func (r *jsonDocReader) charge(start int, c cost) error {
	if why := r.budget.charge(c); why != "" {
		return &Error{Pos: r.position(start), Err: budgetError("reading " + r.file + " brings the compile to " + why)}
	}
	return nil
}

func (r *jsonDocReader) value(ptr string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, &Error{Pos: r.position(r.pos), Err: fmt.Errorf("%w: nested more than %d levels deep", ErrInput, maxDepth)}
	}
	start := r.pos
	if start >= len(r.data) {
		return nil, r.errorAt(start, "unexpected end of input")
	}
	if _, seen := r.at[ptr]; !seen {
		r.at[ptr] = r.position(start)
	}
	var v any
	var err error
	switch c := r.data[start]; {
	case c == '{':
		return r.object(ptr, depth)
	case c == '[':
		return r.array(ptr, depth)
	case c == '"':
		v, err = r.string()
	case c == 't':
		v, err = true, r.literal("true")
	case c == 'f':
		v, err = false, r.literal("false")
	case c == 'n':
		v, err = nil, r.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		v, err = r.number()
		if err == nil {
			if msg := checkNumber(string(v.(json.Number))); msg != "" {
				// Reported with every other such number (see converter.number).
				r.numbers = append(r.numbers, &Error{Pos: r.position(start), Err: fmt.Errorf("%w: %s", ErrInput, msg)})
				if len(r.numbers) >= maxErrors {
					return nil, &Error{Pos: Position{File: r.file}, Err: fmt.Errorf("%w: reading stopped after %d numbers it cannot hold (fix these first)", ErrInput, maxErrors)}
				}
				v = nil
			}
		}
	default:
		return nil, r.errorAt(start, "expected a value, found %q", c)
	}
	if err != nil {
		return nil, r.wrap(err)
	}
	return v, r.charge(start, cost{nodes: 1, bytes: scalarJSONLen(v), indent: int64(depth)})
}

func (r *jsonDocReader) object(ptr string, depth int) (any, error) {
	start := r.pos
	r.pos++ // {
	m := map[string]any{}
	if err := r.charge(start, cost{nodes: 1, bytes: 2, indent: int64(depth)}); err != nil {
		return nil, err
	}
	r.space()
	if r.pos < len(r.data) && r.data[r.pos] == '}' {
		r.pos++
		return m, nil
	}
	for {
		r.space()
		keyAt := r.pos
		if keyAt >= len(r.data) || r.data[keyAt] != '"' {
			return nil, r.errorAt(keyAt, "expected a string key")
		}
		k, err := r.string()
		if err != nil {
			return nil, r.wrap(err)
		}
		if _, dup := m[k]; dup {
			return nil, &Error{Pos: r.position(keyAt), Err: fmt.Errorf("%w: key %q is written twice in this mapping", ErrInput, k)}
		}
		if err := r.charge(keyAt, cost{bytes: jsonStringLen(k) + 2}); err != nil {
			return nil, err
		}
		kptr := joinPointer(ptr, k)
		r.at[kptr] = r.position(keyAt)
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] != ':' {
			return nil, r.errorAt(r.pos, "expected ':' after key %q", k)
		}
		r.pos++
		r.space()
		v, err := r.value(kptr, depth+1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		r.space()
		if r.pos >= len(r.data) {
			return nil, r.errorAt(r.pos, "unexpected end of input in an object")
		}
		switch r.data[r.pos] {
		case ',':
			r.pos++
		case '}':
			r.pos++
			return m, nil
		default:
			return nil, r.errorAt(r.pos, "expected ',' or '}' after the value of %q", k)
		}
	}
}

func (r *jsonDocReader) array(ptr string, depth int) (any, error) {
	start := r.pos
	r.pos++ // [
	list := []any{}
	if err := r.charge(start, cost{nodes: 1, bytes: 2, indent: int64(depth)}); err != nil {
		return nil, err
	}
	r.space()
	if r.pos < len(r.data) && r.data[r.pos] == ']' {
		r.pos++
		return list, nil
	}
	for {
		r.space()
		v, err := r.value(ptr+"/"+itoa(len(list)), depth+1)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		r.space()
		if r.pos >= len(r.data) {
			return nil, r.errorAt(r.pos, "unexpected end of input in an array")
		}
		switch r.data[r.pos] {
		case ',':
			r.pos++
			if err := r.charge(r.pos, cost{bytes: 1}); err != nil {
				return nil, err
			}
		case ']':
			r.pos++
			return list, nil
		default:
			return nil, r.errorAt(r.pos, "expected ',' or ']'")
		}
	}
}

// looksLikeJSON reports whether src starts like a JSON object or array.
func looksLikeJSON(src []byte) bool {
	t := bytes.TrimLeft(src, " \t\r\n\xef\xbb\xbf")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}
