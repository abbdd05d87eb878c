package docread

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/sourcetext"
)

// Input limits. They exist so a hostile or accidental input (a YAML alias
// bomb, a multi-gigabyte file) fails fast with a clear message instead of
// exhausting memory. What a file expands to after YAML aliases is bounded
// by the compile budget (Options.Budget).
const (
	// MaxInputBytes is the largest template or referenced file read.
	MaxInputBytes = 64 << 20
	// MaxDepth bounds the nesting of a compiled CRD, and of the schemas
	// a compile resolves, so deep input cannot exhaust the stack.
	MaxDepth = 2000
	// maxReadDepth bounds the nesting of what is read (templates,
	// outputs, diff's, validate's and export's files): a compiled CRD's
	// limit, inside a kind: List (items, then the item: two levels more),
	// as resolve -o json prints several CRDs and kubectl get prints any.
	// So every CRD a compile writes is read back, however it comes; a
	// template that deep is read, and its compile refuses it
	// (checkOutput).
	maxReadDepth = MaxDepth + 2
)

// Doc is one YAML or JSON document: its value (maps, slices, string,
// bool, json.Number, nil) and the source position of every value, keyed by
// JSON pointer. For mapping entries the position is the key's. Inside the
// expansion of a YAML alias, positions are kept only while there are
// fewer than the file has bytes; deeper in a large expansion a value's
// position is the alias's.
type Doc struct {
	File  string
	Index int
	Value any
	Pos   map[string]Position
	Cost  Cost // what reading it built, charged to every compile that uses it
}

// Position returns the position of the value at pointer ptr, or of its
// nearest ancestor that has one.
func (d *Doc) Position(ptr string) Position {
	if d == nil {
		return Position{}
	}
	for {
		if p, ok := d.Pos[ptr]; ok {
			return p
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return Position{File: d.File}
		}
		ptr = ptr[:i]
	}
}

// ParseDocuments reads every document of a YAML (or JSON) stream within
// the default budget (what a file a $ref reaches builds is then charged to
// every compile that uses it, see run.useFile). Empty documents are
// skipped. Errors carry file:line:col.
func ParseDocuments(file string, src []byte) ([]*Doc, error) {
	return ParseWithin(file, src, NewBudget(0))
}

// ParseWithin is ParseDocuments charging what it builds to b.
// Text that starts like JSON is read by the strict JSON reader
// (jsondoc.go), which gives what yaml.v3 gives for JSON both read
// (TestStrictJSONMatchesYAML) and also reads JSON that YAML cannot (tab
// indentation, "\/"); what it refuses (flow YAML that is not JSON) is read
// by yaml.v3, and when both refuse it the JSON reader's error stands.
// Everything else is read by yaml.v3.
func ParseWithin(file string, src []byte, b *Budget) ([]*Doc, error) {
	if err := checkText(file, src); err != nil {
		return nil, err
	}
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	start := b.Used
	var jsonErr error
	isJSON := sourcetext.LooksLikeJSON(src)
	if isJSON {
		docs, err := ParseJSON(file, src, b)
		if err == nil {
			return docs, nil
		}
		jsonErr = err
		b.Used = start // nothing read as JSON is kept
	}
	return ParseYAML(file, src, b, jsonErr)
}

// ParseYAML is ParseWithin's yaml.v3 reader: src is
// checked text without a byte order mark. syntaxErr, when not nil, is
// returned in place of a YAML syntax error (what the JSON reader said).
func ParseYAML(file string, src []byte, b *Budget, syntaxErr error) ([]*Doc, error) {
	var docs []*Doc
	var numbers ErrorList // numbers that cannot be read, in every Doc
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if syntaxErr != nil {
				return nil, syntaxErr
			}
			return withNumbers(numbers, nil, yamlError(file, src, err))
		}
		before := b.Used
		c := &converter{file: file, pos: map[string]Position{}, budget: b, posCap: len(src), numbers: &numbers}
		v, err := c.value(&n, "", 0, true)
		if err != nil {
			return withNumbers(numbers, nil, err)
		}
		if v != nil {
			docs = append(docs, &Doc{File: file, Index: len(docs), Value: v, Pos: c.pos, Cost: b.Used.Minus(before)})
		}
	}
	return withNumbers(numbers, docs, nil)
}

// withNumbers returns what a reader read (docs, or err, the error that
// stopped it; docs is nil when err is not), or, when some numbers could not
// be read, every such number followed by err, if any.
func withNumbers(numbers ErrorList, docs []*Doc, err error) ([]*Doc, error) {
	if len(numbers) == 0 {
		return docs, err
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return nil, err
		}
		return nil, append(numbers, e)
	}
	return nil, numbers
}

func checkText(file string, src []byte) error {
	if len(src) > MaxInputBytes {
		return InputError(Position{File: file}, "file is %d bytes, more than the %d MiB limit", len(src), MaxInputBytes>>20)
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		line, col := sourcetext.LineCol(src, i)
		return InputError(Position{File: file, Line: line, Col: col}, "NUL byte: this is a binary file, not YAML or JSON text")
	}
	if !utf8.Valid(src) {
		i := sourcetext.FirstInvalidUTF8(src)
		line, col := sourcetext.LineCol(src, i)
		return InputError(Position{File: file, Line: line, Col: col}, "invalid UTF-8: save the file as UTF-8 text")
	}
	return nil
}

// yamlError turns a yaml.v3 error reading src into an *Error at the line
// and column sourcetext.YAMLError finds for it.
func yamlError(file string, src []byte, err error) error {
	line, col, problem := sourcetext.YAMLError(src, err)
	return InputError(Position{File: file, Line: line, Col: col}, "malformed YAML: %s", problem)
}

type converter struct {
	file   string
	pos    map[string]Position
	posCap int // positions inside alias expansions stop once pos has this many
	budget *Budget
	alias  *yaml.Node // the outermost alias being expanded, if any
	// numbers collects the numbers that cannot be read (see number).
	numbers *ErrorList
}

// number records a number the apiserver could not read and lets the
// conversion go on (with null in its place), so every such number in the
// file is reported, not only the first; past MaxErrors it stops.
func (c *converter) number(n *yaml.Node, format string, args ...any) (any, error) {
	return nil, addNumberError(c.numbers, c.file, InputError(c.at(n), format, args...))
}

// addNumberError records e, a number of file that cannot be read, in
// numbers (both readers report every such number at the end, see
// withNumbers); at MaxErrors it returns the error that stops the reading.
func addNumberError(numbers *ErrorList, file string, e *Error) error {
	*numbers = append(*numbers, e)
	if len(*numbers) >= MaxErrors {
		return InputError(Position{File: file}, "reading stopped after %d numbers it cannot hold (fix these first)", MaxErrors)
	}
	return nil
}

// at is the position of n in the file.
func (c *converter) at(n *yaml.Node) Position {
	return Position{File: c.file, Line: n.Line, Col: n.Column}
}

func (c *converter) errorf(n *yaml.Node, format string, args ...any) error {
	return InputError(c.at(n), format, args...)
}

// charge adds one value to the budget. Over it, the error is at the alias
// whose expansion crossed it (or at the value, outside aliases).
func (c *converter) charge(n *yaml.Node, k Cost) error {
	why := c.budget.Charge(k)
	if why == "" {
		return nil
	}
	if a := c.alias; a != nil {
		return &Error{Pos: c.at(a), Err: BudgetError(fmt.Sprintf("expanding YAML alias *%s (a YAML alias bomb?) brings the compile to %s", a.Value, why))}
	}
	return &Error{Pos: c.at(n), Err: BudgetError("reading " + c.file + " brings the compile to " + why)}
}

// value converts n, found at JSON pointer ptr. record says whether
// positions are kept (false deep inside a large alias expansion, where
// ptr is not built either).
func (c *converter) value(n *yaml.Node, ptr string, depth int, record bool) (any, error) {
	if depth > maxReadDepth {
		return nil, c.errorf(n, "nested more than %d levels deep", maxReadDepth)
	}
	if record {
		if _, seen := c.pos[ptr]; !seen {
			c.pos[ptr] = c.at(n)
		}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], ptr, depth, record)
	case yaml.AliasNode:
		if c.alias == nil {
			c.alias = n
			defer func() { c.alias = nil }()
		}
		return c.value(n.Alias, ptr, depth+1, record && len(c.pos) < c.posCap)
	case yaml.SequenceNode:
		if err := c.charge(n, Cost{Nodes: 1, Bytes: 2 + int64(max(len(n.Content)-1, 0)), Indent: int64(depth)}); err != nil {
			return nil, err
		}
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			iptr := ""
			if record {
				iptr = ptr + "/" + strconv.Itoa(i)
			}
			v, err := c.value(item, iptr, depth+1, record)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		if err := c.charge(n, Cost{Nodes: 1, Bytes: 2, Indent: int64(depth)}); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(n.Content)/2)
		if err := c.mapping(n, ptr, depth, out, true, record); err != nil {
			return nil, err
		}
		return out, nil
	case yaml.ScalarNode:
		v, err := c.scalar(n)
		if err != nil {
			return nil, err
		}
		return v, c.charge(n, Cost{Nodes: 1, Bytes: ScalarJSONLen(v), Indent: int64(depth)})
	}
	return nil, c.errorf(n, "unsupported YAML node")
}

// mapping fills out with the entries of n. Explicit keys win over merged
// ones (<<), and a key written twice is an error.
func (c *converter) mapping(n *yaml.Node, ptr string, depth int, out map[string]any, explicit, record bool) error {
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
			// A merged key that an explicit or earlier one overrides
			// builds nothing, but merging a large mapping many times
			// over is still work.
			if c.budget.ChargeWork(1) {
				at := k
				if c.alias != nil {
					at = c.alias
				}
				return &Error{Pos: c.at(at), Err: BudgetError(fmt.Sprintf("merging YAML mappings (<<) goes over more than the %d keys a %s budget allows (a YAML merge bomb?)", c.budget.Values, Human(c.budget.Limit)))}
			}
			continue
		}
		// The key, its colon and a comma.
		if err := c.charge(k, Cost{Bytes: JSONStringLen(key) + 2}); err != nil {
			return err
		}
		kptr := ""
		if record {
			kptr = JoinPointer(ptr, key)
			c.pos[kptr] = c.at(k)
		}
		val, err := c.value(v, kptr, depth+1, record)
		if err != nil {
			return err
		}
		out[key] = val
	}
	for _, m := range merges {
		if err := c.merge(m, ptr, depth, out, record); err != nil {
			return err
		}
	}
	return nil
}

// merge adds the entries of a merge key's value (a mapping or a list of
// mappings, usually aliases) to out, as an alias expansion.
func (c *converter) merge(m *yaml.Node, ptr string, depth int, out map[string]any, record bool) error {
	if m.Kind == yaml.AliasNode && c.alias == nil {
		c.alias = m
		defer func() { c.alias = nil }()
	}
	for m.Kind == yaml.AliasNode {
		m = m.Alias
		record = record && len(c.pos) < c.posCap
	}
	switch m.Kind {
	case yaml.MappingNode:
		return c.mapping(m, ptr, depth+1, out, false, record)
	case yaml.SequenceNode:
		for _, item := range m.Content {
			it := item
			for it.Kind == yaml.AliasNode {
				it = it.Alias
			}
			if it.Kind != yaml.MappingNode {
				return c.errorf(it, "a merge key (<<) takes mappings")
			}
			if err := c.merge(item, ptr, depth, out, record); err != nil {
				return err
			}
		}
		return nil
	}
	return c.errorf(m, "a merge key (<<) takes a mapping or a list of mappings")
}

func (c *converter) scalar(n *yaml.Node) (any, error) {
	tag := n.ShortTag()
	// A number written as JSON writes it is kept as written, if the
	// apiserver can read it.
	if (tag == "!!int" || tag == "!!float") && sourcetext.IsJSONNumber(n.Value) {
		if msg := sourcetext.CheckNumber(n.Value); msg != "" {
			return c.number(n, "%s", msg)
		}
		return json.Number(n.Value), nil
	}
	switch tag {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), nil
		}
		return c.number(n, "integer %s does not fit in 64 bits (the apiserver reads integers as int64); quote it if you mean a string", n.Value)
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return c.number(n, "%s has no JSON form (the apiserver reads only finite numbers); quote it if you mean a string", n.Value)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "!!str":
		// yaml.v3 reads a plain number too large for 64 bits (1e400,
		// 0x1ffffffffffffffff) as a string: that silently changes its
		// type, so it is an error here.
		if n.Style == 0 && sourcetext.OutOfRange(n.Value) {
			return c.number(n, "%s is out of range for a 64-bit number (the apiserver reads numbers as int64 or float64); quote it if you mean a string", n.Value)
		}
		return n.Value, nil
	default:
		return n.Value, nil
	}
}
