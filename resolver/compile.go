package resolver

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdfields"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/emit"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
)

// Definitions is a source of named schema definitions, such as an embedded
// Kubernetes bundle (*schemas.Bundle implements it). Definition returns the
// JSON of one definition; the caller may keep the bytes.
type Definitions interface {
	Definition(name string) ([]byte, error)
	Has(name string) bool
	Names() []string
}

// Recursion policies for Options.Recursion.
const (
	// RecursionError reports a recursive $ref as ErrCycle.
	RecursionError = "error"
	// RecursionPreserve cuts a recursive $ref with a schema that keeps
	// any value (x-kubernetes-preserve-unknown-fields).
	RecursionPreserve = "preserve"
)

// Options configure a Compiler. The zero value is usable: New fills in the
// defaults on its own copy and never writes to the caller's Options.
type Options struct {
	// KubeVersion picks the embedded bundle bare definition names resolve
	// against ("1.30", "1.30.2", "v1.30.14"). Default: the newest.
	KubeVersion string
	// RemoveDescriptions drops the descriptions that $refs into the
	// Kubernetes bundles bring in. Descriptions written in your own files
	// (templates, shared definition files, text beside a $ref) stay.
	RemoveDescriptions bool
	// MaxDescriptionLength truncates bundle descriptions longer than this
	// many bytes at a sentence or word boundary. 0 means no limit.
	MaxDescriptionLength int
	// Recursion is RecursionError (default) or RecursionPreserve.
	Recursion string
	// Root is the directory file $refs may not leave. Default: the nearest
	// ancestor of the template's directory holding .git, else the working
	// directory when it holds the template, else the template's directory.
	Root string
	// AllowOutsideRoot lets file $refs leave Root.
	AllowOutsideRoot bool
	// WorkDir resolves python://pkg/path refs and relative template names.
	// Default: the process working directory.
	WorkDir string
	// Patch is applied (RFC 6902) to every compiled document (of Compile
	// of a parsed Source; CompilePatched gives each compile its own).
	Patch *Patch
	// Budget bounds, in bytes of compact JSON (the form the apiserver
	// stores), what one Compile may build: the values it reads (the
	// template and the files its $refs reach, after YAML aliases are
	// expanded), the schema of every $ref it splices in (counted in full
	// at every use, though shared in memory), what its JSON patch
	// operations add, and the compiled CRDs themselves. It also allows
	// Budget/32 values, and YAML indentation of up to twice Budget. It is
	// checked while working, so a $ref, alias or patch blow-up fails in
	// milliseconds at the $ref, alias or patch operation that crossed it,
	// with an error wrapping ErrBudget. Default (0): DefaultBudget.
	Budget Size
	// Bundles loads the bundle of a Kubernetes version. Default: the
	// embedded bundles (package schemas). Tests may substitute.
	Bundles func(version string) (Definitions, string, error)
	// Parsed holds files already parsed (Parse, by absolute path) that
	// file $refs may reach: such a file is still read, through the reader,
	// and its parse reused when it holds the same bytes (project's build
	// parses every matched file once, to sort templates from shared
	// definitions). Read only; may be shared by Compilers.
	Parsed map[string]*Source
	// FitDescriptions, when above 0, keeps of Kubernetes' descriptions as
	// many as let each compiled CRD's compact JSON stay within it (the
	// author's descriptions are always kept): shallowest first, see
	// DescriptionFit and fit.go. Document.Descriptions says what was
	// kept. It may not be combined with RemoveDescriptions.
	FitDescriptions Size
	// AllowRemovedAPI compiles an apiextensions.k8s.io/v1beta1 template
	// for a minor that no longer serves v1beta1 CRDs (1.22 and later) with
	// a warning. Without it that is an error, as validate --k8s-version
	// judges the output: an apiserver of the minor refuses the CRD.
	AllowRemovedAPI bool
}

// Compiler compiles CRD templates. It caches the files and definitions it
// has read, so compiling many templates with one Compiler is cheap. A
// Compiler is not safe for concurrent use.
type Compiler struct {
	opts    Options
	version string // canonical minor of opts.KubeVersion
	major   int    // version, parsed (-1 when unreadable)
	minorN  int
	// versionNote warns every compile of a patch release above the
	// embedded one (patchversion.go); "" mostly.
	versionNote string
	bundle      Definitions
	files       map[string][]*document
	defs        map[string]*cachedTarget // resolved $ref targets by key; shared, never modified
	// minorFields holds the fields of the bundle's apiextensions definitions
	// that templates are judged by (minor.go), read on first use.
	minorFields *crdfields.Minor
	// roots holds the default root of each template directory (a stat of
	// .git in it and every parent, once per directory, not per template).
	roots map[string]string
}

// New returns a Compiler for opts. It fails when the Kubernetes version is
// not embedded or an option is out of range.
func New(opts Options) (*Compiler, error) {
	if opts.Bundles == nil {
		opts.Bundles = embeddedBundle
	}
	switch opts.Recursion {
	case "":
		opts.Recursion = RecursionError
	case RecursionError, RecursionPreserve:
	default:
		return nil, fmt.Errorf("%w: recursion policy %q: want %q or %q", ErrInput, opts.Recursion, RecursionError, RecursionPreserve)
	}
	if opts.Budget < 0 {
		return nil, fmt.Errorf("%w: budget %d is negative", ErrInput, opts.Budget)
	}
	if opts.Budget == 0 {
		opts.Budget = DefaultBudget
	}
	if opts.MaxDescriptionLength < 0 {
		return nil, fmt.Errorf("%w: max description length %d is negative", ErrInput, opts.MaxDescriptionLength)
	}
	if opts.FitDescriptions < 0 {
		return nil, fmt.Errorf("%w: fit descriptions limit %d is negative", ErrInput, opts.FitDescriptions)
	}
	if opts.FitDescriptions > 0 && opts.RemoveDescriptions {
		return nil, fmt.Errorf("%w: fitting descriptions to a size and removing them exclude each other; choose one", ErrInput)
	}
	if opts.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		opts.WorkDir = wd
	}
	b, version, err := opts.Bundles(opts.KubeVersion)
	if err != nil {
		return nil, err
	}
	c := &Compiler{
		opts:        opts,
		version:     version,
		bundle:      b,
		files:       map[string][]*document{},
		defs:        map[string]*cachedTarget{},
		minorFields: crdfields.NewMinor(version, b),
		roots:       map[string]string{},
	}
	c.major, c.minorN = parseVersion(version)
	c.versionNote = patchNote(opts.KubeVersion, b)
	return c, nil
}

// KubeVersion returns the Kubernetes minor the compiler targets, e.g. "1.30".
func (c *Compiler) KubeVersion() string { return c.version }

// Document is one compiled CRD.
type Document struct {
	// Name is metadata.name of the CRD.
	Name string
	// obj shares subtrees with the Compiler's cache and carries private
	// bookkeeping keys; Object returns a clean copy.
	obj map[string]any
	// jsonSize is what the compile measured for its budget; yamlSize
	// about what its YAML takes (the JSON's bytes and two spaces per level
	// of every value), to size the output buffer.
	jsonSize, yamlSize int64
	fit                *DescriptionFit
}

// Descriptions says what fitting kept of Kubernetes' descriptions (see
// Options.FitDescriptions); the zero value when it did not run.
func (d Document) Descriptions() DescriptionFit {
	if d.fit == nil {
		return DescriptionFit{Depth: -1, Fits: true}
	}
	return *d.fit
}

// JSONSize is the length in bytes of the CRD's compact JSON: exactly what
// json.Marshal(d.Object()) returns (the form the apiserver is sent, and
// what client-side `kubectl apply` copies into its annotation). It was
// measured during the compile; nothing is encoded to get it.
func (d Document) JSONSize() int64 { return d.jsonSize }

// Object returns the CRD as plain JSON-like values (map[string]any, []any,
// string, bool, json.Number, nil), a fresh copy the caller may modify. It
// holds no $ref.
func (d Document) Object() map[string]any { return cleanCopy(d.obj).(map[string]any) }

// Annotations returns metadata.annotations of the CRD (string values only,
// as the apiserver requires), a fresh map; nil when there are none.
func (d Document) Annotations() map[string]string {
	annots, _ := dig(d.obj, "metadata", "annotations").(map[string]any)
	if len(annots) == 0 {
		return nil
	}
	out := make(map[string]string, len(annots))
	for k, v := range annots {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// cleanCopy deep-copies v, leaving out the compiler's private keys.
func cleanCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if k != bundleDefault {
				out[k] = cleanCopy(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = cleanCopy(x)
		}
		return out
	}
	return v
}

// Result is the output of one Compile.
type Result struct {
	Documents []Document
	// Files lists every file the template read, itself included, as
	// absolute paths, sorted. A change to any of them changes the output.
	Files []string
	// Warnings are changes made to reach a structural schema that the
	// author may want to know about.
	Warnings []Diagnostic
	// KubeVersions are the Kubernetes minors the content came from,
	// sorted: the target's, and those $refs pin (python://...k8s-1.21.1.json,
	// GitHub swagger URLs). Just the target's when nothing is pinned.
	KubeVersions []string
}

// YAML encodes the documents as deterministic YAML (one "---" separated
// stream when there are several).
func (r *Result) YAML() ([]byte, error) { return r.AppendYAML(nil) }

// AppendYAML appends what YAML returns to dst and returns the extended
// slice (a caller prefixing a header writes it once, in one buffer). When
// dst has room for the text it is written in place: a caller rendering
// many Results reuses one buffer.
func (r *Result) AppendYAML(dst []byte) ([]byte, error) {
	// Room for the whole text up front: growing by doubling copies (and
	// faults in) every intermediate buffer. Block YAML of a schema is
	// three to four times its compact JSON, most of it indentation.
	size := int64(len(dst)) + 4096 + r.YAMLSize()
	// A make of the capacity, not slices.Grow: growing appends zeros up to
	// the capacity, touching every page of an estimate that is a tenth too
	// large, where fresh memory from make is left for the writes to touch.
	buf := dst
	if int64(cap(dst)) < size {
		buf = make([]byte, len(dst), max(int(min(size, 64<<20)), len(dst)))
		copy(buf, dst)
	}
	return emit.AppendDocuments(buf, r.objects())
}

// YAMLSize is about the size of the text AppendYAML writes: an estimate
// made from what the compile measured, a tenth or so over.
func (r *Result) YAMLSize() int64 {
	var size int64
	for _, d := range r.Documents {
		size += d.yamlSize
	}
	return size
}

// WriteYAML streams what YAML returns to w, without holding the whole
// text in memory.
func (r *Result) WriteYAML(w io.Writer) error { return r.WriteYAMLAfter(w, "") }

// WriteYAMLAfter is WriteYAML with prefix (a header) written first, in
// the same buffer.
func (r *Result) WriteYAMLAfter(w io.Writer, prefix string) error {
	return emit.WriteDocuments(w, prefix, r.objects())
}

func (r *Result) objects() []any {
	docs := make([]any, len(r.Documents))
	for i, d := range r.Documents {
		docs[i] = d.obj
	}
	return docs
}

// Compile compiles the template src. name is its path (relative to WorkDir
// or absolute), used for relative file refs and for error positions; "-"
// or "" mean standard input, whose refs are relative to WorkDir. On failure
// the error is an ErrorList.
func (c *Compiler) Compile(name string, src []byte) (*Result, error) {
	return c.compile(name, src, nil, c.opts.Patch)
}

// CompilePatched is Compile with patch (nil: none) in place of
// Options.Patch. Templates with patches of their own share one Compiler,
// and with it every resolved $ref target: a patch copies on write what it
// changes of a compiled document, never a cached target. parsed, when
// not nil, is the source Parse made of name and src, which it does not
// parse again (a Compiler whose budget differs from the one the source
// was parsed within parses it again).
func (c *Compiler) CompilePatched(name string, src []byte, parsed *Source, patch *Patch) (*Result, error) {
	if parsed != nil {
		name, src = parsed.name, parsed.src
	}
	return c.compile(name, src, parsed, patch)
}

// compile is Compile; the documents are parsed's when it was parsed within
// the same budget (source.go).
func (c *Compiler) compile(name string, src []byte, parsed *Source, patch *Patch) (*Result, error) {
	display, abs := c.templatePath(name)
	// One budget for the whole compile, from the first value read.
	b := newBudget(c.opts.Budget)
	var docs []*document
	var err error
	if parsed.reusable(display, b.Limit) {
		docs, err = parsed.docs, parsed.err
		b.Used, b.Work = parsed.used, parsed.work
	} else {
		docs, err = docread.ParseWithin(display, src, b)
	}
	if err != nil {
		return nil, asList(err)
	}
	if len(docs) == 0 {
		return nil, ErrorList{inputError(Position{File: display}, "the file holds no document")}
	}
	root := c.opts.Root
	if root == "" {
		root = c.defaultRoot(filepath.Dir(abs))
	}
	r := &run{c: c, patch: patch, template: abs, root: root, diagnostics: newDiagnostics(), display: map[string]string{abs: display},
		budget: b, used: map[string]bool{abs: true}, local: map[string]*cachedTarget{}}
	c.files[abs] = docs
	defer delete(c.files, abs) // the template itself may change between calls
	res := &Result{}
	// Each document through the stages of the data flow (document.go).
	for _, d := range docs {
		obj, size, ok := r.compileDocument(abs, d)
		if ok {
			name, _ := dig(obj, "metadata", "name").(string)
			res.Documents = append(res.Documents, Document{Name: name, obj: obj, jsonSize: size.Bytes, yamlSize: sat(size.Bytes + 2*size.Indent)})
		}
	}
	warnings, errs := r.finish(display)
	if len(errs) > 0 {
		return nil, errs
	}
	for _, f := range append(r.readLog, abs) {
		if !strings.HasPrefix(filepath.Base(f), "<") {
			res.Files = append(res.Files, f)
		}
	}
	slices.Sort(res.Files)
	res.Files = slices.Compact(res.Files)
	res.Warnings = collapsePins(warnings)
	if c.versionNote != "" {
		res.Warnings = append([]Diagnostic{{Pos: Position{File: display}, Message: c.versionNote}}, res.Warnings...)
	}
	res.KubeVersions = r.kubeVersions()
	if !c.opts.RemoveDescriptions && (c.opts.FitDescriptions > 0 || len(r.bounds) > 0) {
		c.fitResult(res, docs, r)
	}
	return res, nil
}

// fitResult fits the descriptions of every document of res (compiled from
// docs by r) to Options.FitDescriptions and r's bounds.
func (c *Compiler) fitResult(res *Result, docs []*document, r *run) {
	kube := kubeDescriptions(r)
	for i := range res.Documents {
		var own []descBound
		for _, b := range r.bounds {
			if i < len(docs) && b.doc == docs[i] {
				own = append(own, b)
			}
		}
		full := res.Documents[i]
		bare, total := withoutKubeDescriptions(full, kube)
		res.Documents[i] = c.fitDocument(full, bare, total, own, c.opts.FitDescriptions)
	}
}

func (c *Compiler) templatePath(name string) (display, abs string) {
	if name == "" || name == "-" {
		return "<stdin>", filepath.Join(c.opts.WorkDir, "<stdin>")
	}
	abs = name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(c.opts.WorkDir, name)
	}
	return name, filepath.Clean(abs)
}

// defaultRoot finds the project root for a template living in dir, once
// per directory.
func (c *Compiler) defaultRoot(dir string) string {
	root, ok := c.roots[dir]
	if !ok {
		root = fileio.ProjectRoot(dir, c.opts.WorkDir)
		c.roots[dir] = root
	}
	return root
}
