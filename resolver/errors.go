package resolver

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
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
	ErrInput = docread.ErrInput
	// ErrOutsideRoot: a file $ref leaves the project root.
	ErrOutsideRoot = errors.New("file $ref outside the project root")
	// ErrNetwork: a $ref names a URL that would need the network.
	ErrNetwork = errors.New("remote $ref refused (this tool never uses the network)")
	// ErrPatch: a JSON patch operation does not apply.
	ErrPatch = errors.New("JSON patch does not apply")
	// ErrBudget: the compile would build more than Options.Budget allows
	// (a $ref, YAML alias or patch blow-up, or a genuinely huge CRD).
	ErrBudget = docread.ErrBudget
)

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

// What reading shares with compiling (package docread): positions, errors,
// sizes and the budget.
type (
	Position   = docread.Position
	Error      = docread.Error
	ErrorList  = docread.ErrorList
	Diagnostic = docread.Diagnostic
	Size       = docread.Size
	cost       = docread.Cost
	budget     = docread.Budget
	document   = docread.Doc
)

const (
	DefaultBudget = docread.DefaultBudget
	MaxInputBytes = docread.MaxInputBytes
	maxDepth      = docread.MaxDepth
	maxErrors     = docread.MaxErrors
)

var (
	inputError  = docread.InputError
	budgetError = docread.BudgetError
	newBudget   = docread.NewBudget
	joinPointer = docread.JoinPointer
	human       = docread.Human
	sat         = docread.Sat
)

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
