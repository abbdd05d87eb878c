package resolver

import "bytes"

// Source is a template parsed once, for a tool that must look into a file
// before it compiles it (project's build sorts the files its globs match
// into templates and shared definitions): CompileSource then compiles it
// without parsing it again. Its documents are read-only, shared by every
// compile of it; a Source is safe for concurrent use.
type Source struct {
	name  string // as given to Parse, what Compile would be given
	src   []byte
	docs  []*document
	err   error // what parsing said, as Compile reports it
	limit int64 // the budget it was parsed within
	used  cost  // and what parsing charged to it
	work  int64
}

// Parse parses the template src, named name (as Compile takes them),
// within a compile budget of budget (0: DefaultBudget).
func Parse(name string, src []byte, budget Size) *Source {
	display := name
	if name == "" || name == "-" {
		display = "<stdin>"
	}
	b := newBudget(budget)
	docs, err := parseDocumentsWithin(display, src, b)
	return &Source{name: name, src: src, docs: docs, err: err, limit: b.limit, used: b.used, work: b.work}
}

// Holds reports whether src is what the source was parsed from: a caller
// holding a Source while the file may change reads it again and compiles
// the Source only when it is unchanged.
func (s *Source) Holds(src []byte) bool { return bytes.Equal(s.src, src) }

// Err is the error parsing the source gave, nil when it parsed; compiling
// the source reports it.
func (s *Source) Err() error { return s.err }

// HoldsCRD reports whether a document of the source is a mapping of kind
// CustomResourceDefinition: a template to compile, rather than
// definitions for templates to $ref.
func (s *Source) HoldsCRD() bool {
	for _, d := range s.docs {
		if m, ok := d.value.(map[string]any); ok && m["kind"] == "CustomResourceDefinition" {
			return true
		}
	}
	return false
}

// CompileSource is Compile(name, src) for the source Parse made of them,
// which it does not parse again: the same result, errors and warnings.
// (A Compiler whose budget differs from the one the source was parsed
// within parses it again.)
func (c *Compiler) CompileSource(s *Source) (*Result, error) {
	return c.compile(s.name, s.src, s)
}
