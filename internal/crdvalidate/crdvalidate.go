// Package crdvalidate runs the apiserver's CRD validation (through
// internal/oracle) on files: a YAML or JSON stream of CRDs in, a list of
// problems with the apiserver's field paths and messages out. It is the
// body of the k8s-crd-resolver-validate companion; the main binary never
// links it (see internal/oracle, Cost).
package crdvalidate

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	kjson "sigs.k8s.io/json"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/parallel"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// Document validates every CRD in doc, as Documents does.
func Document(ctx context.Context, doc project.ValidationDoc) project.ValidationResult {
	return Documents(ctx, []project.ValidationDoc{doc})[0]
}

// Documents validates every CRD in docs, as the apiserver does on create
// (ValidateCustomResourceDefinition), and lists the formats the apiserver
// of each doc's KubernetesVersion would warn about: one result per doc, in
// order. A document that is not a CRD is a problem; empty documents are
// skipped.
//
// The CRDs are decoded and validated on every core (GOMAXPROCS), each on
// one, the largest first.
func Documents(ctx context.Context, docs []project.ValidationDoc) []project.ValidationResult {
	results := make([]project.ValidationResult, len(docs))
	var items []*item
	for i, doc := range docs {
		var its []*item
		results[i], its = prepare(i, doc)
		items = append(items, its...)
	}
	order := slices.Clone(items)
	slices.SortStableFunc(order, func(a, b *item) int { return len(b.raw) - len(a.raw) })
	parallel.Each(len(order), func(i int) { order[i].check(ctx) })
	collect(results, items)
	return results
}

// prepare splits the doc of index i into its CRDs, or into the result's
// problem that it holds none.
func prepare(i int, doc project.ValidationDoc) (project.ValidationResult, []*item) {
	res := project.ValidationResult{Name: doc.Name}
	version := doc.KubernetesVersion
	if version == "" {
		version = schemas.Latest()
	}
	raws, err := splitDocuments(doc)
	if err != nil {
		res.Problems = append(res.Problems, project.Problem{Message: err.Error()})
		return res, nil
	}
	if len(raws) == 0 {
		res.Problems = append(res.Problems, project.Problem{Message: "the file holds no document"})
		return res, nil
	}
	items := make([]*item, len(raws))
	for j, raw := range raws {
		items[j] = &item{doc: i, index: j + 1, raw: raw, version: version}
	}
	return res, items
}

// collect adds what the checked items found to their documents' results.
func collect(results []project.ValidationResult, items []*item) {
	for _, it := range items {
		r := &results[it.doc]
		r.Problems = append(r.Problems, it.problems...)
		r.Warnings = append(r.Warnings, it.warnings...)
	}
}

// Stream validates documents as they arrive, as Documents does, holding
// only a bounded window of them: GOMAXPROCS workers, each decoding and
// validating one CRD, and as many CRDs waiting (Add blocks when all are
// busy). What a checked CRD leaves is its problems and warnings, so the
// memory of a request of a thousand CRDs is that of a few (--batch reads
// its request through a Stream while the main binary is still writing
// it).
type Stream struct {
	ctx     context.Context
	jobs    chan *item
	wg      sync.WaitGroup
	results []project.ValidationResult
	items   []*item
}

// NewStream starts the workers of a Stream.
func NewStream(ctx context.Context) *Stream {
	n := runtime.GOMAXPROCS(0)
	s := &Stream{ctx: ctx, jobs: make(chan *item, n)}
	for range n {
		s.wg.Go(func() {
			for it := range s.jobs {
				it.check(ctx)
			}
		})
	}
	return s
}

// Add queues the CRDs of doc, the next document.
func (s *Stream) Add(doc project.ValidationDoc) {
	res, items := prepare(len(s.results), doc)
	s.results = append(s.results, res)
	for _, it := range items {
		s.items = append(s.items, it)
		s.jobs <- it
	}
}

// Results waits for every CRD added, and returns one result per document,
// in order. The Stream takes no more documents.
func (s *Stream) Results() []project.ValidationResult {
	close(s.jobs)
	s.wg.Wait()
	collect(s.results, s.items)
	return s.results
}

// item is one CRD of a request: its JSON, then what decoding and
// validating it found.
type item struct {
	doc, index int // the document it came from, and its place there (from 1)
	raw        []byte
	version    string // the Kubernetes version whose formats apply

	name               string
	problems, warnings []project.Problem
}

// check decodes and validates the item.
func (it *item) check(ctx context.Context) {
	crd := it.decode()
	it.raw = nil
	if crd == nil {
		return
	}
	for _, e := range crd.ValidateFor(ctx, it.version) {
		it.problems = append(it.problems, fieldProblem(it.name, e))
	}
	// Validate compiles CEL with the linked apiserver's libraries; an older
	// target refuses a function it does not have yet.
	if v, err := version.ParseGeneric(it.version); err == nil {
		for _, e := range crd.RulesNewerThan(v.Minor()) {
			it.problems = append(it.problems, fieldProblem(it.name, e))
		}
	}
	it.formats(crd)
}

// decode turns the item's JSON into a CRD, or into the problem that it is
// not one (and nil).
func (it *item) decode() *oracle.CRD {
	crd, err := oracle.DecodeJSON(it.raw)
	if err == nil && crd.Kind == "CustomResourceDefinition" {
		it.name = crd.Internal.Name
		return crd
	}
	// Not a CRD, or not a valid one: say which, naming it if it has a name.
	var head struct {
		Kind     any `json:"kind"`
		Metadata struct {
			Name any `json:"name"`
		} `json:"metadata"`
	}
	_ = kjson.UnmarshalCaseSensitivePreserveInts(it.raw, &head) // best effort: a name for the message
	it.name, _ = head.Metadata.Name.(string)
	if kind, _ := head.Kind.(string); kind != "CustomResourceDefinition" {
		it.problems = append(it.problems, project.Problem{CRD: it.name, Message: fmt.Sprintf("document %d is not a CustomResourceDefinition (kind %q)", it.index, kind)})
		return nil
	}
	if err == nil { // cannot happen: both decodes read the same kind
		err = fmt.Errorf("kind %q read two ways", head.Kind)
	}
	it.problems = append(it.problems, project.Problem{CRD: it.name, Message: "cannot decode: " + err.Error()})
	return nil
}

// formats lists the formats the apiserver would warn about.
func (it *item) formats(crd *oracle.CRD) {
	formats, err := crd.UnrecognizedFormats(it.version)
	if err != nil {
		it.problems = append(it.problems, project.Problem{CRD: it.name, Message: fmt.Sprintf("kubernetes version %q: %v", it.version, err)})
		return
	}
	for _, f := range formats {
		path, format, _ := strings.Cut(f, ": ")
		it.warnings = append(it.warnings, project.Problem{CRD: it.name, Field: path, Message: fmt.Sprintf("unrecognized format %q (Kubernetes %s warns about it and does not check it)", format, it.version)})
	}
}

// fieldProblem keeps the apiserver's field path and message apart.
func fieldProblem(crd string, e *field.Error) project.Problem {
	msg := strings.TrimPrefix(e.Error(), e.Field+": ")
	return project.Problem{CRD: crd, Field: e.Field, Message: msg}
}

// splitDocuments returns the JSON of every non-empty document of doc:
// doc's Objects (Objs) as they are, else each document of doc.Content, a YAML or
// JSON stream.
func splitDocuments(doc project.ValidationDoc) ([][]byte, error) {
	if objs := doc.Objs(); objs != nil {
		out := make([][]byte, len(objs))
		for i, o := range objs {
			out[i] = o
		}
		return out, nil
	}
	// Read as the compiler reads templates (docread.Decode): linear in the input,
	// a key written twice refused; every document must be a mapping.
	docs, err := docread.Decode(doc.Name, []byte(doc.Content), 0)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(docs))
	for i, v := range docs {
		if _, ok := v.(map[string]any); !ok {
			return nil, fmt.Errorf("document %d is not a mapping", i+1)
		}
		// As JSON, what the apiserver's decoder reads.
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		out = append(out, raw)
	}
	return out, nil
}
