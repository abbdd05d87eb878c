package project

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
)

// ProtocolVersion is the version of ValidationRequest and
// ValidationResponse. The companion refuses a request of another version.
// Version 4: the keys in the order of ValidationRequest's fields, which
// the companion needs to validate documents as they arrive.
const ProtocolVersion = 4

// ValidationRequest is what build and check send, as JSON on standard
// input, to `k8s-crd-resolver-validate --batch`: its keys in the order of
// the fields (version first, resources before documents), each document
// written as the companion reads and validates the ones before.
type ValidationRequest struct {
	Version int `json:"version"`
	// Resources are files of custom resources to judge against the CRDs
	// of Documents. A request with Resources judges them only: its
	// Documents, validated before, are not validated again.
	Resources []ResourceDoc   `json:"resources,omitempty"`
	Documents []ValidationDoc `json:"documents"`
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
	// Render, when set, gives Objects on demand: the request is written
	// one document at a time, each rendered as it goes (never sent).
	Render func() []json.RawMessage `json:"-"`
}

// Objs are the document's Objects, rendered when Render is set.
func (d ValidationDoc) Objs() []json.RawMessage {
	if d.Render != nil {
		return d.Render()
	}
	return d.Objects
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
// for a custom resource, leaving out empty parts. Every part may come from
// a repository (a name, an unknown key, a value in a message): each goes
// through safetext.Quote, so the line is one line of the tool's own.
func (p Problem) String() string {
	q := safetext.Quote
	s := q(p.Message)
	if p.Field != "" {
		s = q(p.Field) + ": " + s
	}
	if p.CRD != "" {
		s = q(p.CRD) + ": " + s
	}
	if p.Object != "" {
		s = q(p.Object) + ": " + s
	}
	return s
}

// In renders the problem as found in file: "FILE:LINE:COL: " then String,
// or "FILE: " then String when its place is unknown; the file name is
// quoted as String's parts are.
func (p Problem) In(file string) string {
	file = safetext.Quote(file)
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
				i = len(crds)
				docOf[o] = i
				crds = append(crds, ValidationDoc{Name: o.Template.Name, Render: o.jsonObjects, KubernetesVersion: o.KubeVersion})
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
// is valid too and is not sent; an identity twin of a valid output (the
// same CRDs under other names) is judged by its skeletons, a fraction of
// the work. The twin of an invalid output, and an identity twin whose
// skeleton has a problem, are validated whole on their own, in a second
// call.
//
// Finding twins takes time linear in the outputs' size: they are grouped
// by a hash of what twins compare (twinHasher), and each is compared with
// the first of its group.
func Validate(ctx context.Context, v Validator, outs []*Output) ([]ValidationResult, error) {
	if len(outs) == 0 {
		return nil, nil
	}
	results := make([]ValidationResult, len(outs))
	rels := relate(outs)
	var first []sendItem
	for i, r := range rels {
		switch {
		case r.of < 0:
			first = append(first, sendItem{out: i})
		case r.identity:
			first = append(first, sendItem{out: i, skeleton: true})
		}
	}
	if err := validateSome(ctx, v, outs, first, results); err != nil {
		return nil, err
	}
	var second []sendItem
	for i, r := range rels {
		if r.of < 0 {
			continue
		}
		rep := results[r.of]
		if len(rep.Problems) > 0 || len(results[i].Problems) > 0 { // results[i]: the skeleton's
			second = append(second, sendItem{out: i})
			continue
		}
		warnings := renamed(rep.Warnings, outs[r.of].CRDs, outs[i].CRDs)
		results[i] = ValidationResult{Name: outs[i].Template.Name, Warnings: append(warnings, results[i].Warnings...)}
	}
	if err := validateSome(ctx, v, outs, second, results); err != nil {
		return nil, err
	}
	return results, nil
}

// relation is how an output relates to the earlier ones: of is the first
// output it is a twin of (-1: none; that output is a twin of no earlier
// one), identity whether their CRDs have other identities.
type relation struct {
	of       int
	identity bool
}

// relate finds each output's relation, grouping by twinHasher's hash.
func relate(outs []*Output) []relation {
	h := newTwinHasher()
	rels := make([]relation, len(outs))
	groups := map[uint64][]int{} // hash: the outputs that are no twin of an earlier one
	for i, o := range outs {
		key := h.output(o)
		rels[i] = relation{of: -1}
		for _, j := range groups[key] {
			if twin, identity := outputTwins(outs[j], o); twin {
				rels[i] = relation{of: j, identity: identity}
				break
			}
		}
		if rels[i].of < 0 {
			groups[key] = append(groups[key], i)
		}
	}
	return rels
}

// outputTwins reports whether the CRDs of b are, in order, twins of a's
// (all with the same identities) or identity twins (see twins.go).
func outputTwins(a, b *Output) (twin, identity bool) {
	oa, ob := a.Objects(), b.Objects()
	if a.KubeVersion != b.KubeVersion || len(oa) != len(ob) {
		return false, false
	}
	same := slices.Equal(a.CRDs, b.CRDs)
	for i := range oa {
		if same && !sameIdentity(oa[i], ob[i]) {
			same = false
		}
	}
	for i := range oa {
		if same && !twins(oa[i], ob[i]) || !same && !identityTwins(oa[i], ob[i]) {
			return false, false
		}
	}
	return true, !same
}

// renamed is warnings of the CRDs from, each naming its CRD as the one of
// the same place in to.
func renamed(warnings []Problem, from, to []string) []Problem {
	out := make([]Problem, len(warnings))
	for i, w := range warnings {
		if k := slices.Index(from, w.CRD); k >= 0 && k < len(to) {
			w.CRD = to[k]
		}
		out[i] = w
	}
	return out
}

// sendItem is an output to send: whole, or its skeletons.
type sendItem struct {
	out      int
	skeleton bool
}

// validateSome validates the given outputs in one call of v, and stores
// their results.
func validateSome(ctx context.Context, v Validator, outs []*Output, items []sendItem, results []ValidationResult) error {
	if len(items) == 0 {
		return nil
	}
	// Skeletons are small: made now. Whole CRDs are rendered as the
	// request is written (Render), so no more than one is held as JSON.
	docs := make([]ValidationDoc, len(items))
	for i, it := range items {
		o := outs[it.out]
		docs[i] = ValidationDoc{Name: o.Template.Name, KubernetesVersion: o.KubeVersion, Render: o.jsonObjects}
		if it.skeleton {
			objs, err := skeletons(o)
			if err != nil {
				return err
			}
			docs[i].Objects, docs[i].Render = objs, nil
		}
	}
	res, err := v.Validate(ctx, docs)
	if err != nil {
		return err
	}
	if len(res) != len(docs) {
		return fmt.Errorf("validator answered %d results for %d documents", len(res), len(docs))
	}
	for i, it := range items {
		results[it.out] = res[i]
	}
	return nil
}

// jsonObjects are the output's CRDs as JSON: the same values as its YAML,
// several times faster for the validator to read.
func (o *Output) jsonObjects() []json.RawMessage {
	objs := make([]json.RawMessage, len(o.docs))
	for i, d := range o.docs {
		objs[i] = d.AppendJSON(make([]byte, 0, d.JSONSize()))
	}
	return objs
}

// skeletons are the output's CRDs reduced to their identities (skeleton),
// as JSON.
func skeletons(o *Output) ([]json.RawMessage, error) {
	objs := make([]json.RawMessage, len(o.Objects()))
	for i, obj := range o.Objects() {
		raw, err := json.Marshal(skeleton(obj))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Template.Name, err)
		}
		objs[i] = raw
	}
	return objs, nil
}

// skeleton is the CRD obj reduced to its identity (see twins.go): its
// apiVersion, kind, metadata, group, names and scope, around one served
// storage version with the smallest structural schema. Its problems are
// those of the CRD's identity.
func skeleton(obj map[string]any) map[string]any {
	spec := map[string]any{
		"versions": []any{map[string]any{
			"name": "v1", "served": true, "storage": true,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}},
		}},
	}
	for k := range identityKeys {
		if x, ok := mapOf(obj["spec"])[k]; ok {
			spec[k] = x
		}
	}
	skel := map[string]any{"spec": spec}
	for _, k := range []string{"apiVersion", "kind", "metadata"} {
		if x, ok := obj[k]; ok {
			skel[k] = x
		}
	}
	return skel
}

// FieldSegments splits an apiserver field path (Problem.Field:
// "spec.containers[0].ports[1]", "metadata.labels[app.kubernetes.io/name]")
// into its keys and indexes; a bracketed key written as a quoted string is
// unquoted.
func FieldSegments(field string) []string {
	var out []string
	for field != "" {
		switch field[0] {
		case '.':
			field = field[1:]
		case '[':
			end := strings.IndexByte(field, ']')
			if end < 0 {
				return append(out, field[1:])
			}
			key := field[1:end]
			if uq, err := strconv.Unquote(key); err == nil {
				key = uq
			}
			out = append(out, key)
			field = field[end+1:]
		default:
			end := strings.IndexAny(field, ".[")
			if end < 0 {
				end = len(field)
			}
			out = append(out, field[:end])
			field = field[end:]
		}
	}
	return out
}
