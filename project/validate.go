package project

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/parallel"
)

// ProtocolVersion is the version of ValidationRequest and
// ValidationResponse. The companion refuses a request of another version.
const ProtocolVersion = 3

// ValidationRequest is what build and check send, as JSON on standard
// input, to `k8s-crd-resolver-validate --batch`.
type ValidationRequest struct {
	Version   int             `json:"version"`
	Documents []ValidationDoc `json:"documents"`
	// Resources are files of custom resources to judge against the CRDs
	// of Documents. A request with Resources judges them only: its
	// Documents, validated before, are not validated again.
	Resources []ResourceDoc `json:"resources,omitempty"`
}

// ResourceDoc is one file of custom resources to judge (an example).
type ResourceDoc struct {
	// Name identifies the file in the results (a path, for people).
	Name string `json:"name"`
	// Content is the file's content: YAML or JSON.
	Content string `json:"content"`
	// CRDs are the indexes, in the request's Documents, of the files
	// whose CRDs judge it.
	CRDs []int `json:"crds"`
}

// ValidationDoc is one file to validate: a YAML or JSON stream of CRDs.
type ValidationDoc struct {
	// Name identifies the file in the results (a path, for people).
	Name string `json:"name"`
	// Content is the file's content: YAML, JSON, or a stream of JSON
	// objects, one per CRD. Ignored when Objects is set.
	Content string `json:"content,omitempty"`
	// Objects are the file's CRDs, each as its JSON (what build and check
	// send: the fastest to write and to read).
	Objects []json.RawMessage `json:"objects,omitempty"`
	// KubernetesVersion selects which formats are known ("1.30"); empty
	// means the newest embedded.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
}

// ValidationResponse is the companion's answer, as JSON on standard output:
// one result per requested document, in request order.
type ValidationResponse struct {
	Version int                `json:"version"`
	Results []ValidationResult `json:"results"`
	// Resources has one result per requested ResourceDoc, in order.
	Resources []ValidationResult `json:"resources,omitempty"`
}

// ValidationResult lists what the apiserver would say about one file.
type ValidationResult struct {
	Name string `json:"name"`
	// Problems make the apiserver reject the CRD.
	Problems []Problem `json:"problems,omitempty"`
	// Warnings are accepted but worth knowing (unrecognized formats).
	Warnings []Problem `json:"warnings,omitempty"`
}

// Problem is one finding about one CRD or custom resource in a file.
type Problem struct {
	// CRD is the metadata.name of the CRD ("" when the document could not
	// be read as a CRD at all, or is a custom resource).
	CRD string `json:"crd,omitempty"`
	// Object names a custom resource as KIND/NAME ("" for a CRD).
	Object string `json:"object,omitempty"`
	// Line and Column are where the field (or the object) stands in the
	// file, from 1; 0 when unknown. Set for custom resources.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Field is the apiserver's field path, e.g.
	// spec.versions[0].schema.openAPIV3Schema.properties[spec].type.
	Field string `json:"field,omitempty"`
	// Message is the apiserver's text for the problem, without the path.
	Message string `json:"message"`
}

// String renders "CRD: field: message", or "KIND/NAME: field: message"
// for a custom resource, leaving out empty parts.
func (p Problem) String() string {
	s := p.Message
	if p.Field != "" {
		s = p.Field + ": " + s
	}
	if p.CRD != "" {
		s = p.CRD + ": " + s
	}
	if p.Object != "" {
		s = p.Object + ": " + s
	}
	return s
}

// In renders the problem as found in file: "FILE:LINE:COL: " then String,
// or "FILE: " then String when its place is unknown.
func (p Problem) In(file string) string {
	switch {
	case p.Line == 0:
		return file + ": " + p.String()
	case p.Column == 0:
		return fmt.Sprintf("%s:%d: %s", file, p.Line, p)
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, p.Line, p.Column, p)
}

// Validator runs the apiserver's CRD validation on documents. It returns
// one result per document, in order; the error is for failures to run
// at all, never for problems found.
type Validator interface {
	Validate(ctx context.Context, docs []ValidationDoc) ([]ValidationResult, error)
}

// ResourceValidator judges files of custom resources against CRDs, as the
// apiserver judges a create: one result per resource file, in order.
type ResourceValidator interface {
	ValidateResources(ctx context.Context, crds []ValidationDoc, resources []ResourceDoc) ([]ValidationResult, error)
}

// ValidateExamples judges the configuration's examples (Config.Examples,
// Set.Examples) against the compiled outputs outs (every output of the
// project): a set's examples against its own outputs, the top level's
// against every set's. Example files are found and read through the
// project's confined door. No examples: no call, nil.
func (p *Project) ValidateExamples(ctx context.Context, v ResourceValidator, outs []*Output) ([]ValidationResult, error) {
	type group struct {
		globs []string
		where string
		set   int // -1: every set
	}
	groups := []group{{p.Config.Examples, "examples", -1}}
	for i, s := range p.Config.Sets {
		groups = append(groups, group{s.Examples, fmt.Sprintf("sets[%d].examples", i), i})
	}
	var crds []ValidationDoc
	docOf := map[*Output]int{}
	var resources []ResourceDoc
	for _, g := range groups {
		if len(g.globs) == 0 {
			continue
		}
		var idx []int
		seen := map[string]bool{} // CRD names: a template in two sets is judged by its first output
		for _, o := range outs {
			if g.set >= 0 && o.Template.Set != g.set || len(o.CRDs) == 0 || seen[o.CRDs[0]] {
				continue
			}
			for _, n := range o.CRDs {
				seen[n] = true
			}
			i, ok := docOf[o]
			if !ok {
				objs := make([]json.RawMessage, len(o.Objects()))
				for j, obj := range o.Objects() {
					raw, err := json.Marshal(obj)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", o.Template.Name, err)
					}
					objs[j] = raw
				}
				i = len(crds)
				docOf[o] = i
				crds = append(crds, ValidationDoc{Name: o.Template.Name, Objects: objs, KubernetesVersion: o.KubeVersion})
			}
			idx = append(idx, i)
		}
		for _, pattern := range g.globs {
			files, err := p.glob(pattern)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %s %q: %w", ErrConfig, p.configName(), g.where, pattern, err)
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("%w: %s: %s %q matches no file", ErrConfig, p.configName(), g.where, pattern)
			}
			for _, f := range files {
				content, err := p.reader.ReadFile(f)
				if err != nil {
					return nil, err
				}
				resources = append(resources, ResourceDoc{Name: p.Rel(f), Content: string(content), CRDs: idx})
			}
		}
	}
	if len(resources) == 0 {
		return nil, nil
	}
	res, err := v.ValidateResources(ctx, crds, resources)
	if err != nil {
		return nil, err
	}
	if len(res) != len(resources) {
		return nil, fmt.Errorf("validator answered %d results for %d example files", len(res), len(resources))
	}
	return res, nil
}

// Validate validates each output once (outputs written to several
// directories have the same bytes), naming each by its template. An output
// whose CRDs are twins (see twins.go) of an earlier output's, found valid,
// is valid too and is not sent; the twin of an invalid output is validated
// on its own, in a second call.
func Validate(ctx context.Context, v Validator, outs []*Output) ([]ValidationResult, error) {
	if len(outs) == 0 {
		return nil, nil
	}
	results := make([]ValidationResult, len(outs))
	// twinOf[i] is the first output i is a twin of, or -1. Twins being an
	// equivalence, that output is no twin of an earlier one.
	twinOf := make([]int, len(outs))
	parallel.Each(len(outs), func(i int) {
		twinOf[i] = slices.IndexFunc(outs[:i], func(o *Output) bool { return outputTwins(o, outs[i]) })
	})
	var first []int
	for i, j := range twinOf {
		if j < 0 {
			first = append(first, i)
		}
	}
	if err := validateSome(ctx, v, outs, first, results); err != nil {
		return nil, err
	}
	var second []int
	for i, j := range twinOf {
		switch {
		case j < 0:
		case len(results[j].Problems) == 0:
			results[i] = ValidationResult{Name: outs[i].Template.Name, Warnings: slices.Clone(results[j].Warnings)}
		default:
			second = append(second, i)
		}
	}
	if err := validateSome(ctx, v, outs, second, results); err != nil {
		return nil, err
	}
	return results, nil
}

// outputTwins reports whether every CRD of b is a twin of a's.
func outputTwins(a, b *Output) bool {
	if a.KubeVersion != b.KubeVersion || !slices.Equal(a.CRDs, b.CRDs) || len(a.Objects()) != len(b.Objects()) {
		return false
	}
	for i, obj := range a.Objects() {
		if !twins(obj, b.Objects()[i]) {
			return false
		}
	}
	return true
}

// validateSome validates the outputs of the given indexes in one call of
// v, and stores their results.
func validateSome(ctx context.Context, v Validator, outs []*Output, indexes []int, results []ValidationResult) error {
	if len(indexes) == 0 {
		return nil
	}
	docs := make([]ValidationDoc, len(indexes))
	errs := make([]error, len(indexes))
	parallel.Each(len(indexes), func(i int) {
		o := outs[indexes[i]]
		// The documents as JSON: the same values as the YAML in o.Data, and
		// several times faster for the validator to read.
		objs := make([]json.RawMessage, len(o.Objects()))
		for j, obj := range o.Objects() {
			raw, err := json.Marshal(obj)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", o.Template.Name, err)
				return
			}
			objs[j] = raw
		}
		docs[i] = ValidationDoc{Name: o.Template.Name, Objects: objs, KubernetesVersion: o.KubeVersion}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	res, err := v.Validate(ctx, docs)
	if err != nil {
		return err
	}
	if len(res) != len(docs) {
		return fmt.Errorf("validator answered %d results for %d documents", len(res), len(docs))
	}
	for i, k := range indexes {
		results[k] = res[i]
	}
	return nil
}
