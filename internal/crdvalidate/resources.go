package crdvalidate

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdfields"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// Pruning policies: what a field the apiserver would prune is.
const (
	PruneError  = "error"  // a problem, as with fieldValidation=Strict (kubectl's default)
	PruneWarn   = "warn"   // a warning, as with fieldValidation=Warn
	PruneIgnore = "ignore" // nothing, as with fieldValidation=Ignore
)

// Input is one file given to validate.
type Input struct {
	Name    string // for messages: the path as given, or <stdin>
	Content []byte
	// Open, when set, opens the file (through internal/fileio's reader,
	// within its size limit) to be read as a stream: Files decodes and
	// judges its objects one at a time as they are read, and Content is
	// not used.
	Open func() (io.ReadCloser, error)
	// KubernetesVersion, for a file of CRDs to judge custom resources
	// against (Options.CRDs), is the version its CRDs are kept and
	// validated for ("" Options.KubernetesVersion): a project's examples
	// judged against several sets' CRDs judge each CRD's objects by its
	// set's kubernetesVersion.
	KubernetesVersion string
}

// documents returns the documents of the input, read as they are
// decoded (docread.DecodeReader), and a function closing what was
// opened.
func (in Input) documents() (iter.Seq2[docread.Decoded, error], func(), error) {
	if in.Open == nil {
		return docread.DecodeReader(in.Name, bytes.NewReader(in.Content), 0), func() {}, nil
	}
	rc, err := in.Open()
	if err != nil {
		return nil, nil, err
	}
	return docread.DecodeReader(in.Name, rc, 0), func() { _ = rc.Close() }, nil
}

// Options are how Files judges.
type Options struct {
	// KubernetesVersion selects the formats CRD validation knows ("" the
	// newest embedded).
	KubernetesVersion string
	// Pruning is PruneError (the default, ""), PruneWarn or PruneIgnore.
	Pruning string
	// CRDs are more files of CRDs custom resources are judged against,
	// after those of the files themselves (--crd).
	CRDs []Input
	// DefaultCRDs, when set, returns the CRDs to use when a custom resource
	// has none among the files and CRDs (the project's compiled outputs).
	// It is called at most once.
	DefaultCRDs func() ([]Input, error)
	// BuiltinVersion is the Kubernetes version objects of Kubernetes' own
	// kinds are judged for when KubernetesVersion is "" (a project's
	// pin; "" the newest embedded).
	BuiltinVersion string
	// HandWritten, when set, judges objects of Kubernetes' own kinds with
	// the apiserver's hand-written validation (handwritten.go) for the
	// minor it links; nil judges them by their schema only, and says so.
	HandWritten *HandWritten
	// KeepStored keeps each custom resource as it would be stored.
	KeepStored bool
	// IgnoreMissing makes a custom resource whose CRD none of the files
	// gives a warning (kubeconform's -ignore-missing-schemas); by default
	// it is a problem: nothing judged is no pass.
	IgnoreMissing bool
	// Examples says the files are a project's examples, judged against its
	// compiled outputs (a --batch request): messages name the project's
	// templates, not validate's flags.
	Examples bool
	// Tally, when set, is given the count of objects by verdict, and with
	// ListObjects each object with its verdict (-o junit, -o tap).
	Tally       *Tally
	ListObjects bool
}

// Stored is a custom resource as the apiserver would store it.
type Stored struct {
	File   string         `json:"file"`
	Object map[string]any `json:"object"`
}

// Files validates every document of files: each CRD with the apiserver's
// CRD validation (as Documents does), and each custom resource as a
// create request of it would be judged, against the CRD of its group and
// kind (Create); each item of a kind: List document is an object of its
// own. Documents of Kubernetes' own groups are skipped; a resource no CRD
// given defines is a problem (a warning with IgnoreMissing), as is an
// apiVersion or kind kubectl refuses and an object too large to store.
// One result per file, in order, then one per CRD file (opts.CRDs, the
// default CRDs) whose CRDs have problems, reported there.
//
// Objects are judged as they are read (a judging: one document decoded
// at a time, a few objects judged at once on every core, and of each
// judged object only its findings kept), so the memory of a stream of
// many objects is that of a few. An object is judged against the CRD of
// its group and kind known when it is read: among the files, before it;
// else from opts.CRDs (read at the first custom resource); else the
// default CRDs (read at the first custom resource none of those defines).
// An object whose CRD none of them gives is kept, and judged once every
// file was read, against the CRDs of all of them.
func Files(ctx context.Context, files []Input, opts Options) ([]project.ValidationResult, []Stored, error) {
	results := make([]project.ValidationResult, len(files))
	var crdDocs []project.ValidationDoc
	var crdOf []int // the file of each of crdDocs
	j := newJudging(ctx, opts, len(files))
	defer j.stop()
	for i, f := range files {
		results[i].Name = f.Name
		crds, err := j.readFile(i, f, &results[i])
		if err != nil {
			return nil, nil, err
		}
		if len(crds) > 0 {
			crdDocs = append(crdDocs, project.ValidationDoc{Name: f.Name, Objects: crds, KubernetesVersion: opts.KubernetesVersion})
			crdOf = append(crdOf, i)
		}
	}
	if err := j.finish(); err != nil {
		return nil, nil, err
	}
	for i, r := range Documents(ctx, crdDocs) {
		res := &results[crdOf[i]]
		res.Problems = append(res.Problems, r.Problems...)
		res.Warnings = append(res.Warnings, r.Warnings...)
		j.crdVerdicts(crdOf[i], r.Problems)
	}
	if j.any {
		results = append(results, j.given...)
		schemaOnlyNotes(results, j.builtins, cmp.Or(opts.builtinVersion(), schemas.Latest()))
		for i := range files {
			res := &results[i]
			res.Problems = append(res.Problems, j.problems[i]...)
			res.Warnings = append(res.Warnings, j.warnings[i]...)
		}
	}
	j.tallyRest(results, len(files))
	return results, j.stored, nil
}

// readFile reads the file i, f, one document at a time: problems of its
// own (it cannot be decoded, a document is no mapping, a CRD template)
// go to res, its CRDs to the catalog and, as JSON, to what it returns,
// and its custom resources to be judged. An error is one that stops the
// run (the file cannot be opened or read).
func (j *judging) readFile(i int, f Input, res *project.ValidationResult) ([]json.RawMessage, error) {
	docs, done, err := f.documents()
	if err != nil {
		return nil, err
	}
	defer done()
	j.names[i] = f.Name
	var crds []json.RawMessage
	var fatal error // reading --crd or the default CRDs failed
	// add sorts one object (a document, or an item of a kind: List
	// document at the pointer prefix) into CRDs and resources.
	add := func(k int, d docread.Decoded, prefix string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			what := fmt.Sprintf("document %d", k+1)
			if prefix != "" {
				what += " " + prefix[1:]
			}
			p := project.Problem{Line: d.Position(prefix).Line, Column: d.Position(prefix).Col, Message: what + " is not a mapping"}
			res.Problems = append(res.Problems, p)
			j.fileProblem(i, p)
			return
		}
		seq := j.seq
		j.seq++
		if isCRD(m) {
			raw, err := json.Marshal(m)
			if err != nil {
				res.Problems = append(res.Problems, project.Problem{Message: fmt.Sprintf("document %d: %v", k+1, err)})
				return
			}
			crd := &crdObject{Object: Object{File: f.Name, Object: "CustomResourceDefinition/" + objectName(m), Line: d.Position(prefix + "/kind").Line, file: i, seq: seq}}
			j.crds = append(j.crds, crd)
			before := len(res.Problems)
			if templateProblem(res, d, prefix, m, f.Name) {
				crd.Problems = append(crd.Problems, res.Problems[before:]...)
				return
			}
			res.Problems = append(res.Problems, minorProblems(m, d, prefix, j.opts.KubernetesVersion)...)
			crd.Problems = append(crd.Problems, res.Problems[before:]...)
			crd.name, crd.validated = objectName(m), true
			crds = append(crds, raw)
			j.cat.add(m, raw, "")
			return
		}
		// Its size as JSON, counted, not written.
		size := int(docread.JSONLen(m))
		if err := j.submit(&resource{file: i, seq: seq, doc: d, prefix: prefix, obj: m, size: size}); err != nil {
			fatal = err
		}
	}
	n := 0
	for d, err := range docs {
		if fatal != nil {
			return nil, fatal
		}
		if err != nil {
			var re *docread.Error
			var list docread.ErrorList
			if !errors.As(err, &re) && !errors.As(err, &list) {
				return nil, err // not the text: the file cannot be read
			}
			res.Problems = append(res.Problems, decodeProblem(err))
			j.fileProblem(i, decodeProblem(err))
			return crds, nil
		}
		k := n
		n++
		items, isList, err := docread.ListItems(d)
		if err != nil {
			res.Problems = append(res.Problems, decodeProblem(err))
			j.fileProblem(i, decodeProblem(err))
			continue
		}
		if !isList {
			add(k, d, "", d.Value)
			continue
		}
		// What kubectl get -o yaml prints: each item is an object of
		// its own, created (and judged) as if it stood alone.
		for m, item := range items {
			add(k, d, "/items/"+strconv.Itoa(m), item)
		}
	}
	if fatal != nil {
		return nil, fatal
	}
	if n == 0 {
		// What kubectl and kubectl-validate make of it too: no object,
		// so nothing to judge, and said.
		res.Warnings = append(res.Warnings, project.Problem{Message: "the file holds no object (it is empty, or only comments): nothing to judge"})
	}
	return crds, nil
}

// judging judges the custom resources of a run as they are read: a few
// at a time on every core (GOMAXPROCS workers, as many waiting), their
// findings gathered in the order they were read. What it keeps of a
// judged object is its findings; an object whose CRD is not known yet
// (deferred) is kept whole until finish.
type judging struct {
	ctx  context.Context
	opts Options
	// The CRDs objects are judged against, in the order they win: the
	// files' own, opts.CRDs (given, read at the first custom resource),
	// the default CRDs (read at the first custom resource the others do
	// not define; defaultsErr is why they could not be).
	cat, givenCat, defaults *catalog
	givenRead, defaultsRead bool
	defaultsErr             error

	jobs     chan *resource
	workers  sync.WaitGroup
	queue    []*resource // submitted, in order, not gathered yet
	deferred []*resource

	// What was gathered.
	any                bool                       // some object was not a CRD
	given              []project.ValidationResult // results of CRD files with problems
	problems, warnings [][]project.Problem        // by file
	builtins           map[int][]schemaOnly       // objects of Kubernetes' own kinds judged by their schema, by file
	stored             []Stored
	names              []string // the files' names, for stored
	// groups are the kinds of each group of every catalog, for the
	// messages of objects no CRD defines (set by finish).
	groups map[string][]string

	// The tally (Options.Tally): seq numbers the objects of the file being
	// read; crds are the CRDs of the files, judged at the end.
	seq  int
	crds []*crdObject
}

// crdObject is a CRD of the files, for the tally: its problems found while
// reading, then those the apiserver's validation finds (crdVerdicts).
type crdObject struct {
	Object
	name      string // metadata.name, when it was validated
	validated bool   // sent to the apiserver's validation (not a template)
}

// objectName is the object's metadata.name, else its generateName.
func objectName(m map[string]any) string {
	md, _ := m["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if name == "" {
		name, _ = md["generateName"].(string)
	}
	return name
}

// fileProblem tallies a problem of the file i that is no object's.
func (j *judging) fileProblem(i int, p project.Problem) {
	if t := j.opts.Tally; t != nil {
		t.count(Object{File: j.names[i], Line: p.Line, Verdict: Invalid, Problems: []project.Problem{p}, file: i, seq: j.seq}, j.opts.ListObjects)
		j.seq++
	}
}

// crdVerdicts gives the CRDs of the file i the problems the apiserver's
// validation found, by the CRD each names.
func (j *judging) crdVerdicts(i int, problems []project.Problem) {
	for _, p := range problems {
		for _, c := range j.crds {
			if c.file == i && c.validated && c.name == p.CRD {
				c.Problems = append(c.Problems, p)
				break
			}
		}
	}
}

// tallyRest tallies what is known only at the end: the CRDs of the files,
// and the CRD files (results after the first files) with problems.
func (j *judging) tallyRest(results []project.ValidationResult, files int) {
	t := j.opts.Tally
	if t == nil {
		return
	}
	for _, c := range j.crds {
		o := c.Object
		o.Verdict = Valid
		if len(o.Problems) > 0 {
			o.Verdict = Invalid
		}
		t.count(o, j.opts.ListObjects)
	}
	for k, r := range results[files:] {
		t.count(Object{File: r.Name, Verdict: Invalid, Problems: r.Problems, file: files + k}, j.opts.ListObjects)
	}
	t.sortObjects()
}

func newJudging(ctx context.Context, opts Options, files int) *judging {
	n := runtime.GOMAXPROCS(0)
	newCat := func() *catalog {
		return &catalog{byGK: map[schema.GroupKind]*oracle.CRD{}, groups: map[string][]string{}, version: opts.KubernetesVersion, builtinVersion: opts.builtinVersion()}
	}
	j := &judging{ctx: ctx, opts: opts, cat: newCat(), givenCat: newCat(), defaults: newCat(),
		jobs: make(chan *resource, n), problems: make([][]project.Problem, files), warnings: make([][]project.Problem, files),
		builtins: map[int][]schemaOnly{}, names: make([]string, files), groups: map[string][]string{}}
	for range n {
		j.workers.Go(func() {
			for r := range j.jobs {
				r.judge(ctx, j.groups, opts)
				close(r.done)
			}
		})
	}
	return j
}

// stop ends the workers (finish did, unless the run stopped early).
func (j *judging) stop() {
	if j.jobs != nil {
		close(j.jobs)
		j.workers.Wait()
		j.jobs = nil
	}
}

// find sets the CRD the resource is judged against, and why it cannot be
// (refused), from the first catalog that defines its group and kind;
// found is false when none does (yet).
func (j *judging) find(r *resource) (found bool, err error) {
	for _, c := range []*catalog{j.cat, j.givenCat, j.defaults} {
		if crd := c.lookup(r.obj); crd != nil {
			r.crd, r.refused = crd, c.refusedFor(r.obj)
			return true, nil
		}
		if c == j.cat && !j.givenRead {
			j.givenRead = true
			given, err := j.givenCat.addFiles(j.ctx, j.opts.CRDs)
			if err != nil {
				return false, err
			}
			j.given = append(j.given, given...)
		}
		if c == j.givenCat && !j.defaultsRead && j.opts.DefaultCRDs != nil && c.isCustomGroup(r.obj) {
			j.defaultsRead = true
			more, err := j.opts.DefaultCRDs()
			if err != nil {
				j.defaultsErr = err // an error only if an object needs them
				continue
			}
			given, err := j.defaults.addFiles(j.ctx, more)
			if err != nil {
				return false, err
			}
			j.given = append(j.given, given...)
		}
	}
	return false, nil
}

// submit queues the resource: judged now when its CRD is known, or it is
// none of ours to judge (a bad apiVersion or kind, one of Kubernetes' own
// kinds), else deferred to finish.
func (j *judging) submit(r *resource) error {
	j.any = true
	found, err := j.find(r)
	if err != nil {
		return err
	}
	r.done = make(chan struct{})
	r.label, r.line = r.finding("", "", "").Object, r.finding("", "", "").Line
	j.queue = append(j.queue, r)
	if found || !j.cat.isCustomGroup(r.obj) {
		j.jobs <- r
	} else {
		j.deferred = append(j.deferred, r)
	}
	j.gather(false)
	return nil
}

// gather keeps the findings of the judged objects at the head of the
// queue, in order; with wait, of every object queued.
func (j *judging) gather(wait bool) {
	for len(j.queue) > 0 {
		r := j.queue[0]
		if wait {
			<-r.done
		} else {
			select {
			case <-r.done:
			default:
				return
			}
		}
		j.queue[0] = nil
		j.queue = j.queue[1:]
		if r.builtin.Message != "" {
			j.builtins[r.file] = append(j.builtins[r.file], schemaOnly{r.builtin, r.schemaOnlyWhy})
		}
		j.tallyResource(r)
		j.problems[r.file] = append(j.problems[r.file], r.problems...)
		j.warnings[r.file] = append(j.warnings[r.file], r.warnings...)
		if r.stored != nil {
			j.stored = append(j.stored, Stored{File: j.names[r.file], Object: r.stored})
		}
	}
	if len(j.queue) == 0 {
		j.queue = nil // let the backing array go
	}
}

// tallyResource tallies a judged resource.
func (j *judging) tallyResource(r *resource) {
	t := j.opts.Tally
	if t == nil {
		return
	}
	o := Object{File: j.names[r.file], Object: r.label, Line: r.line, file: r.file, seq: r.seq}
	switch {
	case len(r.problems) > 0:
		o.Verdict, o.Problems = Invalid, r.problems
	case r.skipped:
		o.Verdict, o.Problems = NotJudged, r.warnings
	}
	t.count(o, j.opts.ListObjects)
}

// finish judges the deferred objects, against every CRD read, and
// gathers all findings.
func (j *judging) finish() error {
	for _, r := range j.deferred {
		found, err := j.find(r)
		if err != nil {
			return err
		}
		if !found && j.defaultsErr != nil {
			return j.defaultsErr
		}
	}
	// What messages of objects no CRD defines list: the groups and kinds
	// of every catalog, read by the workers only from here on.
	for _, c := range []*catalog{j.cat, j.givenCat, j.defaults} {
		for g, kinds := range c.groups {
			j.groups[g] = append(j.groups[g], kinds...)
		}
	}
	for _, r := range j.deferred {
		j.jobs <- r
	}
	j.deferred = nil
	j.stop()
	j.gather(true)
	return nil
}

// decodeProblem is the problem of a file that cannot be read as YAML or
// JSON: at the place the reader names, which the file name is printed
// beside once (Problem.In), not in the message again.
func decodeProblem(err error) project.Problem {
	var re *docread.Error
	if !errors.As(err, &re) || re.Pos.File == "" {
		return project.Problem{Message: err.Error()}
	}
	return project.Problem{Line: re.Pos.Line, Column: re.Pos.Col, Message: strings.TrimPrefix(err.Error(), re.Pos.String()+": ")}
}

// isCRD reports whether the document is a CustomResourceDefinition.
func isCRD(m map[string]any) bool {
	kind, _ := m["kind"].(string)
	apiVersion, _ := m["apiVersion"].(string)
	return kind == "CustomResourceDefinition" && strings.HasPrefix(apiVersion, "apiextensions.k8s.io/")
}

// isCustomGroup reports whether the document's group may be a CRD's:
// one with a dot that no embedded Kubernetes minor defines kinds of
// (sparkoperator.k8s.io, x-k8s.io groups are custom ones).
func (c *catalog) isCustomGroup(m map[string]any) bool {
	apiVersion, _ := m["apiVersion"].(string)
	group, _, found := strings.Cut(apiVersion, "/")
	if !found || !strings.Contains(group, ".") {
		return false
	}
	idx, err := builtinCache.index(c.builtinVersion)
	return err != nil || !builtinCache.isBuiltinGroup(idx, group)
}

// builtinVersion is the Kubernetes version objects of Kubernetes' own
// kinds are judged for ("" the newest embedded).
func (o Options) builtinVersion() string { return cmp.Or(o.KubernetesVersion, o.BuiltinVersion) }

// catalog is the CRDs custom resources are judged against, by group and
// kind; the first given for a group and kind wins.
type catalog struct {
	byGK   map[schema.GroupKind]*oracle.CRD
	groups map[string][]string // group -> its kinds, for messages
	// version is the Kubernetes version custom resources are judged for
	// ("" the newest embedded): each CRD is kept as its apiserver keeps it.
	version string
	// builtinVersion is the Kubernetes version objects of Kubernetes' own
	// kinds are judged for ("" the newest embedded).
	builtinVersion string
	// refused says, by group and kind, why version's apiserver refuses the
	// CRD itself (an apiVersion it does not serve), so no object of it can
	// be created there.
	refused map[schema.GroupKind]string
}

// add adds the CRD obj, given also as JSON (raw), as version (the
// catalog's when "") keeps it (resolver.KeptByMinor: without the fields that minor drops or
// refuses, such as x-kubernetes-validations before 1.25, and without the
// formats it does not recognise, such as k8s-short-name before 1.34), so
// that a custom resource is judged by what that apiserver enforces. A CRD
// that cannot be decoded is left out (its own validation says why).
func (c *catalog) add(obj map[string]any, raw []byte, version string) schema.GroupKind {
	version = cmp.Or(version, c.version)
	refused := ""
	if version != "" {
		kept, dropped, err := resolver.KeptByMinor(obj, version)
		if err == nil && len(dropped) > 0 {
			if b, err := json.Marshal(kept); err == nil {
				raw = b
			}
			if dropped[0].Pointer == "/apiVersion" {
				refused = dropped[0].Message
			}
		}
	}
	crd, err := oracle.DecodeJSON(raw)
	if err != nil || crd.Kind != "CustomResourceDefinition" {
		return schema.GroupKind{}
	}
	if version != "" {
		if v, err := utilversion.ParseGeneric(version); err == nil {
			forgetFormats(crd.Internal, v)
		}
	}
	gk := schema.GroupKind{Group: crd.Internal.Spec.Group, Kind: crd.Internal.Spec.Names.Kind}
	if _, ok := c.byGK[gk]; ok {
		return schema.GroupKind{}
	}
	if refused != "" {
		c.refuse(gk, fmt.Sprintf("its CRD %s cannot be created in Kubernetes %s, so neither can the object: %s", crd.Internal.Name, version, refused))
	}
	c.byGK[gk] = crd
	c.groups[gk.Group] = append(c.groups[gk.Group], gk.Kind)
	return gk
}

// refuse records why no object of gk can be judged.
func (c *catalog) refuse(gk schema.GroupKind, why string) {
	if c.refused == nil {
		c.refused = map[schema.GroupKind]string{}
	}
	if _, ok := c.refused[gk]; !ok {
		c.refused[gk] = why
	}
}

// addFiles adds the CRDs of files (each item of a kind: List too);
// documents that are no CRD are ignored. The CRDs are validated as the
// apiserver would: a file whose CRDs have problems gets a result of its
// own, returned, that reports them there (at the CRD, not at the objects
// judged against it), and no object is judged against its CRDs.
func (c *catalog) addFiles(ctx context.Context, files []Input) ([]project.ValidationResult, error) {
	var vdocs []project.ValidationDoc
	var gks [][]schema.GroupKind
	var bad []project.ValidationResult
	for _, f := range files {
		docs, err := docread.DecodeDocuments(f.Name, f.Content, 0)
		if err != nil {
			return nil, err
		}
		doc := project.ValidationDoc{Name: f.Name, KubernetesVersion: cmp.Or(f.KubernetesVersion, c.version)}
		var added []schema.GroupKind
		var templates project.ValidationResult
		for _, d := range docs {
			objs, prefixes := []any{d.Value}, []string{""}
			items, isList, err := docread.ListItems(d)
			if err != nil {
				return nil, err
			}
			if isList {
				objs, prefixes = items, nil // kubectl get crd -o yaml
				for k := range items {
					prefixes = append(prefixes, "/items/"+strconv.Itoa(k))
				}
			}
			for k, o := range objs {
				m, ok := o.(map[string]any)
				if !ok || !isCRD(m) {
					continue
				}
				if templateProblem(&templates, d, prefixes[k], m, f.Name) {
					continue
				}
				raw, err := json.Marshal(m)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f.Name, err)
				}
				if gk := c.add(m, raw, f.KubernetesVersion); !gk.Empty() {
					added = append(added, gk)
					doc.Objects = append(doc.Objects, raw)
				}
			}
		}
		if len(templates.Problems) > 0 {
			templates.Name = f.Name
			bad = append(bad, templates)
		}
		if len(doc.Objects) > 0 {
			vdocs = append(vdocs, doc)
			gks = append(gks, added)
		}
	}
	for i, r := range Documents(ctx, vdocs) {
		if len(r.Problems) == 0 {
			continue
		}
		bad = append(bad, r)
		for _, gk := range gks[i] {
			c.refuse(gk, fmt.Sprintf("its CRD (%s %s, from %s) is itself invalid, as reported there: the object is not judged against it", gk.Kind, gk.Group, safetext.Quote(r.Name)))
		}
	}
	return bad, nil
}

// templateProblem adds to res a problem at the first $ref of the CRD m
// (of the document d, at the pointer prefix) when it is a CRD template,
// not a compiled CRD, and reports whether it is one: the apiserver's
// "$ref: Forbidden" would name a path not in the file, at no line.
func templateProblem(res *project.ValidationResult, d docread.Decoded, prefix string, m map[string]any, file string) bool {
	ptr, ok := resolver.FirstRef(m)
	if !ok {
		return false
	}
	pos := d.Position(prefix + ptr)
	name, _ := m["metadata"].(map[string]any)["name"].(string)
	res.Problems = append(res.Problems, project.Problem{Object: "CustomResourceDefinition/" + name, Line: pos.Line, Column: pos.Col,
		Message: fmt.Sprintf("a CRD template (a $ref at %s), not a compiled CRD: the apiserver refuses $ref; compile it first (k8s-crd-resolver resolve %s, or build in its project) and validate the output", ptr, safetext.Quote(file))})
	return true
}

// lookup returns the CRD for the object's group and kind, or nil.
func (c *catalog) lookup(m map[string]any) *oracle.CRD {
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil
	}
	return c.byGK[schema.GroupKind{Group: gv.Group, Kind: kind}]
}

// refusedFor says why the catalog's version refuses the CRD of the object
// ("" when it does not).
func (c *catalog) refusedFor(m map[string]any) string {
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return ""
	}
	return c.refused[schema.GroupKind{Group: gv.Group, Kind: kind}]
}

// resource is one custom resource of a file, and what judging it found.
type resource struct {
	file  int
	seq   int    // its place among the objects of its file
	label string // KIND/NAME
	line  int    // of its kind
	// skipped says no CRD defines it, and IgnoreMissing made that a
	// warning: not judged.
	skipped bool
	doc     docread.Decoded
	prefix  string // the JSON pointer of the object in doc: "" or "/items/N"
	obj     map[string]any
	size    int // bytes as compact JSON

	// crd is the CRD it is judged against (nil: none defines it), and
	// refused why that CRD cannot be created (judging.find).
	crd     *oracle.CRD
	refused string
	done    chan struct{} // closed once judged

	problems, warnings []project.Problem
	stored             map[string]any
	// builtin is where an object of Kubernetes' own kinds judged by its
	// schema stands, its message its apiVersion and kind; Line is 0 for
	// any other object.
	builtin project.Problem
	// schemaOnlyWhy says why the apiserver's hand-written validation did
	// not judge it (handWrittenVerdict).
	schemaOnlyWhy string
	// kind is the definition an object of Kubernetes' own kinds is judged
	// by (judgeBuiltin); zero for any other object.
	kind builtinKind
	// placeDecode is the binary's refusal of a value its decoder could not
	// read, placed by the schema judge (placeDecodeRefusal).
	placeDecode *HandVerdict
}

// judge judges the resource against its CRD.
func (r *resource) judge(ctx context.Context, groups map[string][]string, opts Options) {
	// Once judged, only the findings are kept (and the stored form when
	// asked for): a stream of many objects is not held twice over.
	defer func() { r.obj, r.doc, r.crd = nil, docread.Decoded{}, nil }()
	if !r.checkHead() {
		return
	}
	r.checkSize()
	apiVersion, _ := r.obj["apiVersion"].(string)
	kind, _ := r.obj["kind"].(string)
	crd := r.crd
	builtin := false
	if crd == nil {
		crd, builtin = r.judgeBuiltin(opts.builtinVersion())
		if builtin && crd == nil {
			return // a problem said why
		}
		if builtin && r.handWrittenVerdict(opts) {
			r.builtin = project.Problem{}
			if r.placeDecode == nil {
				r.sortFindings()
				return
			}
			// Runs before the deferred clean-up above, whatever path the
			// schema judge below returns by.
			defer r.placeDecodeRefusal()
		}
	}
	if crd == nil {
		group, _, _ := strings.Cut(apiVersion, "/")
		switch {
		case len(groups[group]) > 0:
			r.problem("/kind", "kind", fmt.Sprintf("no matches for kind %q in version %q%s", kind, apiVersion, suggest.DidYouMean(kind, groups[group])))
		case opts.Examples:
			r.problem("/apiVersion", "apiVersion", fmt.Sprintf("no CRD of the project defines %s %s, so nothing judges this example: a set's examples are judged by the CRDs its templates compile%s", apiVersion, kind, suggest.DidYouMean(group, slices.Sorted(maps.Keys(groups)))))
		case opts.IgnoreMissing:
			r.skipped = true
			r.warn("/apiVersion", "", fmt.Sprintf("no CRD defines %s %s: not validated (--ignore-missing-schemas)", apiVersion, kind))
		default:
			r.problem("/apiVersion", "apiVersion", fmt.Sprintf("no CRD defines %s %s, so nothing judges it: give the CRD with --crd or in the same stream, or pass --ignore-missing-schemas to skip such resources%s", apiVersion, kind, suggest.DidYouMean(group, slices.Sorted(maps.Keys(groups)))))
		}
		return
	}
	if why := r.refused; why != "" && !builtin {
		r.problem("/apiVersion", "apiVersion", why)
		return
	}
	var create oracle.CreateOptions
	if builtin && r.placeDecode == nil {
		// Judged by its schema alone: a duplicate its kind's create
		// accepts is a warning. (Placing the binary's refusal, the
		// schema's findings only point at the refused value.)
		create.DuplicateAccepted = r.kind.acceptsDuplicate
	}
	v, err := crd.Create(ctx, r.obj, create)
	if err != nil {
		if errors.Is(err, oracle.ErrNotServed) {
			r.problem("/apiVersion", "apiVersion", fmt.Sprintf("the server could not find the requested resource: %v", err))
			return
		}
		r.problem("/apiVersion", "apiVersion", err.Error())
		return
	}
	for _, p := range v.Unknown {
		switch opts.Pruning {
		case PruneIgnore:
		case PruneWarn:
			r.warn(pointer(p), p, "unknown field, pruned by the apiserver")
		default:
			r.problem(pointer(p), p, "unknown field, pruned by the apiserver (kubectl's default fieldValidation=Strict refuses the object)")
		}
	}
	if builtin {
		v.Errors = slices.DeleteFunc(v.Errors, emptyBytes)
	}
	frac := fractions(r.obj, v.Errors)
	for _, f := range slices.Sorted(maps.Keys(frac)) {
		r.problem(pointer(f), f, fractionMessage(frac[f]))
	}
	for _, e := range v.Errors {
		msg := strings.TrimPrefix(e.Error(), e.Field+": ")
		fld := e.Field
		if fld == "<nil>" { // an error of the whole object, such as a failed anyOf
			fld = ""
		}
		if _, ok := frac[fld]; ok || len(frac) > 0 && (mentions(msg, frac) || strings.Contains(msg, "some validation rules were not checked")) {
			continue // said once, at the field (fraction.go)
		}
		r.problem(pointer(fld), fld, msg)
	}
	for _, d := range v.Duplicates {
		r.warn(pointer(d.Field), d.Field, duplicateMessage(d))
	}
	r.sortFindings()
	for _, w := range v.Warnings {
		if strings.HasPrefix(w, "metadata.finalizers: ") {
			r.warn("/metadata/finalizers", "metadata.finalizers", strings.TrimPrefix(w, "metadata.finalizers: "))
			continue
		}
		r.warn("/apiVersion", "apiVersion", w)
	}
	if opts.KeepStored {
		r.stored = v.Object
	}
}

// sortFindings sorts the problems and warnings found so far by place.
func (r *resource) sortFindings() {
	byPlace := func(a, b project.Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	}
	slices.SortStableFunc(r.problems, byPlace)
	slices.SortStableFunc(r.warnings, byPlace)
}

// Sizes the apiserver and etcd refuse: a request body over 3 MiB (the
// apiserver's MaxRequestBodyBytes), an object over 1.5 MiB (etcd's
// default --max-request-bytes, which a create must pass through).
const (
	maxRequestBytes = 3 << 20
	maxEtcdBytes    = 3 << 19
)

// checkSize says when the object is too large to be created: measured as
// the compact JSON kubectl sends and the apiserver stores.
func (r *resource) checkSize() {
	switch {
	case r.size > maxRequestBytes:
		r.problem("", "", fmt.Sprintf("the object is %d bytes as JSON: the apiserver refuses a request body over 3 MiB (%d bytes)", r.size, maxRequestBytes))
	case r.size > maxEtcdBytes:
		r.problem("", "", fmt.Sprintf("the object is %d bytes as JSON: etcd refuses to store an object over 1.5 MiB (%d bytes, its default --max-request-bytes), so the create fails", r.size, maxEtcdBytes))
	}
}

// checkHead reports whether the object's apiVersion and kind are what
// kubectl sends: strings, set, apiVersion GROUP/VERSION or VERSION. What
// kubectl refuses before any request is a problem here, and the object
// is not judged further.
func (r *resource) checkHead() bool {
	ok := true
	for _, key := range []string{"apiVersion", "kind"} {
		v, present := r.obj[key]
		s, isString := v.(string)
		var msg string
		switch {
		case !present || v == nil || isString && s == "":
			msg = key + " not set (kubectl refuses the object)"
			for k := range r.obj {
				if k != key && strings.EqualFold(k, key) {
					msg += fmt.Sprintf("; the key is spelt %s, and keys are case-sensitive", safetext.Quote(k))
					break
				}
			}
		case !isString:
			msg = fmt.Sprintf("%s must be a string, not %s (kubectl refuses the object)", key, typeName(v))
		case key == "apiVersion" && !validAPIVersion(s):
			msg = fmt.Sprintf("apiVersion %q: want GROUP/VERSION (example.com/v1), or VERSION for the core group (kubectl refuses the object)", s)
		}
		if msg != "" {
			r.problem("/"+key, key, msg)
			ok = false
		}
	}
	return ok
}

// validAPIVersion reports whether s has the form kubectl accepts: VERSION,
// or GROUP/VERSION with neither empty, no space and one slash.
func validAPIVersion(s string) bool {
	group, version, found := strings.Cut(s, "/")
	if !found {
		version, group = group, ""
	}
	return version != "" && (!found || group != "") && !strings.ContainsAny(s, " \t") && !strings.Contains(version, "/")
}

// typeName names the JSON type of v for messages.
func typeName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	case json.Number, float64, int, int64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

func (r *resource) problem(ptr, fld, msg string) {
	r.problems = append(r.problems, r.finding(ptr, fld, msg))
}

func (r *resource) warn(ptr, fld, msg string) {
	r.warnings = append(r.warnings, r.finding(ptr, fld, msg))
}

// finding is a problem or warning at the pointer (its nearest known
// ancestor), naming the object as KIND/NAME.
func (r *resource) finding(ptr, fld, msg string) project.Problem {
	kind, _ := r.obj["kind"].(string)
	name := ""
	if md, ok := r.obj["metadata"].(map[string]any); ok {
		name, _ = md["name"].(string)
		if name == "" {
			name, _ = md["generateName"].(string)
		}
	}
	if ptr == "" {
		ptr = "/kind"
	}
	pos := r.doc.Position(r.prefix + ptr)
	// A field absent (metadata.name) stands at its nearest ancestor; the
	// document itself stands at its --- line: say the object's kind.
	top, _, _ := strings.Cut(ptr[1:], "/")
	_, present := r.obj[top]
	if root := r.doc.Position(r.prefix); pos.Line == 0 || !present && pos.Line == root.Line && pos.Col == root.Col {
		pos = r.doc.Position(r.prefix + "/kind")
	}
	return project.Problem{Object: kind + "/" + name, Line: pos.Line, Column: pos.Col, Field: fld, Message: msg}
}

// pointer turns an apiserver field path ("spec.containers[0].ports[1]",
// "metadata.labels[app.kubernetes.io/name]") into a JSON pointer.
func pointer(fieldPath string) string {
	var b strings.Builder
	for _, s := range project.FieldSegments(fieldPath) {
		b.WriteByte('/')
		b.WriteString(docread.EscapePointerToken(s))
	}
	return b.String()
}

// Resources judges each resource file against the CRDs of the crds it
// names (a --batch request with Resources): one result per file, in order.
// Files judged by the same CRDs are judged together; built-in objects with
// hw (Options.HandWritten; nil: by their schema alone).
func Resources(ctx context.Context, crds []project.ValidationDoc, resources []project.ResourceDoc, hw *HandWritten) ([]project.ValidationResult, error) {
	out := make([]project.ValidationResult, len(resources))
	groups := map[string][]int{}
	var order []string
	for i, r := range resources {
		for _, j := range r.CRDs {
			if j < 0 || j >= len(crds) {
				return nil, fmt.Errorf("resource file %s names CRD document %d of %d", r.Name, j, len(crds))
			}
		}
		key := fmt.Sprint(r.CRDs)
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	for _, key := range order {
		idx := groups[key]
		opts := Options{Examples: true, HandWritten: hw}
		for _, j := range resources[idx[0]].CRDs {
			var b []byte
			objs := crds[j].Objs()
			for _, o := range objs {
				b = append(append(b, o...), '\n')
			}
			if objs == nil {
				b = []byte(crds[j].Content)
			}
			opts.CRDs = append(opts.CRDs, Input{Name: crds[j].Name, Content: b, KubernetesVersion: crds[j].KubernetesVersion})
		}
		// Each CRD is kept for its own version; a CRD among the files
		// themselves is judged for theirs when they agree.
		if len(opts.CRDs) > 0 && !slices.ContainsFunc(opts.CRDs, func(in Input) bool { return in.KubernetesVersion != opts.CRDs[0].KubernetesVersion }) {
			opts.KubernetesVersion = opts.CRDs[0].KubernetesVersion
		}
		files := make([]Input, len(idx))
		for k, i := range idx {
			files[k] = Input{Name: resources[i].Name, Content: []byte(resources[i].Content)}
		}
		res, _, err := Files(ctx, files, opts)
		if err != nil {
			return nil, err
		}
		for k, i := range idx {
			out[i] = res[k]
		}
	}
	return out, nil
}

// minorProblems lists what Kubernetes version, given with --k8s-version,
// does not know in the CRD obj (crdfields.Check: an apiVersion it does
// not serve, fields newer than it or gated off by default in it), each
// where it stands in the document d (obj is at the pointer prefix there).
// Without a version, the newest embedded minor judges, which knows every
// field the apiserver's code linked here knows: nothing to add.
func minorProblems(obj map[string]any, d docread.Decoded, prefix, version string) []project.Problem {
	if version == "" {
		return nil
	}
	found, err := crdfields.Check(obj, version)
	if err != nil {
		return []project.Problem{{Message: fmt.Sprintf("kubernetes version %q: %v", version, err)}}
	}
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	var out []project.Problem
	for _, p := range found {
		pos := d.Position(prefix + p.Pointer)
		out = append(out, project.Problem{CRD: name, Line: pos.Line, Column: pos.Col, Field: p.Field, Message: p.Message})
	}
	return out
}
