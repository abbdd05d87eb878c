package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// Output is one compiled template. It holds the compiled CRDs, not their
// text: Append and Render write the file content (HeaderLine, then the
// CRD YAML) on demand, the same bytes on every call. A build of a thousand
// templates then holds one file's text per core, not a thousand.
type Output struct {
	Template *Template
	// KubeVersion is the Kubernetes minor compiled against, e.g. "1.30".
	KubeVersion string
	// KubeVersions are the minors the content came from (the generated
	// header names them): KubeVersion's, and any that $refs pin.
	KubeVersions []string
	// CRDs are the metadata.name of each compiled CRD, in order.
	CRDs []string
	// JSONSizes are the sizes of their compact JSON, in bytes, in the
	// same order: what the size guard judges.
	JSONSizes []int64
	// Files are the absolute paths of every file the output depends on:
	// the template, each file its $refs read, and its patch. Sorted.
	Files []string
	// Warnings are the resolver's diagnostics and the size warning.
	Warnings []string
	// Descriptions say, in the order of CRDs, what fitDescriptions (or
	// x-descriptions bounds) kept of Kubernetes' descriptions; FitLimit
	// is the fitDescriptions value ("client-side-apply"), "" without.
	Descriptions []resolver.DescriptionFit
	FitLimit     string

	docs        []resolver.Document // the compiled CRDs
	objects     []map[string]any    // docs as plain values, made on first use (most builds never ask)
	objectsOnce sync.Once
	objectsMade atomic.Bool // objects is set

	res      *resolver.Result // renders the YAML (reads only: safe for concurrent use)
	versions []string         // what HeaderLine names: KubeVersions
}

// header is the output's HeaderLine with seal.
func (o *Output) header(seal string) string {
	return HeaderLine(seal, o.Template.Name, o.versions...)
}

// Append appends the file content (HeaderLine, then the CRD YAML) to
// dst and returns the extended slice; with room in dst, it is written in
// place. Safe for concurrent use.
func (o *Output) Append(dst []byte) ([]byte, error) {
	head := o.header(sealPlaceholder)
	body := len(dst) + len(head)
	out, err := o.res.AppendYAML(append(dst, head...))
	if err != nil {
		return dst, fmt.Errorf("%s: %w", o.Template.Name, err)
	}
	// The seal's place: just before the header's end.
	copy(out[body-len(headerEnd)-fileio.SealSize:], fileio.Seal(out[body:]))
	return out, nil
}

// sealPlaceholder holds a seal's place until the body is known.
var sealPlaceholder = strings.Repeat("0", fileio.SealSize)

// Bytes returns the file content in a buffer of its own (Append to nil).
func (o *Output) Bytes() ([]byte, error) { return o.Append(nil) }

// Render streams the file content to w, a bounded piece at a time (the
// whole text is never held). Safe for concurrent use.
func (o *Output) Render(w io.Writer) error {
	return fileio.WriteSealed(w, o.header, o.res.WriteYAMLAfter)
}

// RenderBody is Render without the header (what standard output gets).
func (o *Output) RenderBody(w io.Writer) error {
	return o.res.WriteYAML(w)
}

// Objects are the compiled CRDs as decoded JSON, in the order of CRDs, for callers that
// read schemas without parsing the rendered YAML. They are made on the first call, and shared: read
// them, never change them. Safe for concurrent use.
func (o *Output) Objects() []map[string]any {
	o.objectsOnce.Do(func() {
		o.objects = make([]map[string]any, len(o.docs))
		for i, d := range o.docs {
			o.objects[i] = d.View() // what the outputs of a Compiler share, they share here too
		}
		o.objectsMade.Store(true)
	})
	return o.objects
}

// ObjectsUnkept is Objects for a caller that reads them once and lets
// them go: Objects when made already, else views of the documents that
// are not kept (check, hashing or comparing a thousand outputs, holds one
// at a time). Read them, never change them. Safe for concurrent use.
func (o *Output) ObjectsUnkept() []map[string]any {
	if o.objectsMade.Load() {
		return o.Objects()
	}
	objs := make([]map[string]any, len(o.docs))
	for i, d := range o.docs {
		objs[i] = d.View()
	}
	return objs
}

// Compile compiles every template (only those for which keep returns
// true, when keep is not nil), each as Open read it: the text Open parsed
// to tell templates from shared definitions is what is compiled (the
// files a template's $refs reach are read by the compile). Every failure
// is reported: the error joins one resolver.ErrorList (or other error)
// per failed template.
//
// The templates are compiled on every core, each worker with Compilers of
// its own (a Compiler is not safe for concurrent use): the templates,
// ordered by the Compiler they need (stably), are cut into one contiguous
// run per worker, so the templates of a set go to as few workers as the
// count allows, and what their Compiler resolved for one (a PodSpec with
// its descriptions) serves the next. What comes out does not depend on
// which Compiler compiled it, and the outputs and errors keep the
// templates' order.
func (p *Project) Compile(keep func(*Template) bool) ([]*Output, error) {
	var todo []*Template
	for _, t := range p.Templates {
		if keep == nil || keep(t) {
			todo = append(todo, t)
		}
	}
	outs := make([]*Output, len(todo))
	errs := make([]error, len(todo))
	order := make([]int, len(todo))
	keys := make([]string, len(todo))
	for i, t := range todo {
		order[i], keys[i] = i, compilerKey(t.Policy.options(p.Dir))
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			compilers := map[string]*resolver.Compiler{}
			for _, i := range order[w*len(todo)/workers : (w+1)*len(todo)/workers] {
				outs[i], errs[i] = p.compile(compilers, todo[i])
			}
		})
	}
	wg.Wait()
	return slices.DeleteFunc(outs, func(o *Output) bool { return o == nil }), errors.Join(errs...)
}

// compilerKey names the Compiler a template's options need.
func compilerKey(opts resolver.Options) string {
	return fmt.Sprintf("%s|%t|%d|%s|%s|%t|%d|%d|%t", opts.KubeVersion, opts.RemoveDescriptions, opts.MaxDescriptionLength,
		opts.Recursion, opts.Root, opts.AllowOutsideRoot, opts.Budget, opts.FitDescriptions, opts.AllowRemovedAPI)
}

// compile compiles t with the Compiler its options need (compilerKey),
// made on first use.
func (p *Project) compile(compilers map[string]*resolver.Compiler, t *Template) (*Output, error) {
	opts := t.Policy.options(p.Dir)
	key := compilerKey(opts)
	opts.Parsed = p.parsed // shared definitions parsed once, by Open
	// Templates with the same options share a Compiler, and with it the
	// resolved $ref targets (a PodSpec is decoded and normalised once per
	// build, not once per template), whatever their patches: each patch
	// is given to its own compile (CompilePatched).
	c, err := compilerFor(compilers, key, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	var patch *resolver.Patch
	if t.Patch != "" {
		src, err := p.reader.ReadFile(t.Patch)
		if err != nil {
			return nil, fmt.Errorf("%s: reading its patch: %w", t.Name, err)
		}
		if patch, err = p.parsePatch(t.Patch, src); err != nil {
			return nil, err
		}
	}
	// Open read every template and parsed it (classify): CompilePatched
	// compiles that text, not a second read of the file.
	res, err := c.CompilePatched(filepath.FromSlash(t.Name), nil, t.source, patch)
	if err != nil {
		return nil, p.whyTemplate(t, err)
	}
	if lim, again := ClientSideRefit(t.Policy.FitDescriptions, res); again {
		opts.FitDescriptions = lim
		if c, err = compilerFor(compilers, compilerKey(opts), opts); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		if res, err = c.CompilePatched(filepath.FromSlash(t.Name), nil, t.source, patch); err != nil {
			return nil, err
		}
	}
	out := &Output{
		Template:     t,
		KubeVersion:  c.KubeVersion(),
		KubeVersions: res.KubeVersions,
		Files:        slices.Clone(res.Files),
		res:          res,
		versions:     res.KubeVersions,
		FitLimit:     t.Policy.FitDescriptions,
	}
	if t.Patch != "" {
		out.Files = append(out.Files, t.Patch)
		slices.Sort(out.Files)
		out.Files = slices.Compact(out.Files)
	}
	for _, w := range res.Warnings {
		out.Warnings = append(out.Warnings, w.String())
	}
	for _, d := range res.Documents {
		serverSide := t.Policy.ServerSideApply != nil && *t.Policy.ServerSideApply
		if err := CheckFit(t.Name, d, t.Policy.FitDescriptions); err != nil {
			return nil, err
		}
		warning, err := checkSize(t.Name, d.Name, d.Annotations(), d.JSONSize(), p.opts.AllowLarge, opts.RemoveDescriptions, serverSide)
		if err != nil {
			return nil, err
		}
		if warning != "" {
			out.Warnings = append(out.Warnings, t.Name+": "+warning)
		}
		out.CRDs = append(out.CRDs, d.Name)
		out.JSONSizes = append(out.JSONSizes, d.JSONSize())
		out.docs = append(out.docs, d)
		out.Descriptions = append(out.Descriptions, d.Descriptions())
	}
	return out, nil
}

// compilerFor returns the Compiler of compilers under key, made from opts
// on first use.
func compilerFor(compilers map[string]*resolver.Compiler, key string, opts resolver.Options) (*resolver.Compiler, error) {
	c := compilers[key]
	if c == nil {
		var err error
		if c, err = resolver.New(opts); err != nil {
			return nil, err
		}
		compilers[key] = c
	}
	return c, nil
}

// ClientSideRefit says whether res, compiled with fitDescriptions limit
// (as written), must be compiled again to a lower limit, and to which:
// FitClientSideApply is WarnSize for a CRD without annotations of its
// own, but client-side apply copies the CRD into an annotation beside
// them, and so counts them twice (lastAppliedTotal); what fits is then
// what they leave, for every CRD of res. A limit nothing fits is 1 (the
// fitting keeps nothing, and CheckFit says so). resolve and build both
// ask, so "fits client-side apply" is never said of a CRD it cannot
// create.
func ClientSideRefit(limit string, res *resolver.Result) (resolver.Size, bool) {
	if limit != FitClientSideApply {
		return 0, false
	}
	lim := resolver.Size(WarnSize)
	for _, d := range res.Documents {
		lim = min(lim, resolver.Size(AnnotationLimit-lastAppliedTotal(d.Annotations(), 0)))
	}
	return max(lim, 1), lim < WarnSize
}

// CheckFit is the size guard of fitDescriptions (limit, as written): a
// CRD larger than its limit with none of Kubernetes' descriptions is an
// error, as one too large for etcd is (ErrTooLarge).
func CheckFit(template string, d resolver.Document, limit string) error {
	fit := d.Descriptions()
	if fit.Fits {
		return nil
	}
	own := ""
	if limit == FitClientSideApply && int64(fit.Limit) < WarnSize {
		own = " (client-side apply's, less the CRD's own annotations, which it counts twice)"
	}
	return fmt.Errorf("%s: %w: CRD %s is %s of compact JSON without any of Kubernetes' descriptions, more than the %s fitDescriptions %q allows%s; shorten descriptions of your own, split the CRD, or raise the limit (for client-side apply, install with server-side apply: serverSideApply: true and no fitDescriptions)",
		template, ErrTooLarge, d.Name, formatBytes(d.JSONSize()), formatBytes(int64(fit.Limit)), limit, own)
}

// DescribeFit renders what fitting kept for a summary line:
// "descriptions: 1,204 of 5,331 kept, to depth 3, fits client-side apply";
// "" when no fitting ran.
func DescribeFit(fit resolver.DescriptionFit, limit string) string {
	if !fit.Applied() {
		return ""
	}
	s := "descriptions: " + commas(fit.Kept) + " of " + commas(fit.Total) + " kept"
	switch {
	case fit.Total == 0:
		s = "descriptions: none from Kubernetes"
	case fit.Kept == fit.Total:
	case fit.Kept == 0:
		s += ", none"
	default:
		s += ", to depth " + strconv.Itoa(fit.Depth)
	}
	switch limit {
	case "":
		return s + " (x-descriptions)"
	case FitClientSideApply:
		return s + ", fits client-side apply"
	case FitHelm:
		return s + ", fits Helm's share"
	}
	return s + ", fits " + formatBytes(int64(fit.Limit))
}

// parsedPatch is a patch file's text and what ParsePatch made of it.
type parsedPatch struct {
	src   []byte
	patch *resolver.Patch
	err   error
}

// parsePatch parses the patch file path, whose text is src, once per
// project and text: the templates of several sets share their patches.
// A Patch is read-only, so the Compilers of every worker share it.
func (p *Project) parsePatch(path string, src []byte) (*resolver.Patch, error) {
	p.patchMu.Lock()
	defer p.patchMu.Unlock()
	if pp, ok := p.patches[path]; ok && bytes.Equal(pp.src, src) {
		return pp.patch, pp.err
	}
	patch, err := resolver.ParsePatch(p.Rel(path), src)
	if p.patches == nil {
		p.patches = map[string]parsedPatch{}
	}
	p.patches[path] = parsedPatch{src: src, patch: patch, err: err}
	return patch, err
}

// Affected selects the outputs a change to the named files can alter:
// those whose Files, or whose output paths, include one of them. Names
// are relative to workDir or absolute. A change to the configuration file
// affects every output. Names that nothing depends on are ignored.
func (p *Project) Affected(outs []*Output, workDir string, changed []string) []*Output {
	set := map[string]bool{}
	for _, name := range changed {
		if !filepath.IsAbs(name) {
			name = filepath.Join(workDir, name)
		}
		set[filepath.Clean(name)] = true
	}
	if p.ConfigFile != "" && set[p.ConfigFile] {
		return outs
	}
	var sel []*Output
	for _, o := range outs {
		hit := slices.ContainsFunc(o.Files, func(f string) bool { return set[f] }) ||
			slices.ContainsFunc(o.Template.Outputs, func(f string) bool { return set[f] })
		if hit {
			sel = append(sel, o)
		}
	}
	return sel
}
