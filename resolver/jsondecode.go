package resolver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonDecoder is the scanner under the strict JSON reader (jsondoc.go):
// the tokens of JSON text as encoding/json reads them, at byte offsets.
type jsonDecoder struct {
	data []byte
	pos  int
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

func (d *jsonDecoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.errorf("expected %s", word)
	}
	d.pos += len(word)
	return nil
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

var errBadEscape = errors.New("bad escape")

func (d *jsonDecoder) string() (string, error) {
	d.pos++ // "
	var buf []byte
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
