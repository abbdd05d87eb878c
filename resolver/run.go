package resolver

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
)

// run is the state of one Compile, shared by its stages (see the package
// documentation's "Reading the code"): what the compile reads, the stack of
// $ref targets being resolved (for cycle detection and the chains of
// diagnostics), what it has spent of its budget, and the diagnostics it
// collects (embedded: errAt, warn and the bundle chains write there, Compile
// reads them out at the end).
type run struct {
	c        *Compiler
	patch    *Patch // applied to each compiled document (Options.Patch, or CompilePatched's)
	template string // absolute path of the template being compiled
	root     string

	// Reading (files.go).
	display map[string]string // absolute path -> name shown in messages
	readLog []string          // every file read, in order, for the cache
	files   *fileio.Reader    // see reader
	used    map[string]bool   // files whose reading this compile has been charged for
	real    map[string]string // realPath's answers, for this compile only

	// Resolving (resolve.go, chain.go).
	stack []frame                  // the $ref targets being resolved, outermost first
	cuts  int                      // cycle cuts so far; results containing one are not cached
	local map[string]*cachedTarget // the template's own resolved targets, for this compile only
	outer *site                    // the template's $ref being resolved, for work-budget errors
	nest  int                      // schema levels resolveSchema is inside

	// Describing (fit.go): the texts of the descriptions Kubernetes'
	// definitions brought in, and of those the author wrote (the template,
	// the files its $refs reach, its patch), in resolution order; targets
	// served from the cache replay theirs.
	kubeTexts, ownTexts []string

	// Spending (budget.go).
	budget  *budget
	stopped bool // over budget or too deep: resolve nothing more
	output  cost // the documents compiled so far

	diagnostics

	// Versions (pins.go): the minors whose bundles this compile read, in
	// order, repeats included (a cached target replays its own).
	minorLog []string

	// bounds are the descriptionsKey bounds the template's schemas
	// write (fit.go), in the order resolved.
	bounds []descBound
}

// errStopped is returned once the compile is stopped; the reason has been
// reported where it happened.
var errStopped = errors.New("compile stopped")

// scope says where a $ref is written: in a file (one of its documents) or
// inside an embedded bundle.
type scope struct {
	file    string    // absolute path; "" inside a bundle
	doc     *document // the document holding the ref (file scope)
	version string    // bundle scope: the bundle's version
}

func (s scope) inBundle() bool { return s.file == "" }

// position is where a diagnostic at ptr in this scope is reported: its
// place in the file, or, inside a bundle, the bundle.
func (s scope) position(ptr string) Position {
	if s.inBundle() {
		return Position{File: "Kubernetes " + s.version + " bundle"}
	}
	return s.doc.Position(ptr)
}

// target is what a $ref points at: a bundle definition or a JSON pointer
// into a file's document.
type target struct {
	version string // bundle definition: Kubernetes minor
	name    string // bundle definition name
	file    string // absolute path
	doc     int
	pointer string
}

func (t target) key() string {
	if t.file == "" {
		return "k8s-" + t.version + "#/definitions/" + t.name
	}
	return fmt.Sprintf("%s[%d]#%s", t.file, t.doc, t.pointer)
}

func (r *run) label(t target) string {
	if t.file == "" {
		if t.version == r.c.version {
			return t.name
		}
		return t.name + " (Kubernetes " + t.version + ")"
	}
	name := r.display[t.file]
	if name == "" {
		name = t.file
	}
	return name + "#" + t.pointer
}

// site is the place a $ref is written, for error messages.
type site struct {
	sc  scope
	ptr string
	ref string
}

// stop reports err at s and stops the compile's resolution.
func (r *run) stop(s site, err error) {
	if !r.stopped {
		r.stopped = true
		r.errAt(s, err)
	}
}

// stopForWork stops the compile because resolving its $refs created more
// values than the budget allows, reporting it at the template's $ref
// being resolved (or at ptr, outside any).
func (r *run) stopForWork(sc scope, ptr string) {
	s := site{sc: sc, ptr: ptr}
	if r.outer != nil {
		s = *r.outer
	}
	r.stop(s, budgetError(fmt.Sprintf("resolving its $refs creates more than the %d values a %s budget allows", r.budget.Values, human(r.budget.Limit))))
}

// relative names a path for messages: relative to the working directory
// when it is below it.
func (r *run) relative(abs string) string {
	rel, err := filepath.Rel(r.c.opts.WorkDir, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}
