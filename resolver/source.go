package resolver

import (
	"bytes"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
)

// Source is a file parsed once, for a tool that must look into a file
// before it compiles it (project's build sorts the files its globs match
// into templates and shared definitions): CompilePatched then compiles a
// template without parsing it again, and Options.Parsed lets file $refs
// reuse the parse of a shared file. Its documents are read-only, shared
// by every compile of it; a Source is safe for concurrent use.
type Source struct {
	name    string // as given to Parse, what Compile would be given
	display string // the name its positions carry
	src     []byte
	docs    []*document
	err     error // what parsing said, as Compile reports it
	limit   int64 // the budget it was parsed within
	used    cost  // and what parsing charged to it
	work    int64
}

// Parse parses src, named name (as Compile takes them: relative to the
// working directory), within a compile budget of budget (0:
// DefaultBudget).
func Parse(name string, src []byte, budget Size) *Source {
	display := name
	if name == "" || name == "-" {
		display = "<stdin>"
	}
	b := newBudget(budget)
	docs, err := docread.ParseWithin(display, src, b)
	return &Source{name: name, display: display, src: src, docs: docs, err: err, limit: b.Limit, used: b.Used, work: b.Work}
}

// holds reports whether src is what the source was parsed from: a caller
// holding a Source while the file may change reads it again and compiles
// the Source only when it is unchanged.
func (s *Source) holds(src []byte) bool { return bytes.Equal(s.src, src) }

// reusable reports whether s (which may be nil) is what parsing its text
// as display within a budget of limit gives.
func (s *Source) reusable(display string, limit int64) bool {
	return s != nil && s.display == display && s.limit == limit
}

// Err is the error parsing the source gave, nil when it parsed; compiling
// the source reports it.
func (s *Source) Err() error { return s.err }

// HoldsCRD reports whether a document of the source is a mapping of kind
// CustomResourceDefinition: a template to compile, rather than
// definitions for templates to $ref.
func (s *Source) HoldsCRD() bool {
	for _, d := range s.docs {
		if m, ok := d.Value.(map[string]any); ok && m["kind"] == "CustomResourceDefinition" {
			return true
		}
	}
	return false
}
