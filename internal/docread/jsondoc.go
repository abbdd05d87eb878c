package docread

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/sourcetext"
)

// The strict JSON reader, for JSON that YAML cannot read (tab
// indentation, a "\/" escape...). It gives the same document{value, pos}
// as the YAML path: the position of every key and value, a key written
// twice is an error at the second, numbers are checked as sourcetext.CheckNumber
// says, and the values are charged to the compile's budget.
//
// The tokens are jsontext's (go-json-experiment), which knows JSON's
// grammar; this reader adds what a token does not carry: where each one
// starts (from the decoder's offset, past blanks and one delimiter), the
// positions, the budget and the apiserver's limits on numbers. Strings
// read as encoding/json reads them: an escaped lone surrogate is U+FFFD.
//
// Several top-level values are several documents, as the documents of a
// YAML stream are (kubectl reads a JSON stream the same way); anything
// else after a value is an error at its position.

type jsonDocReader struct {
	dec    *jsontext.Decoder
	data   []byte
	file   string
	lines  []int // offset of the start of every line
	at     map[string]Position
	budget *Budget
	// The last position computed: positions are asked for in increasing offsets, so the
	// next one on the same line counts only the characters after it (counting from the
	// start of the line each time is quadratic in a one-line document, which JSON often is).
	lastOff, lastLine, lastCol int
	numbers                    ErrorList // numbers that cannot be read
}

// valueStart holds the bytes a JSON value can start with.
const valueStart = `{["tfn-0123456789`

func ParseJSON(file string, src []byte, b *Budget) ([]*Doc, error) {
	r := &jsonDocReader{
		// Duplicate keys are found by value, with this reader's message.
		dec:  jsontext.NewDecoder(bytes.NewReader(src), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)),
		data: src, file: file, lines: []int{0}, budget: b,
	}
	for i, c := range src {
		if c == '\n' {
			r.lines = append(r.lines, i+1)
		}
	}
	var docs []*Doc
	lastEnd := 0 // where the last value ended
	for {
		start, _ := r.next(false)
		if start >= len(src) {
			return withNumbers(r.numbers, docs, nil)
		}
		if c := src[start]; lastEnd > 0 && !strings.ContainsRune(valueStart, rune(c)) {
			return withNumbers(r.numbers, nil, r.errorAt(start, "found %q after the value that ends at %d:%d; a JSON file holds one value, or several one after another", c, r.position(lastEnd-1).Line, r.position(lastEnd-1).Col))
		}
		r.at = map[string]Position{}
		before := b.Used
		v, err := r.value("", 0, true)
		if err != nil {
			return withNumbers(r.numbers, nil, err)
		}
		lastEnd = int(r.dec.InputOffset())
		if v != nil {
			docs = append(docs, &Doc{File: file, Index: len(docs), Value: v, Pos: r.at, Cost: b.Used.Minus(before)})
		}
	}
}

// next returns the offset of the next token, past the blanks after the
// last one and, within a value (delim), the ',' or ':' among them; comma
// reports whether it passed a ','.
func (r *jsonDocReader) next(delim bool) (at int, comma bool) {
	i := int(r.dec.InputOffset())
	for ; i < len(r.data); i++ {
		switch c := r.data[i]; {
		case c == ' ', c == '\t', c == '\n', c == '\r':
		case delim && (c == ',' || c == ':'):
			delim, comma = false, c == ','
		default:
			return i, comma
		}
	}
	return i, comma
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
	return InputError(r.position(min(off, len(r.data))), "malformed JSON: "+format, args...)
}

// read reads the token that starts at start, turning jsontext's errors
// into ones at a position.
func (r *jsonDocReader) read(start int) (jsontext.Token, error) {
	tok, err := r.dec.ReadToken()
	var se *jsontext.SyntacticError
	switch {
	case err == nil:
		return tok, nil
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return tok, r.errorAt(len(r.data), "unexpected end of input")
	case errors.As(err, &se) && se.Err != nil:
		off := int(se.ByteOffset) // the offending byte
		if off == 0 {
			off = start
		}
		return tok, r.errorAt(off, "%s", se.Err)
	}
	return tok, r.errorAt(start, "%s", strings.TrimPrefix(err.Error(), "jsontext: "))
}

func (r *jsonDocReader) charge(start int, c Cost) error {
	if why := r.budget.Charge(c); why != "" {
		return &Error{Pos: r.position(start), Err: BudgetError("reading " + r.file + " brings the compile to " + why)}
	}
	return nil
}

// value reads the value at ptr. Where one must start (expect: first in
// the document or in a list, after ':' or ','), a byte that cannot start one
// is reported as such; elsewhere jsontext says what was expected.
func (r *jsonDocReader) value(ptr string, depth int, expect bool) (any, error) {
	start, _ := r.next(depth > 0)
	if depth > maxReadDepth {
		return nil, InputError(r.position(start), "nested more than %d levels deep", maxReadDepth)
	}
	if start >= len(r.data) {
		return nil, r.errorAt(start, "unexpected end of input")
	}
	if _, seen := r.at[ptr]; !seen {
		r.at[ptr] = r.position(start)
	}
	if c := r.data[start]; expect && !strings.ContainsRune(valueStart, rune(c)) {
		return nil, r.errorAt(start, "expected a value, found %q", c)
	}
	tok, err := r.read(start)
	if err != nil {
		return nil, err
	}
	var v any
	switch tok.Kind() {
	case '{':
		return r.object(ptr, depth, start)
	case '[':
		return r.array(ptr, depth, start)
	case '"':
		v = tok.String()
	case 't', 'f':
		v = tok.Bool()
	case 'n':
		v = nil
	case '0':
		s := tok.String()
		v = json.Number(s)
		if msg := sourcetext.CheckNumber(s); msg != "" {
			if err := addNumberError(&r.numbers, r.file, InputError(r.position(start), "%s", msg)); err != nil {
				return nil, err
			}
			v = nil
		}
	}
	return v, r.charge(start, Cost{Nodes: 1, Bytes: ScalarJSONLen(v), Indent: int64(depth)})
}

func (r *jsonDocReader) object(ptr string, depth, start int) (any, error) {
	m := map[string]any{}
	if err := r.charge(start, Cost{Nodes: 1, Bytes: 2, Indent: int64(depth)}); err != nil {
		return nil, err
	}
	for {
		at, _ := r.next(true)
		if r.dec.PeekKind() == '}' {
			_, err := r.read(at)
			return m, err
		}
		tok, err := r.read(at)
		if err != nil {
			return nil, err
		}
		k := tok.String()
		if _, dup := m[k]; dup {
			return nil, InputError(r.position(at), "key %q is written twice in this mapping", k)
		}
		if err := r.charge(at, Cost{Bytes: JSONStringLen(k) + 2}); err != nil {
			return nil, err
		}
		kptr := JoinPointer(ptr, k)
		r.at[kptr] = r.position(at)
		v, err := r.value(kptr, depth+1, true)
		if err != nil {
			return nil, err
		}
		m[k] = v
	}
}

func (r *jsonDocReader) array(ptr string, depth, start int) (any, error) {
	list := []any{}
	if err := r.charge(start, Cost{Nodes: 1, Bytes: 2, Indent: int64(depth)}); err != nil {
		return nil, err
	}
	for {
		at, comma := r.next(true)
		if r.dec.PeekKind() == ']' {
			_, err := r.read(at)
			return list, err
		}
		if comma {
			if err := r.charge(at, Cost{Bytes: 1}); err != nil {
				return nil, err
			}
		}
		v, err := r.value(ptr+"/"+strconv.Itoa(len(list)), depth+1, len(list) == 0 || comma)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
}
