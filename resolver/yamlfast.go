package resolver

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// The YAML templates are written in: block mappings and sequences, one
// scalar or one-line flow collection per value, plain or quoted scalars,
// comments. yaml.v3 spends 40 ns a byte on such text, a tenth of a
// one-file run (two files of a few KiB, cold); parseSimpleYAML reads it
// into the same yaml.Nodes (kinds, values, styles, tags, lines and
// columns, which is all the converter reads) in a fraction of that. It
// declines, and yaml.v3 reads the text, at the first thing outside that
// subset: tabs, CR, non-ASCII or control characters, anchors, aliases,
// tags, multi-line plain and quoted scalars and flows, block scalars other
// than the plain |, |-, > and >-, escapes in double quotes, explicit keys,
// empty values, directives, "..." markers, and any indentation it does not
// expect, or nesting deeper than a few hundred levels; in a flow, plain
// scalars are names. FuzzSimpleYAML holds what it accepts to what yaml.v3
// makes of the same text, through the converter.

type simpleLine struct {
	num    int    // 1-based
	indent int    // leading spaces
	text   string // after the indentation; never empty, never a comment
}

type simpleParser struct {
	raw   []string // every line of the text, for block scalars
	lines []simpleLine
	i     int
}

// parseSimpleYAML returns the documents of src, or false when src is not
// in the subset above.
func parseSimpleYAML(src string) (docs []*yaml.Node, ok bool) {
	for i := range len(src) {
		if c := src[i]; (c < ' ' && c != '\n') || c >= 0x7f {
			return nil, false
		}
	}
	// Documents are separated by lines "---".
	type segment struct {
		marker int // the line of its "---", 0 when implicit
		lines  []simpleLine
	}
	segments := []segment{{}}
	raws := strings.Split(src, "\n")
	for n, raw := range raws {
		text := strings.TrimLeft(raw, " ")
		last := &segments[len(segments)-1]
		switch {
		case text == "" || text[0] == '#':
			continue
		case raw == "---":
			if len(last.lines) == 0 && len(segments) == 1 && last.marker == 0 {
				last.marker = n + 1
			} else {
				segments = append(segments, segment{marker: n + 1})
			}
			continue
		case strings.HasPrefix(raw, "---") || strings.HasPrefix(raw, "...") || raw[0] == '%':
			return nil, false
		}
		if len(raw)-len(text) > maxSimpleIndent {
			return nil, false
		}
		last.lines = append(last.lines, simpleLine{num: n + 1, indent: len(raw) - len(text), text: strings.TrimRight(text, " ")})
	}
	for _, seg := range segments {
		if len(seg.lines) == 0 || seg.lines[0].indent != 0 {
			return nil, false
		}
		p := &simpleParser{raw: raws, lines: seg.lines}
		root, ok := p.node(0)
		if !ok || p.i != len(seg.lines) {
			return nil, false
		}
		doc := &yaml.Node{Kind: yaml.DocumentNode, Line: root.Line, Column: root.Column, Content: []*yaml.Node{root}}
		if seg.marker > 0 {
			doc.Line, doc.Column = seg.marker, 1 // yaml.v3 places it at its "---"
		}
		docs = append(docs, doc)
	}
	return docs, true
}

// node reads the block node whose first line is the current one, at
// indentation indent.
func (p *simpleParser) node(indent int) (*yaml.Node, bool) {
	if p.i >= len(p.lines) || p.lines[p.i].indent != indent {
		return nil, false
	}
	if isSeqItem(p.lines[p.i].text) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func isSeqItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

func (p *simpleParser) mapping(indent int) (*yaml.Node, bool) {
	first := p.lines[p.i]
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: first.num, Column: indent + 1}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent < indent {
			break
		}
		if l.indent > indent || isSeqItem(l.text) {
			return nil, false
		}
		key, rest, restCol, ok := splitKey(l.text, l.num, indent+1)
		if !ok {
			return nil, false
		}
		p.i++
		var v *yaml.Node
		if rest == "" {
			// The value is the block below, more indented (or a sequence
			// at the key's own indentation).
			if p.i >= len(p.lines) {
				return nil, false
			}
			next := p.lines[p.i]
			switch {
			case next.indent > indent:
				v, ok = p.node(next.indent)
			case next.indent == indent && isSeqItem(next.text):
				v, ok = p.sequence(indent)
			default:
				ok = false // an empty value
			}
		} else {
			v, ok = p.inline(rest, l.num, restCol, indent)
		}
		if !ok {
			return nil, false
		}
		m.Content = append(m.Content, key, v)
	}
	return m, true
}

func (p *simpleParser) sequence(indent int) (*yaml.Node, bool) {
	first := p.lines[p.i]
	s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: first.num, Column: indent + 1}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent < indent || (l.indent == indent && !isSeqItem(l.text)) {
			break
		}
		if l.indent > indent || l.text == "-" {
			return nil, false
		}
		item := strings.TrimLeft(l.text[2:], " ")
		col := indent + 1 + len(l.text) - len(item)
		var v *yaml.Node
		var ok bool
		if _, _, _, isKey := splitKey(item, l.num, col); isKey {
			// "- key: value": a mapping at the key's column, continued
			// by the lines below at that indentation.
			p.lines[p.i] = simpleLine{num: l.num, indent: col - 1, text: item}
			v, ok = p.mapping(col - 1)
		} else {
			p.i++
			v, ok = p.inline(item, l.num, col, indent)
		}
		if !ok {
			return nil, false
		}
		s.Content = append(s.Content, v)
	}
	return s, true
}

// inline reads the value that ends a line: text starts at column col of
// line num, in an entry at indentation indent. A value continued on the
// lines below (more indented than the entry) is declined.
func (p *simpleParser) inline(text string, num, col, indent int) (*yaml.Node, bool) {
	if block, comment, _ := strings.Cut(text, " "); (block == "|" || block == "|-" || block == ">" || block == ">-") && onlyComment(" "+comment) {
		return p.blockScalar(block, num, col, indent)
	}
	var n *yaml.Node
	var rest string
	var ok bool
	switch text[0] {
	case '{', '[':
		n, rest, ok = flowNode(text, num, col, 1)
	default:
		n, rest, ok = scalarNode(text, num, col, false)
	}
	if !ok || !onlyComment(rest) || (p.i < len(p.lines) && p.lines[p.i].indent > indent) {
		return nil, false
	}
	return n, true
}

// blockScalar reads a literal (|) or folded (>) scalar, clipped or
// stripped (-), whose indicator is at column col of line num, in an entry
// at indentation indent: the lines below, all at one indentation deeper
// than indent (a literal's may go deeper still), with empty lines between
// them. Lines of only spaces, trailing spaces and a folded scalar's deeper
// lines (which fold differently) are declined.
func (p *simpleParser) blockScalar(indicator string, num, col, indent int) (*yaml.Node, bool) {
	folded := indicator[0] == '>'
	var content []string
	blockIndent, last := -1, 0 // last: the number of its last non-empty line
	for j := num; j < len(p.raw); j++ {
		line := p.raw[j]
		if line == "" {
			content = append(content, "")
			continue
		}
		t := strings.TrimLeft(line, " ")
		lead := len(line) - len(t)
		if blockIndent < 0 {
			if lead <= indent || len(content) > 0 {
				return nil, false // empty, or empty lines first
			}
			blockIndent = lead
		}
		if lead < blockIndent {
			break
		}
		if t == "" || strings.HasSuffix(line, " ") || (folded && lead > blockIndent) {
			return nil, false
		}
		content = append(content, line[blockIndent:])
		last = j + 1
	}
	if blockIndent < 0 {
		return nil, false
	}
	for len(content) > 0 && content[len(content)-1] == "" {
		content = content[:len(content)-1]
	}
	var value string
	if folded {
		var b strings.Builder
		breaks := 0
		for i, l := range content {
			switch {
			case l == "":
				breaks++
				continue
			case i == 0:
			case breaks == 0:
				b.WriteByte(' ')
			default:
				b.WriteString(strings.Repeat("\n", breaks))
			}
			breaks = 0
			b.WriteString(l)
		}
		value = b.String()
	} else {
		value = strings.Join(content, "\n")
	}
	if indicator[len(indicator)-1] != '-' && last < len(p.raw) {
		value += "\n" // clipped: its last line break kept (if it has one)
	}
	for p.i < len(p.lines) && p.lines[p.i].num <= last {
		p.i++
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return nil, false
	}
	style := yaml.LiteralStyle
	if folded {
		style = yaml.FoldedStyle
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: style, Value: value, Line: num, Column: col}, true
}

// onlyComment reports whether rest, what follows a value on its line, is
// nothing or a comment.
func onlyComment(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	return t == "" || (t[0] == '#' && len(t) < len(rest))
}

// splitKey splits "key: value" (or "key:") into the key's node and the
// value's text with its column. Plain keys are names: letters, digits and
// "$._/-", starting with none of "-./".
func splitKey(text string, num, col int) (key *yaml.Node, rest string, restCol int, ok bool) {
	var after string
	switch text[0] {
	case '"', '\'':
		key, after, ok = scalarNode(text, num, col, false)
		if !ok || !strings.HasPrefix(after, ":") {
			return nil, "", 0, false
		}
	default:
		i := 0
		for i < len(text) && isNameByte(text[i]) {
			i++
		}
		if i == 0 || i >= len(text) || text[i] != ':' || strings.ContainsRune("-./", rune(text[0])) {
			return nil, "", 0, false
		}
		key = plainScalar(text[:i], num, col)
		after = text[i:]
	}
	if len(text)-len(after) > maxSimpleKey {
		return nil, "", 0, false
	}
	after = after[1:] // the colon
	if after == "" {
		return key, "", 0, true
	}
	if after[0] != ' ' {
		return nil, "", 0, false
	}
	v := strings.TrimLeft(after, " ")
	if v == "" || v[0] == '#' {
		return key, "", 0, true
	}
	return key, v, col + len(text) - len(v), true
}

// Deeper than these, text is left to yaml.v3: blocks nest at most twice
// as deep as they are indented, so neither yaml.v3's depth limit (10,000)
// nor the converter's (maxDepth) is ever what stops a text taken here.
const (
	maxSimpleIndent    = 400
	maxSimpleFlowDepth = 400
)

// maxSimpleKey is the longest key taken: YAML's implicit keys end within
// 1024 characters of where they start (a longer one is an error to
// yaml.v3, "mapping values are not allowed in this context").
const maxSimpleKey = 1000

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '$' || c == '_' || c == '.' || c == '/' || c == '-'
}

func plainScalar(value string, num, col int) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: value, Line: num, Column: col}
	n.Tag = plainTag(n)
	return n
}

// plainTag is what yaml.v3 resolves the plain scalar n to (n.ShortTag()).
// Its resolve defers a closure, looks the text up in a map and, for a
// number, tries a timestamp and several parsers: a tenth of reading a
// template, most of it for keys and names. Text starting with a letter
// (or anything but a sign, a digit, "." or "~") resolves by yaml.v3's own
// table to a string but for its map's true, false and null spellings,
// which this takes as resolve does; the rest goes to yaml.v3.
// TestPlainTagMatchesYAML holds the two together.
func plainTag(n *yaml.Node) string {
	v := n.Value
	if v == "" {
		return n.ShortTag()
	}
	switch v[0] {
	case '+', '-', '.', '~', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return n.ShortTag()
	case 't', 'T', 'f', 'F':
		switch v {
		case "true", "True", "TRUE", "false", "False", "FALSE":
			return "!!bool"
		}
	case 'n', 'N':
		switch v {
		case "null", "Null", "NULL":
			return "!!null"
		}
	}
	return "!!str"
}

// scalarNode reads a scalar at the start of text (column col): quoted, or
// plain up to the end of the line or a comment (in a flow, up to its next
// indicator). It returns what follows it.
func scalarNode(text string, num, col int, inFlow bool) (*yaml.Node, string, bool) {
	switch text[0] {
	case '"':
		end := strings.IndexByte(text[1:], '"')
		if end < 0 || strings.IndexByte(text[1:1+end], '\\') >= 0 {
			return nil, "", false
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: text[1 : 1+end], Line: num, Column: col}, text[2+end:], true
	case '\'':
		var b strings.Builder
		for i := 1; i < len(text); i++ {
			if text[i] != '\'' {
				b.WriteByte(text[i])
				continue
			}
			if i+1 < len(text) && text[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.SingleQuotedStyle, Value: b.String(), Line: num, Column: col}, text[i+1:], true
		}
		return nil, "", false
	}
	// Plain. It may not start with an indicator (a "-" before a letter
	// or digit is a value: -1, -x).
	c := text[0]
	if strings.IndexByte("?:,[]{}#&*!|>'\"%@`", c) >= 0 || c == ' ' ||
		(c == '-' && (len(text) < 2 || !isNameByte(text[1]) || text[1] == '-')) {
		return nil, "", false
	}
	// One pass to where it ends, never further: a line of many flow
	// scalars must not be searched to its end for each of them.
	end := 0
	for ; end < len(text); end++ {
		c := text[end]
		if c == ' ' && end+1 < len(text) && text[end+1] == '#' {
			break
		}
		if inFlow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}' || c == ':' && end+1 < len(text) && text[end+1] == ' ') {
			break
		}
	}
	value := strings.TrimRight(text[:end], " ")
	// A colon ends a key, or is the start of something else: declined.
	if value == "" || strings.IndexByte(value, ':') >= 0 && (inFlow || strings.Contains(value, ": ") || strings.HasSuffix(value, ":")) {
		return nil, "", false
	}
	if inFlow {
		// In a flow, "?" and more end a plain scalar: only names.
		for i := 0; i < len(value); i++ {
			if !isNameByte(value[i]) && value[i] != ' ' {
				return nil, "", false
			}
		}
	}
	return plainScalar(value, num, col), text[end:], true
}

// flowNode reads a flow mapping or sequence that ends on its line.
func flowNode(text string, num, col, depth int) (*yaml.Node, string, bool) {
	if depth > maxSimpleFlowDepth {
		return nil, "", false
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle, Line: num, Column: col}
	closing := byte('}')
	if text[0] == '[' {
		n.Kind, n.Tag, closing = yaml.SequenceNode, "!!seq", ']'
	}
	pos := 1 // in text
	skip := func() {
		for pos < len(text) && text[pos] == ' ' {
			pos++
		}
	}
	skip()
	if pos < len(text) && text[pos] == closing {
		return n, text[pos+1:], true
	}
	for {
		skip()
		if pos >= len(text) {
			return nil, "", false
		}
		item, ok := flowItem(text[pos:], num, col+pos, depth)
		if !ok {
			return nil, "", false
		}
		rest := item.rest
		if n.Kind == yaml.MappingNode {
			// key: value
			if item.node.Kind != yaml.ScalarNode || !strings.HasPrefix(rest, ": ") || len(text)-pos-len(rest) > maxSimpleKey {
				return nil, "", false
			}
			vtext := strings.TrimLeft(rest[1:], " ")
			vpos := len(text) - len(vtext)
			if vtext == "" {
				return nil, "", false
			}
			value, ok := flowItem(vtext, num, col+vpos, depth)
			if !ok {
				return nil, "", false
			}
			n.Content = append(n.Content, item.node, value.node)
			rest = value.rest
		} else {
			n.Content = append(n.Content, item.node)
		}
		pos = len(text) - len(rest)
		skip()
		if pos >= len(text) {
			return nil, "", false
		}
		switch text[pos] {
		case closing:
			return n, text[pos+1:], true
		case ',':
			pos++
			skip()
			if pos < len(text) && (text[pos] == closing || text[pos] == ',') {
				return nil, "", false // a trailing comma, an empty entry
			}
		default:
			return nil, "", false
		}
	}
}

type flowResult struct {
	node *yaml.Node
	rest string
}

func flowItem(text string, num, col, depth int) (flowResult, bool) {
	if text[0] == '{' || text[0] == '[' {
		n, rest, ok := flowNode(text, num, col, depth+1)
		return flowResult{n, rest}, ok
	}
	n, rest, ok := scalarNode(text, num, col, true)
	return flowResult{n, rest}, ok
}
