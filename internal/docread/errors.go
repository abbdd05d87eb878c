package docread

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrInput: the input is not a readable CRD template.
	ErrInput = errors.New("bad input")
	// ErrBudget: the compile would build more than Options.Budget allows
	// (a $ref, YAML alias or patch blow-up, or a genuinely huge CRD).
	ErrBudget = errors.New("compile budget exceeded")
)

// InputError is an *Error at pos wrapping ErrInput, its message format
// and args as fmt.Sprintf writes them.
func InputError(pos Position, format string, args ...any) *Error {
	return &Error{Pos: pos, Err: fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))}
}

// MaxErrors is how many errors one compile or read reports before it stops.
const MaxErrors = 100

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
	Pointer string // JSON pointer inside the Doc, e.g. /spec/versions/0/schema
	Ref     string // the offending $ref, if any
	Err     error
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

// EscapePointerToken encodes one JSON pointer reference token (RFC 6901).
func EscapePointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// JoinPointer appends a token to a pointer.
func JoinPointer(base, tok string) string { return base + "/" + EscapePointerToken(tok) }
