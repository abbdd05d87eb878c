package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// YAML writes v (maps, slices, strings, bools, json.Number, ints,
// floats, nil) as deterministic YAML: keys sorted bytewise, block style,
// two-space indent, sequences indented under their key, empty collections
// as {} and [], multi-line text as literal blocks, LF line ends. The same
// value gives the same bytes on every machine.
//
// It is a small purpose-built emitter: general YAML encoders neither sort
// keys bytewise nor choose between plain, quoted and literal text the way
// the compiler's golden outputs have it.
func YAML(v any) ([]byte, error) {
	return AppendDocuments(nil, []any{v})
}

// WriteDocuments streams the documents to w, "---" separated when there
// are several.
func WriteDocuments(w io.Writer, prefix string, docs []any) error {
	buf := streamBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 4*flushThreshold {
			buf.Reset()
			streamBuffers.Put(buf)
		}
	}()
	e := &emitter{out: w, buf: buf}
	e.buf.WriteString(prefix)
	if err := e.documents(docs); err != nil {
		return err
	}
	e.flush()
	return e.err
}

// AppendDocuments is WriteDocuments appending to dst.
func AppendDocuments(dst []byte, docs []any) ([]byte, error) {
	e := &emitter{buf: bytes.NewBuffer(dst)}
	if err := e.documents(docs); err != nil {
		return dst, err
	}
	return e.buf.Bytes(), nil
}

func (e *emitter) documents(docs []any) error {
	for _, d := range docs {
		if len(docs) > 1 {
			e.buf.WriteString("---\n")
		}
		if err := e.node(d, 0, false, "", ""); err != nil {
			return err
		}
	}
	return nil
}

type emitter struct {
	buf  *bytes.Buffer
	keys [][]string // mapping's key buffers, by indentation
	out  io.Writer  // when set, buf is flushed here as it fills
	err  error      // the first error writing to out
}

// flushThreshold is how much output the emitter holds before it writes to
// its io.Writer.
const flushThreshold = 32 << 10

// streamBuffers hold writeDocuments' buffers between outputs, so that a
// build does not grow one of about flushThreshold for every output.
var streamBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (e *emitter) maybeFlush() {
	if e.out != nil && e.buf.Len() >= flushThreshold {
		e.flush()
	}
}

func (e *emitter) flush() {
	if e.out == nil || e.err != nil {
		e.buf.Reset()
		return
	}
	_, e.err = e.out.Write(e.buf.Bytes())
	e.buf.Reset()
}

const spaces = "                                                                "

func (e *emitter) indent(n int) {
	for n > len(spaces) {
		e.buf.WriteString(spaces)
		n -= len(spaces)
	}
	e.buf.WriteString(spaces[:n])
}

// mapping writes the entries of m at indent; inline means the first entry
// continues a line already started (after "- ").
func (e *emitter) mapping(m map[string]any, indent int, inline bool) error {
	// One key buffer per indentation: a nested mapping is always deeper.
	for len(e.keys) <= indent {
		e.keys = append(e.keys, nil)
	}
	keys := e.keys[indent][:0]
	for k := range m {
		if k != PrivateKey {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	e.keys[indent] = keys
	for i, k := range keys {
		if i > 0 || !inline {
			e.indent(indent)
		}
		if len(k) > 500 {
			// YAML limits implicit keys to 1024 characters; a longer key
			// (quoted, it may grow) is written as an explicit "? key".
			e.buf.WriteString("? ")
			e.plainOrQuoted(k)
			e.buf.WriteByte('\n')
			e.indent(indent)
		} else {
			e.plainOrQuoted(k)
		}
		e.buf.WriteByte(':')
		if err := e.node(m[k], indent+2, false, "\n", " "); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		e.maybeFlush()
	}
	return nil
}

func (e *emitter) sequence(l []any, indent int, inline bool) error {
	for i, item := range l {
		if i > 0 || !inline {
			e.indent(indent)
		}
		e.buf.WriteString("- ")
		if err := e.node(item, indent+2, true, "", ""); err != nil {
			return err
		}
	}
	return nil
}

// node writes v at indent: a non-empty mapping or sequence after
// blockPrefix (inline: its first entry continues the line already
// started), else a scalar after scalarPrefix, ending the line.
func (e *emitter) node(v any, indent int, inline bool, blockPrefix, scalarPrefix string) error {
	if l, ok := v.([]string); ok {
		items := make([]any, len(l))
		for i, s := range l {
			items[i] = s
		}
		v = items
	}
	switch t := v.(type) {
	case map[string]any:
		if VisibleLen(t) > 0 {
			e.buf.WriteString(blockPrefix)
			return e.mapping(t, indent, inline)
		}
	case []any:
		if len(t) > 0 {
			e.buf.WriteString(blockPrefix)
			return e.sequence(t, indent, inline)
		}
	}
	e.buf.WriteString(scalarPrefix)
	if err := e.scalar(v, indent); err != nil {
		return err
	}
	e.buf.WriteByte('\n')
	return nil
}

// scalar writes a scalar (or an empty collection); block text is indented
// at indent.
func (e *emitter) scalar(v any, indent int) error {
	switch t := v.(type) {
	case nil:
		e.buf.WriteString("null")
	case map[string]any:
		e.buf.WriteString("{}")
	case []any:
		e.buf.WriteString("[]")
	case string:
		if !e.literal(t, indent) {
			e.plainOrQuoted(t)
		}
	case bool:
		e.buf.WriteString(strconv.FormatBool(t))
	case json.Number:
		e.buf.WriteString(string(t))
	case int:
		e.buf.WriteString(strconv.Itoa(t))
	case int64:
		e.buf.WriteString(strconv.FormatInt(t, 10))
	case float64:
		e.buf.WriteString(strconv.FormatFloat(t, 'g', -1, 64))
	default:
		return fmt.Errorf("cannot encode %T as YAML", v)
	}
	return nil
}

// literal writes multi-line text as a |- or | block, when the text can be
// written that way exactly.
func (e *emitter) literal(s string, indent int) bool {
	if !strings.Contains(s, "\n") {
		return false
	}
	body := strings.TrimSuffix(s, "\n")
	chomp := "|"
	if body == s {
		chomp = "|-"
	}
	if body == "" || strings.HasSuffix(body, "\n") || strings.HasPrefix(body, " ") || strings.HasPrefix(body, "\n") ||
		strings.HasPrefix(body, "\t") {
		return false // needs keep-chomping or an indentation indicator
	}
	for _, r := range body {
		if r == '\r' || (r != '\n' && r != '\t' && !unicode.IsPrint(r)) || r == '\ufeff' {
			return false
		}
	}
	e.buf.WriteString(chomp)
	e.buf.WriteByte('\n')
	for i, line := range strings.Split(body, "\n") {
		if i > 0 {
			e.buf.WriteByte('\n')
		}
		if line != "" {
			e.indent(indent)
			e.buf.WriteString(line)
		}
	}
	return true
}

// plainOrQuoted writes s as a plain scalar when YAML reads that back as
// the same string, else double-quoted.
func (e *emitter) plainOrQuoted(s string) {
	if isPlainSafe(s) {
		e.buf.WriteString(s)
		return
	}
	e.buf.WriteByte('"')
	// Runs of printable ASCII other than '"' and '\\' (nearly all of a
	// description) are copied whole; each other character is escaped as
	// below.
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		e.buf.WriteString(s[start:i])
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '"':
			e.buf.WriteString(`\"`)
		case '\\':
			e.buf.WriteString(`\\`)
		case '\n':
			e.buf.WriteString(`\n`)
		case '\t':
			e.buf.WriteString(`\t`)
		case '\r':
			e.buf.WriteString(`\r`)
		default:
			switch {
			case r == utf8.RuneError:
				e.buf.WriteString(`\uFFFD`)
			case r < 0x20 || r == 0x7f || !unicode.IsPrint(r) && r != ' ':
				if r <= 0xffff {
					fmt.Fprintf(e.buf, `\u%04X`, r)
				} else {
					fmt.Fprintf(e.buf, `\U%08X`, r)
				}
			default:
				e.buf.WriteString(s[i : i+size])
			}
		}
		i += size
		start = i
	}
	e.buf.WriteString(s[start:])
	e.buf.WriteByte('"')
}

// Plain scalars YAML 1.1 or 1.2 readers would take for something else.
var (
	specialPlain = []string{"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "<<", "="}
)

// numberLike reports whether a plain scalar s could read as a number, a
// special float or a timestamp in YAML 1.1 or 1.2: after at most one
// sign, a digit, a dot and a digit, or all of it .inf or .nan in any case.
// (Whatever else those grammars accept, 0x1F, 1_000, 1:30 or 2001-12-14,
// starts with a digit.) Hand-written: a regexp would be compiled in every
// process that writes YAML, for a test this short.
func numberLike(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	switch {
	case s == "":
		return false
	case '0' <= s[0] && s[0] <= '9':
		return true
	case s[0] != '.':
		return false
	case len(s) > 1 && '0' <= s[1] && s[1] <= '9':
		return true
	}
	// Compared lowered as a whole (.İNF counts too: quoting one scalar too
	// many is harmless).
	l := strings.ToLower(s)
	return l == ".inf" || l == ".nan"
}

// plainInner marks the bytes isPlainSafe passes without a look: printable
// ASCII but ':' and '#'.
var plainInner = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != ':' && c != '#'
	}
	return t
}()

// plainStartForbidden marks the bytes a plain scalar may not start with
// (YAML indicators, and blanks).
var plainStartForbidden = func() (t [256]bool) {
	for _, c := range "-?:,[]{}#&*!|>'\"%@` \t" {
		t[c] = true
	}
	return t
}()

func isPlainSafe(s string) bool {
	if s == "" || (len(s) <= 5 && isSpecialPlain(s)) {
		return false
	}
	if c := s[0]; (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' {
		if numberLike(s) {
			return false
		}
	}
	if plainStartForbidden[s[0]] {
		return false
	}
	last := s[len(s)-1]
	if last == ' ' || last == ':' || last == '\t' {
		return false
	}
	// One pass: control characters, ": " and " #" (which would start a
	// mapping value or a comment), and non-ASCII text checked separately.
	for i := 0; i < len(s); i++ {
		if plainInner[s[i]] {
			continue
		}
		switch c := s[i]; {
		case c < 0x20, c == 0x7f:
			return false
		case c == ':' && i+1 < len(s) && s[i+1] == ' ':
			return false
		case c == '#' && i > 0 && s[i-1] == ' ':
			return false
		case c >= 0x80:
			if !nonASCIIPlainSafe(s[i:]) {
				return false
			}
			return !strings.Contains(s[i:], ": ") && !strings.Contains(s[i:], " #")
		}
	}
	return true
}

// isSpecialPlain reports whether s is, in any case, a word of
// specialPlain (without the allocation of lowering s).
func isSpecialPlain(s string) bool {
	switch s[0] | 0x20 { // the first letters of specialPlain's words, in any case
	case 't', 'f', 'y', 'n', 'o', '~', '<', '=':
	default:
		return false
	}
	for _, w := range specialPlain {
		if len(w) == len(s) && strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

func nonASCIIPlainSafe(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\ufeff' || r == utf8.RuneError || (!unicode.IsPrint(r) && r != ' ') {
			return false
		}
	}
	return true
}

// VisibleLen counts the keys the emitter writes: all but PrivateKey.
func VisibleLen(m map[string]any) int {
	if _, ok := m[PrivateKey]; ok {
		return len(m) - 1
	}
	return len(m)
}
