package resolver

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
)

// unknownDefinition builds the error for a definition name that exists
// neither in the document's own definitions nor in the bundle, with the
// closest names as suggestions.
func unknownDefinition(name, version string, b Definitions, local []string) error {
	where := "the Kubernetes " + version + " bundle"
	if len(local) > 0 {
		where = "the document's definitions or " + where
	}
	return &hinted{err: fmt.Errorf("%w: no definition %q in %s", ErrUnresolved, name, where), suggest: func() string {
		return suggestDefinition(name, b, local)
	}}
}

// suggestDefinition names the definitions closest to name.
func suggestDefinition(name string, b Definitions, local []string) string {
	// Same last segment (PodSpec -> io.k8s.api.core.v1.PodSpec, v1.PodSpec).
	short := name[strings.LastIndexByte(name, '.')+1:]
	var cands []string
	for _, n := range b.Names() {
		if strings.HasSuffix(n, "."+short) || n == short || strings.EqualFold(n[strings.LastIndexByte(n, '.')+1:], short) {
			cands = append(cands, n)
		}
	}
	for _, n := range local {
		if strings.EqualFold(n[strings.LastIndexByte(n, '.')+1:], short) {
			cands = append(cands, "#/definitions/"+n)
		}
	}
	if len(cands) > 0 {
		slices.SortFunc(cands, func(a, b string) int { return cmp.Or(apiRank(a)-apiRank(b), strings.Compare(a, b)) })
		return "; did you mean " + strings.Join(cands[:min(len(cands), 4)], " or ") + "?"
	}
	return suggest.DidYouMean(name, append(slices.Clone(local), b.Names()...))
}

// hinted is an error whose suggestion ("; did you mean X?") costs a
// search over thousands of names. The search runs only for the errors a
// compile reports (the first maxErrors, in source order): the *Error
// keeps the hinted cause in its chain, and reveal appends the search's
// result to the message.
type hinted struct {
	err     error
	suggest func() string
}

func (h *hinted) Error() string { return h.err.Error() }

// Unwrap returns the error without its suggestion.
func (h *hinted) Unwrap() error { return h.err }

// revealed is a cause whose suggestion is in its message.
type revealed struct{ error }

func (r revealed) Unwrap() error { return r.error }

// reveal appends e's suggestion, if any, to its message, once.
func reveal(e *Error) {
	var h *hinted
	var done revealed
	if e == nil || errors.As(e.Err, &done) || !errors.As(e.Err, &h) {
		return
	}
	e.Err = revealed{fmt.Errorf("%w%s", e.Err, h.suggest())}
}

// apiRank puts core and stable API groups first: core/v1 before apps/v1
// before anything beta.
func apiRank(n string) int {
	switch {
	case strings.Contains(n, ".core.v1."):
		return 0
	case strings.Contains(n, "alpha"):
		return 3
	case strings.Contains(n, "beta"):
		return 2
	}
	return 1
}
