package resolver

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every *Error wraps one of these (or a more specific
// cause), so callers match with errors.Is.
var (
	// ErrUnresolved: a $ref names something that does not exist.
	ErrUnresolved = errors.New("unresolved $ref")
	// ErrCycle: a chain of $refs leads back to itself.
	ErrCycle = errors.New("recursive $ref")
	// ErrNotStructural: the schema cannot be made structural.
	ErrNotStructural = errors.New("not a structural schema")
	// ErrInput: the input is not a readable CRD template.
	ErrInput = errors.New("bad input")
	// ErrOutsideRoot: a file $ref leaves the project root.
	ErrOutsideRoot = errors.New("file $ref outside the project root")
	// ErrNetwork: a $ref names a URL that would need the network.
	ErrNetwork = errors.New("remote $ref refused (this tool never uses the network)")
	// ErrPatch: a JSON patch operation does not apply.
	ErrPatch = errors.New("JSON patch does not apply")
	// ErrBudget: the compile would build more than Options.Budget allows
	// (a $ref, YAML alias or patch blow-up, or a genuinely huge CRD).
	ErrBudget = errors.New("compile budget exceeded")
)

// inputError is an *Error at pos wrapping ErrInput, its message format
// and args as fmt.Sprintf writes them.
func inputError(pos Position, format string, args ...any) *Error {
	return &Error{Pos: pos, Err: fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))}
}

// Position is a place in a source file. Line and Col are 1-based; zero
// means unknown (for example inside an embedded Kubernetes bundle).
type Position struct {
	File string
	Line int
	Col  int
}

// String renders file:line:col, leaving out unknown parts.
func (p Position) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// Error is one problem found while compiling, located by file position and
// JSON pointer. Err holds the cause; it wraps one of the sentinel errors.
type Error struct {
	Pos     Position
	Pointer string // JSON pointer inside the document, e.g. /spec/versions/0/schema
	Ref     string // the offending $ref, if any
	Err     error

	suggest func() string // a "did you mean" search not run yet (see hinted)
}

func (e *Error) Error() string {
	var b strings.Builder
	writePrefix(&b, e.Pos, e.Pointer)
	if e.Ref != "" {
		fmt.Fprintf(&b, "$ref %q: ", e.Ref)
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorList is every error found in one compile, in source order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap exposes the members to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Diagnostic is a warning: the output is valid, but something was changed
// or dropped that the author may want to know about.
type Diagnostic struct {
	Pos     Position
	Pointer string
	Message string
}

func (d Diagnostic) String() string {
	var b strings.Builder
	writePrefix(&b, d.Pos, d.Pointer)
	b.WriteString(d.Message)
	return b.String()
}

// writePrefix writes "file:line:col: pointer: ", leaving out what is
// unknown or empty.
func writePrefix(b *strings.Builder, p Position, ptr string) {
	if s := p.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if ptr != "" {
		b.WriteString(ptr)
		b.WriteString(": ")
	}
}

// escapePointerToken encodes one JSON pointer reference token (RFC 6901).
func escapePointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// unescapePointerToken decodes one JSON pointer reference token.
func unescapePointerToken(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// splitPointer splits "/a/b~1c" into ["a", "b/c"]. "" and "/" edge cases
// follow RFC 6901: "" is the whole document.
func splitPointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q must start with /", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = unescapePointerToken(t)
	}
	return toks, nil
}

// joinPointer appends a token to a pointer.
func joinPointer(base, tok string) string { return base + "/" + escapePointerToken(tok) }

// comparePos orders positions by file, line and column.
func comparePos(a, b Position) int {
	return cmp.Or(strings.Compare(a.File, b.File), a.Line-b.Line, a.Col-b.Col)
}

// FirstRef returns the JSON pointer of the first "$ref" key in the decoded
// value v (keys taken in sorted order, each value walked once): where a
// file that holds a template, not a compiled CRD, says so. A property
// named $ref (a key of properties: JSONSchemaProps' own, in a CRD that
// holds schemas) is no reference.
func FirstRef(v any) (string, bool) { return firstRefUnder(v, "") }

func firstRefUnder(v any, ptr string) (string, bool) {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["$ref"]; ok && !strings.HasSuffix(ptr, "/properties") {
			return joinPointer(ptr, "$ref"), true
		}
		for _, k := range sortedKeys(t) {
			if p, ok := firstRefUnder(t[k], joinPointer(ptr, k)); ok {
				return p, true
			}
		}
	case []any:
		for i, x := range t {
			if p, ok := firstRefUnder(x, joinPointer(ptr, itoa(i))); ok {
				return p, true
			}
		}
	}
	return "", false
}
