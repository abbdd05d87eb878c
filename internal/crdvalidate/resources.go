package crdvalidate

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdfields"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/parallel"
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
	// KubernetesVersion, for a file of CRDs to judge custom resources
	// against (Options.CRDs), is the version its CRDs are kept and
	// validated for ("" Options.KubernetesVersion): a project's examples
	// judged against several sets' CRDs judge each CRD's objects by its
	// set's kubernetesVersion.
	KubernetesVersion string
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
func Files(ctx context.Context, files []Input, opts Options) ([]project.ValidationResult, []Stored, error) {
	results := make([]project.ValidationResult, len(files))
	var crdDocs []project.ValidationDoc
	var crdOf []int // the file of each of crdDocs
	cat := &catalog{byGK: map[schema.GroupKind]*oracle.CRD{}, groups: map[string][]string{}, version: opts.KubernetesVersion, builtinVersion: cmp.Or(opts.KubernetesVersion, opts.BuiltinVersion)}
	var resources []*resource
	for i, f := range files {
		results[i].Name = f.Name
		docs, err := resolver.DecodeDocuments(f.Name, f.Content, 0)
		if err != nil {
			results[i].Problems = append(results[i].Problems, decodeProblem(err))
			continue
		}
		if len(docs) == 0 {
			// What kubectl and kubectl-validate make of it too: no object,
			// so nothing to judge, and said.
			results[i].Warnings = append(results[i].Warnings, project.Problem{Message: "the file holds no object (it is empty, or only comments): nothing to judge"})
			continue
		}
		var crds []json.RawMessage
		// add sorts one object (a document, or an item of a kind: List
		// document at the pointer prefix) into CRDs and resources.
		add := func(j int, d resolver.Decoded, prefix string, v any) {
			m, ok := v.(map[string]any)
			if !ok {
				what := fmt.Sprintf("document %d", j+1)
				if prefix != "" {
					what += " " + prefix[1:]
				}
				results[i].Problems = append(results[i].Problems, project.Problem{Line: d.Position(prefix).Line, Column: d.Position(prefix).Col, Message: what + " is not a mapping"})
				return
			}
			raw, err := json.Marshal(m)
			if err != nil {
				results[i].Problems = append(results[i].Problems, project.Problem{Message: fmt.Sprintf("document %d: %v", j+1, err)})
				return
			}
			if isCRD(m) && templateProblem(&results[i], d, prefix, m, f.Name) {
				return
			}
			if isCRD(m) {
				results[i].Problems = append(results[i].Problems, minorProblems(m, d, prefix, opts.KubernetesVersion)...)
				crds = append(crds, raw)
				cat.add(m, raw, "")
				return
			}
			resources = append(resources, &resource{file: i, doc: d, prefix: prefix, obj: m, size: len(raw)})
		}
		for j, d := range docs {
			items, isList, err := resolver.ListItems(d)
			if err != nil {
				results[i].Problems = append(results[i].Problems, decodeProblem(err))
				continue
			}
			if !isList {
				add(j, d, "", d.Value)
				continue
			}
			// What kubectl get -o yaml prints: each item is an object of
			// its own, created (and judged) as if it stood alone.
			for k, item := range items {
				add(j, d, "/items/"+strconv.Itoa(k), item)
			}
		}
		if len(crds) > 0 {
			crdDocs = append(crdDocs, project.ValidationDoc{Name: f.Name, Objects: crds, KubernetesVersion: opts.KubernetesVersion})
			crdOf = append(crdOf, i)
		}
	}
	for i, r := range Documents(ctx, crdDocs) {
		res := &results[crdOf[i]]
		res.Problems = append(res.Problems, r.Problems...)
		res.Warnings = append(res.Warnings, r.Warnings...)
	}
	if len(resources) == 0 {
		return results, nil, nil
	}
	given, err := cat.addFiles(ctx, opts.CRDs)
	if err != nil {
		return nil, nil, err
	}
	results = append(results, given...)
	if opts.DefaultCRDs != nil && slices.ContainsFunc(resources, func(r *resource) bool { return cat.lookup(r.obj) == nil && cat.isCustomGroup(r.obj) }) {
		more, err := opts.DefaultCRDs()
		if err != nil {
			return nil, nil, err
		}
		given, err := cat.addFiles(ctx, more)
		if err != nil {
			return nil, nil, err
		}
		results = append(results, given...)
	}
	parallel.Each(len(resources), func(i int) { resources[i].judge(ctx, cat, opts) })
	schemaOnlyNotes(results, resources, cmp.Or(cat.builtinVersion, schemas.Latest()))
	var stored []Stored
	for _, r := range resources {
		res := &results[r.file]
		res.Problems = append(res.Problems, r.problems...)
		res.Warnings = append(res.Warnings, r.warnings...)
		if opts.KeepStored && r.stored != nil {
			stored = append(stored, Stored{File: files[r.file].Name, Object: r.stored})
		}
	}
	return results, stored, nil
}

// decodeProblem is the problem of a file that cannot be read as YAML or
// JSON: at the place the reader names, which the file name is printed
// beside once (Problem.In), not in the message again.
func decodeProblem(err error) project.Problem {
	var re *resolver.Error
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
		docs, err := resolver.DecodeDocuments(f.Name, f.Content, 0)
		if err != nil {
			return nil, err
		}
		doc := project.ValidationDoc{Name: f.Name, KubernetesVersion: cmp.Or(f.KubernetesVersion, c.version)}
		var added []schema.GroupKind
		var templates project.ValidationResult
		for _, d := range docs {
			objs, prefixes := []any{d.Value}, []string{""}
			items, isList, err := resolver.ListItems(d)
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
func templateProblem(res *project.ValidationResult, d resolver.Decoded, prefix string, m map[string]any, file string) bool {
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
	file   int
	doc    resolver.Decoded
	prefix string // the JSON pointer of the object in doc: "" or "/items/N"
	obj    map[string]any
	size   int // bytes as compact JSON

	problems, warnings []project.Problem
	stored             map[string]any
	// builtin is where an object of Kubernetes' own kinds judged by its
	// schema stands, its message its apiVersion and kind; Line is 0 for
	// any other object.
	builtin project.Problem
}

// judge judges the resource against its CRD.
func (r *resource) judge(ctx context.Context, cat *catalog, opts Options) {
	// Once judged, only the findings are kept (and the stored form when
	// asked for): a stream of many objects is not held twice over.
	defer func() { r.obj, r.doc = nil, resolver.Decoded{} }()
	if !r.checkHead() {
		return
	}
	r.checkSize()
	apiVersion, _ := r.obj["apiVersion"].(string)
	kind, _ := r.obj["kind"].(string)
	crd := cat.lookup(r.obj)
	builtin := false
	if crd == nil {
		crd, builtin = r.judgeBuiltin(cat)
		if builtin && crd == nil {
			return // a problem said why
		}
	}
	if crd == nil {
		group, _, _ := strings.Cut(apiVersion, "/")
		switch {
		case len(cat.groups[group]) > 0:
			r.problem("/kind", "kind", fmt.Sprintf("no matches for kind %q in version %q%s", kind, apiVersion, suggest.DidYouMean(kind, cat.groups[group])))
		case opts.Examples:
			r.problem("/apiVersion", "apiVersion", fmt.Sprintf("no CRD of the project defines %s %s, so nothing judges this example: a set's examples are judged by the CRDs its templates compile%s", apiVersion, kind, suggest.DidYouMean(group, slices.Sorted(maps.Keys(cat.groups)))))
		case opts.IgnoreMissing:
			r.warn("/apiVersion", "", fmt.Sprintf("no CRD defines %s %s: not validated (--ignore-missing-schemas)", apiVersion, kind))
		default:
			r.problem("/apiVersion", "apiVersion", fmt.Sprintf("no CRD defines %s %s, so nothing judges it: give the CRD with --crd or in the same stream, or pass --ignore-missing-schemas to skip such resources%s", apiVersion, kind, suggest.DidYouMean(group, slices.Sorted(maps.Keys(cat.groups)))))
		}
		return
	}
	if why := cat.refusedFor(r.obj); why != "" && !builtin {
		r.problem("/apiVersion", "apiVersion", why)
		return
	}
	v, err := crd.Create(ctx, r.obj)
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
	byPlace := func(a, b project.Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	}
	slices.SortStableFunc(r.problems, byPlace)
	slices.SortStableFunc(r.warnings, byPlace)
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
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}

// Resources judges each resource file against the CRDs of the crds it
// names (a --batch request with Resources): one result per file, in order.
// Files judged by the same CRDs are judged together.
func Resources(ctx context.Context, crds []project.ValidationDoc, resources []project.ResourceDoc) ([]project.ValidationResult, error) {
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
		opts := Options{Examples: true}
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
func minorProblems(obj map[string]any, d resolver.Decoded, prefix, version string) []project.Problem {
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
