package resolver

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
	"unsafe"
)

// EncodeYAML writes v (maps, slices, strings, bools, json.Number, ints,
// floats, nil) as deterministic YAML: keys sorted bytewise, block style,
// two-space indent, sequences indented under their key, empty collections
// as {} and [], multi-line text as literal blocks, LF line ends. The same
// value gives the same bytes on every machine.
//
// It is a small purpose-built emitter: general YAML encoders spend most of
// a compile's time on the 5,000-line schemas a PodSpec expands to.
func EncodeYAML(v any) ([]byte, error) {
	return appendDocuments(make([]byte, 0, 64<<10), []any{v}, &renderCache{})
}

// writeDocuments streams the documents to w, "---" separated when there
// are several.
func writeDocuments(w io.Writer, prefix string, docs []any, cache *renderCache) error {
	e := &emitter{cache: cache, out: w}
	// Room for a flush's worth and one more piece, so the buffer is made
	// once, and made again only when the collector has taken it back: a
	// build streaming a thousand outputs into their files (project.Plan)
	// made one per output, 64 MB of garbage at N=1000 that took peak RSS
	// from 63 to 97 MiB.
	bp := writeBufs.Get().(*[]byte)
	e.buf = *bytes.NewBuffer((*bp)[:0])
	defer func() {
		*bp = e.buf.Bytes()[:0]
		writeBufs.Put(bp)
	}()
	e.buf.WriteString(prefix)
	if err := e.documents(docs); err != nil {
		return err
	}
	e.flush()
	return e.err
}

// writeBufs are writeDocuments' buffers.
var writeBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, flushThreshold+2*shiftPiece)
	return &b
}}

// appendDocuments is writeDocuments appending to dst, which should have
// room for the text: the emitter writes straight into it.
func appendDocuments(dst []byte, docs []any, cache *renderCache) ([]byte, error) {
	e := &emitter{cache: cache}
	e.buf = *bytes.NewBuffer(dst)
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
		if err := e.top(d); err != nil {
			return err
		}
	}
	return nil
}

type emitter struct {
	rec     *fragRecorder // PrebuildFragments: entries become references
	buf     bytes.Buffer
	written map[unsafe.Pointer]region // shared mappings written in buf, once
	keys    [][]string                // mapping's key buffers, by indentation
	cache   *renderCache
	out     io.Writer // when set, buf is flushed here as it fills
	err     error     // the first error writing to out
	flushed int       // the text flushed out of buf
}

// flushThreshold is how much output the emitter holds before it writes to
// its io.Writer.
const flushThreshold = 32 << 10

func (e *emitter) maybeFlush() {
	if e.out != nil && e.buf.Len() >= flushThreshold {
		e.flush()
	}
}

func (e *emitter) flush() {
	e.flushed += e.buf.Len()
	if e.out == nil || e.err != nil {
		e.buf.Reset()
		return
	}
	_, e.err = e.out.Write(e.buf.Bytes())
	e.buf.Reset()
}

// total is how much text the emitter has written, flushed or not.
func (e *emitter) total() int { return e.flushed + e.buf.Len() }

// renderCache keeps the YAML of subtrees that many documents share: the
// resolved $ref targets a Compiler caches (never modified once cached). A
// PodSpec used by three CRDs of a build is rendered once, at indent 0, and
// copied with its indentation shifted. The text is identical to rendering
// in place: every line, literal block lines included, moves right by the
// same amount, and empty lines stay empty.
//
// It also keeps the text of the bundle entries documents refer to, at the
// indentation they were written at (see cachedEntry); nil entries (a
// one-off emitter's cache) keep none.
type renderCache struct {
	shared map[unsafe.Pointer]struct{}
	text   map[unsafe.Pointer][]byte
	jsonCache

	entries    map[entryAt]entryText
	entryBytes int // the text entries holds
}

// entryText is what a render cache knows of an entry at an indentation:
// after its first use, the size of its text and how often it was written;
// once kept, the text.
type entryText struct {
	text []byte
	size int
	uses int
}

// share registers a cached $ref target and, with values, the mappings it
// holds at its top level (properties, items, additionalProperties...): a
// $ref site copies the target's top-level keys into a mapping of its own,
// so the target itself is seldom what a document holds, but its values
// are, at every site. A Compiler without descriptions leaves the values
// out: what they hold of Kubernetes' definitions are bundle entries,
// whose text the entry cache keeps (cachedEntry), and caching the
// mappings around them too cost a one-file run an eighth of its time.
func (c *renderCache) share(target map[string]any, values bool) {
	c.shared[mapID(target)] = struct{}{}
	if !values {
		return
	}
	for _, v := range target {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			c.shared[mapID(m)] = struct{}{}
		}
	}
}

// keepEntry caches text as the entry at at, and returns it. text must be
// the cache's own.
func (e *emitter) keepEntry(at entryAt, text []byte) []byte {
	e.cache.entries[at] = entryText{text: text, size: len(text)}
	e.cache.entryBytes += len(text)
	return text
}

// entryAt is a bundle entry written at an indentation.
type entryAt struct {
	store  *lazyStore
	k      fragKey
	indent int
}

// maxEntryCache bounds what a render cache keeps of entries' text: far
// more than the few entries at a few indentations a build's templates
// refer to (a PodTemplateSpec's are ~150 KiB), and what a Compiler's
// cache holds at most whatever the templates.
const maxEntryCache = 16 << 20

// cachedEntry writes entry k of store at indent, from the cache when it
// was written at that indent twice before, keeping it in the cache the
// second time. Every output of a build that embeds a PodTemplateSpec writes
// the same entries at the same indentation: one copy of the finished text
// costs a fraction of shifting each fragment into place line by line
// again. The text is what entry writes, byte for byte.
func (e *emitter) cachedEntry(store *lazyStore, k fragKey, indent int) error {
	if e.rec != nil || e.cache.entries == nil {
		return e.entry(store, k, indent)
	}
	at := entryAt{store, k, indent}
	known, seen := e.cache.entries[at]
	text := known.text
	switch {
	case text != nil:
	case !seen || e.cache.entryBytes >= maxEntryCache || e.out != nil && known.uses < 2:
		// Kept from its second use on (appending: what builds do) or its
		// third (streaming: a one-file run, which seldom has a third, and
		// for which keeping the second was a buffer of that size more,
		// fresh memory): most entries of a small build are written once,
		// and copying them into the cache would be waste. The first use
		// notes the size, so that the one kept renders into a buffer made
		// once, of that size.
		start := e.total()
		if err := e.entry(store, k, indent); err != nil {
			return err
		}
		if e.cache.entryBytes < maxEntryCache {
			e.cache.entries[at] = entryText{size: e.total() - start, uses: known.uses + 1}
		}
		return nil
	case e.out == nil:
		// Written in place, then copied from the buffer.
		start := e.buf.Len()
		if err := e.entry(store, k, indent); err != nil {
			return err
		}
		e.keepEntry(at, bytes.Clone(e.buf.Bytes()[start:]))
		return nil
	default:
		// Rendered apart, into exactly the room it takes: grown by
		// doubling, the buffer of a PodSpec's entry was fresh memory
		// three times over, a fifth of a one-file run's page faults.
		sub := &emitter{cache: e.cache}
		sub.buf.Grow(known.size)
		if err := sub.entry(store, k, indent); err != nil {
			return err
		}
		text = e.keepEntry(at, sub.buf.Bytes())
	}
	if e.out != nil && len(text) > shiftPiece {
		// Straight to the writer: the buffer keeps its size.
		e.flush()
		if e.err == nil {
			_, e.err = e.out.Write(text)
		}
		return nil
	}
	e.buf.Write(text)
	e.maybeFlush()
	return nil
}

// cachedMapping writes m as the block mapping of a value at indent, from
// the cache when m is a shared subtree. It reports false when m is not.
func (e *emitter) cachedMapping(m map[string]any, indent int) (bool, error) {
	id := mapID(m)
	if e.rec != nil {
		if k, ok := e.rec.entries[id]; ok {
			e.rec.cut(e, k, indent)
			return true, nil
		}
	}
	if _, ok := e.cache.shared[id]; !ok {
		return false, nil
	}
	text, ok := e.cache.text[id]
	if !ok && e.out == nil {
		// Appending: the first use is written in place, and only a second
		// use in the same text turns what the first wrote into the cached
		// text. Rendering every shared mapping apart, then copying it into
		// its place, copied a deep subtree once per shared level above it,
		// and most shared mappings of a build are used once.
		r, seen := e.written[id]
		if !seen {
			start := e.buf.Len()
			if err := e.mapping(m, indent, false); err != nil {
				return true, err
			}
			if e.written == nil {
				e.written = map[unsafe.Pointer]region{}
			}
			e.written[id] = region{start, e.buf.Len(), indent}
			return true, nil
		}
		if text, ok = unshift(e.buf.Bytes()[r.start:r.end], r.indent); !ok {
			return false, nil // not the shape written at indent: written anew
		}
		e.cache.text[id] = text
	}
	if !ok {
		sub := &emitter{cache: e.cache}
		if err := sub.mapping(m, 0, false); err != nil {
			return true, err
		}
		text = sub.buf.Bytes()
		e.cache.text[id] = text
	}
	e.shifted(text, indent)
	return true, nil
}

// region is where an emitter wrote a shared mapping, and at what indent.
type region struct{ start, end, indent int }

// unshift returns a copy of text, a mapping written at indent, as written
// at indent 0: every line but the empty ones loses indent spaces (the
// inverse of shifted). It reports false when a line does not start with
// them.
func unshift(text []byte, indent int) ([]byte, bool) {
	out := make([]byte, 0, len(text))
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		line := text[:i]
		if i > 1 {
			if len(line) < indent || !allSpaces(line[:indent]) {
				return nil, false
			}
			line = line[indent:]
		}
		out = append(out, line...)
		text = text[i:]
	}
	return out, true
}

func allSpaces(b []byte) bool {
	for _, c := range b {
		if c != ' ' {
			return false
		}
	}
	return true
}

// shifted writes text, rendered at indent 0, at indent: every line but the
// empty ones moves right by the same amount. Writing to an io.Writer, it
// goes out in pieces of whole lines, so the buffer keeps its size: a
// bundle entry can be hundreds of KiB, and a buffer grown to hold it
// would be fresh memory for every doubling.
func (e *emitter) shifted(text []byte, indent int) {
	for len(text) > 0 {
		part := text
		if e.out != nil && len(part) > shiftPiece {
			// Up to the last line end in the piece (or the end of a
			// longer line).
			n := bytes.LastIndexByte(part[:shiftPiece], '\n') + 1
			if n == 0 {
				n = bytes.IndexByte(part, '\n') + 1
			}
			if n > 0 {
				part = part[:n]
			}
		}
		e.shiftedPiece(part, indent)
		text = text[len(part):]
		e.maybeFlush()
	}
}

// shiftPiece is how much entry text shifted copies between flushes.
const shiftPiece = 8 << 10

func (e *emitter) shiftedPiece(text []byte, indent int) {
	if indent == 0 {
		e.buf.Write(text)
		return
	}
	// One append per line into the buffer's free space, grown once: the
	// copy is most of what an entry costs to write.
	e.buf.Grow(len(text) + (bytes.Count(text, newline)+1)*indent)
	b := e.buf.AvailableBuffer()
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		if i > 1 {
			for n := indent; n > 0; n -= len(spaces) {
				b = append(b, spaces[:min(n, len(spaces))]...)
			}
		}
		b = append(b, text[:i]...)
		text = text[i:]
	}
	e.buf.Write(b)
}

var newline = []byte{'\n'}

func (e *emitter) top(v any) error {
	switch t := v.(type) {
	case map[string]any:
		if visibleLen(t) > 0 {
			return e.mapping(t, 0, false)
		}
	case []any:
		if len(t) > 0 {
			return e.sequence(t, 0, false)
		}
	}
	if err := e.scalar(v, 0); err != nil {
		return err
	}
	e.buf.WriteByte('\n')
	return nil
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
		if k != bundleDefault {
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
		if err := e.value(m[k], indent); err != nil {
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
		switch t := item.(type) {
		case map[string]any:
			if visibleLen(t) > 0 {
				if err := e.mapping(t, indent+2, true); err != nil {
					return err
				}
				continue
			}
		case []any:
			if len(t) > 0 {
				if err := e.sequence(t, indent+2, true); err != nil {
					return err
				}
				continue
			}
		}
		if err := e.scalar(item, indent+2); err != nil {
			return err
		}
		e.buf.WriteByte('\n')
	}
	return nil
}

// value writes what follows "key:" for a mapping entry at indent.
func (e *emitter) value(v any, indent int) error {
	switch t := v.(type) {
	case *lazyEntry:
		e.buf.WriteByte('\n')
		return e.cachedEntry(t.store, fragKey{t.name, t.key}, indent+2)
	case map[string]any:
		if visibleLen(t) > 0 {
			e.buf.WriteByte('\n')
			if done, err := e.cachedMapping(t, indent+2); done || err != nil {
				return err
			}
			return e.mapping(t, indent+2, false)
		}
	case []any:
		if len(t) > 0 {
			e.buf.WriteByte('\n')
			return e.sequence(t, indent+2, false)
		}
	}
	e.buf.WriteByte(' ')
	if err := e.scalar(v, indent+2); err != nil {
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
	case []string:
		items := make([]any, len(t))
		for i, s := range t {
			items[i] = s
		}
		return e.scalar(items, indent)
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
	// description) are copied whole; each other character as before.
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
					fmt.Fprintf(&e.buf, `\u%04X`, r)
				} else {
					fmt.Fprintf(&e.buf, `\U%08X`, r)
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
// starts with a digit.) Hand-written: a regexp compiled in every process
// that writes a string cost more than the test it made.
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
	// Compared lowered as a whole, as before (.İNF counts too: quoting one
	// scalar too many is harmless).
	l := strings.ToLower(s)
	return l == ".inf" || l == ".nan"
}

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
		switch c := s[i]; {
		case c < 0x20 && c != '\t', c == 0x7f:
			return false
		case c == '\t':
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

// visibleLen counts the keys the emitter writes.
func visibleLen(m map[string]any) int {
	if _, ok := m[bundleDefault]; ok {
		return len(m) - 1
	}
	return len(m)
}
