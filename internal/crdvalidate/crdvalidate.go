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
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/parallel"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
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
		results[i].Name = doc.Name
		version := doc.KubernetesVersion
		if version == "" {
			version = schemas.Latest()
		}
		raws, err := splitDocuments(doc)
		if err != nil {
			results[i].Problems = append(results[i].Problems, project.Problem{Message: err.Error()})
			continue
		}
		if len(raws) == 0 {
			results[i].Problems = append(results[i].Problems, project.Problem{Message: "the file holds no document"})
			continue
		}
		for j, raw := range raws {
			items = append(items, &item{doc: i, index: j + 1, raw: raw, version: version})
		}
	}
	order := slices.Clone(items)
	slices.SortStableFunc(order, func(a, b *item) int { return len(b.raw) - len(a.raw) })
	parallel.Each(len(order), func(i int) { order[i].check(ctx) })
	for _, it := range items {
		r := &results[it.doc]
		r.Problems = append(r.Problems, it.problems...)
		r.Warnings = append(r.Warnings, it.warnings...)
	}
	return results
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
	for _, e := range crd.Validate(ctx) {
		it.problems = append(it.problems, fieldProblem(it.name, e))
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
// doc.Objects as they are, else each document of doc.Content, a YAML or
// JSON stream.
func splitDocuments(doc project.ValidationDoc) ([][]byte, error) {
	if doc.Objects != nil {
		out := make([][]byte, len(doc.Objects))
		for i, o := range doc.Objects {
			out[i] = o
		}
		return out, nil
	}
	// Read as the compiler reads templates (resolver.Decode): linear in the input,
	// a key written twice refused; every document must be a mapping.
	docs, err := resolver.Decode(doc.Name, []byte(doc.Content), 0)
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
