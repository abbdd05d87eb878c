package crdfields

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// A CRD is judged by what its target minor knows. An apiserver of minor M
// decodes a CRD into M's own Go types: a field they lack is refused under
// strict field validation or dropped unread, so x-kubernetes-validations
// written for 1.22 vanish and the author believes them enforced. What M's
// types hold is read from the embedded bundle of M (its
// io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.* and v1beta1.*
// definitions, read once by readFields into the fieldSpecs a walk follows),
// never from a hand-written list; the one table here is of
// fields M has but keeps behind a feature gate that is off by default,
// which no definition says.

// DefsPrefix is the prefix of the apiextensions definitions' names in a
// bundle; the apiVersion's version ("v1.", "v1beta1.") follows.
const DefsPrefix = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions."

// gatedField is a field of an apiextensions definition that minors have
// before its feature gate is on by default: off by default, the apiserver
// refuses or drops it as if it were unknown.
type gatedField struct {
	def, field string // the definition's short name, the field
	gate       string
	alpha, on  int // the first minors (1.alpha, 1.on) with the gate, and with it on by default
}

// gatedFields: the minors are the feature gates' own, as
// k8s.io/apiextensions-apiserver's pkg/features records them (and
// https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/).
var gatedFields = []gatedField{
	// CustomResourceDefaulting: alpha 1.15, beta (on) 1.16, GA 1.17
	// (pkg/features of apiextensions-apiserver v0.17). 1.12-1.14 refuse
	// every default in a CRD schema, with no gate at all.
	{"JSONSchemaProps", "default", "CustomResourceDefaulting", 15, 16},
	// CustomResourceValidationExpressions: alpha 1.23, beta (on) 1.25, GA
	// 1.29 (KEP-2876, kubernetes/enhancements#2876). It gates
	// x-kubernetes-validations and so every ValidationRule field.
	{"JSONSchemaProps", "x-kubernetes-validations", "CustomResourceValidationExpressions", 23, 25},
	// CRDValidationRatcheting: alpha 1.28, beta (on) 1.30, GA 1.33
	// (KEP-4008; pkg/features of apiextensions-apiserver v0.32). It gates
	// ValidationRule.optionalOldSelf, which came in 1.29.
	{"ValidationRule", "optionalOldSelf", "CRDValidationRatcheting", 28, 30},
	// CustomResourceFieldSelectors: alpha 1.30, beta (on) 1.31, GA 1.32
	// (pkg/features of apiextensions-apiserver v0.32).
	{"CustomResourceDefinitionVersion", "selectableFields", "CustomResourceFieldSelectors", 30, 31},
}

// compiledElsewhere are the schema keywords the compiler's structural
// pass judges for the target itself, in every schema a template reaches
// (structural.go, beforeListTypes): list and map types before 1.16 and
// 1.17 are dropped with a warning, defaults before 1.16 are an error.
var compiledElsewhere = map[string]bool{
	"x-kubernetes-list-type": true, "x-kubernetes-list-map-keys": true, "x-kubernetes-map-type": true, "default": true,
}

// Problem is a field of a CRD that its Go types do not have or cannot
// decode (BadFields), or that a Kubernetes minor does not have or has only
// behind a feature gate that is off by default (Check, MinorProblems).
type Problem struct {
	// Pointer is the field's JSON pointer in the CRD ("/spec/versions/0/selectableFields").
	Pointer string
	// Field is its path as the apiserver writes it (spec.versions[0].selectableFields).
	Field string
	// Message says what is wrong: for a minor, what it does not know and
	// the first minor that has it on by default.
	Message string
}

// Definitions is what this package reads of a bundle (*schemas.Bundle,
// or the compiler's substitute): a definition by name.
type Definitions interface {
	Definition(name string) ([]byte, error)
	Has(name string) bool
}

// Minor is what one Kubernetes minor's bundle says of CRDs: the fields of
// its apiextensions definitions, read by readFields on first use, once per
// apiVersion, and never written after. Safe for concurrent use.
type Minor struct {
	version     string // canonical ("1.30")
	n           int    // its minor number
	v1, v1beta1 func() (map[string]*fieldSpec, error)
}

// NewMinor returns the Minor of version (canonical) whose bundle is d.
func NewMinor(version string, d Definitions) *Minor {
	return newMinor(version, func() (Definitions, error) { return d, nil })
}

func newMinor(version string, load func() (Definitions, error)) *Minor {
	read := func(group string) func() (map[string]*fieldSpec, error) {
		return sync.OnceValues(func() (map[string]*fieldSpec, error) {
			d, err := load()
			if err != nil {
				return nil, err
			}
			return readFields(d, group)
		})
	}
	return &Minor{version: version, n: minorNumber(version), v1: read("v1"), v1beta1: read("v1beta1")}
}

// embeddedMinors holds the Minor of every embedded bundle, by canonical
// version: each bundle is decoded, and its fields read, on first use.
var embeddedMinors = sync.OnceValue(func() map[string]*Minor {
	out := map[string]*Minor{}
	for _, v := range schemas.Versions() {
		out[v] = newMinor(v, func() (Definitions, error) { return schemas.Load(v) })
	}
	return out
})

// table returns the fields of the minor's definitions of group ("v1",
// "v1beta1") by definition name, nil when it has no CRD of that group.
func (m *Minor) table(group string) (map[string]*fieldSpec, error) {
	if group == "v1beta1" {
		return m.v1beta1()
	}
	return m.v1()
}

// def returns the definition short (its short name) of group, nil when
// the minor has none or its bundle cannot be read.
func (m *Minor) def(group, short string) *fieldSpec {
	t, _ := m.table(group)
	return t[DefsPrefix+group+"."+short]
}

// embeddedMinor returns the Minor of the embedded bundle of version (any
// form schemas.Canonical takes; "" the newest).
func embeddedMinor(version string) (*Minor, error) {
	canonical, err := schemas.Canonical(cmp.Or(version, schemas.Latest()))
	if err != nil {
		return nil, err
	}
	return embeddedMinors()[canonical], nil
}

// minorNumber is the minor of a canonical version ("1.30": 30), -1 when
// it has none.
func minorNumber(v string) int {
	_, b, ok := strings.Cut(v, ".")
	if n, err := strconv.Atoi(b); ok && err == nil && n >= 0 {
		return n
	}
	return -1
}

// Check lists what Kubernetes version (a minor in any form
// schemas.Canonical takes; "" the newest embedded) does not know in the
// CRD obj (a decoded apiextensions.k8s.io/v1 or v1beta1
// CustomResourceDefinition): an apiVersion the minor does not serve
// (apiextensions.k8s.io/v1 before 1.16), every field and schema keyword
// absent from the minor's own apiextensions definitions, and the fields
// of gatedFields while their gate is off by default. Fields no minor has
// are not its business (see BadFields). obj is only read.
func Check(obj map[string]any, version string) ([]Problem, error) {
	m, err := embeddedMinor(version)
	if err != nil {
		return nil, err
	}
	canonical := m.version
	var out []Problem
	apiVersion, _ := obj["apiVersion"].(string)
	group, ok := strings.CutPrefix(apiVersion, "apiextensions.k8s.io/")
	if !ok {
		return nil, nil
	}
	if _, err := m.table(group); err != nil {
		return nil, err
	}
	if group == "v1" && m.def("v1", "CustomResourceDefinition") == nil && m.def("v1beta1", "CustomResourceDefinition") != nil {
		first := firstMinorWith(canonical, "v1", "CustomResourceDefinition", "", 0)
		out = append(out, Problem{Pointer: "/apiVersion", Field: "apiVersion", Message: fmt.Sprintf(
			"Kubernetes %s serves only apiextensions.k8s.io/v1beta1 CRDs (v1 came in %s): write the CRD as apiVersion: apiextensions.k8s.io/v1beta1, or pass --k8s-version %s or later",
			canonical, first, first)})
		return out, nil
	}
	if group == "v1beta1" && m.def("v1beta1", "CustomResourceDefinition") == nil && m.def("v1", "CustomResourceDefinition") != nil {
		last := lastMinorWith(canonical, "v1beta1", "CustomResourceDefinition")
		out = append(out, Problem{Pointer: "/apiVersion", Field: "apiVersion", Message: fmt.Sprintf(
			"Kubernetes %s serves only apiextensions.k8s.io/v1 CRDs (v1beta1 was served up to %s): write the CRD as apiVersion: apiextensions.k8s.io/v1, or pass --k8s-version %s or earlier",
			canonical, last, last)})
		return out, nil
	}
	return append(out, MinorProblems(obj, group, m, false, nil)...), nil
}

// MinorProblems walks the CRD doc (apiVersion apiextensions.k8s.io/group)
// against the fields of minor, as Check describes; the first minor that
// has a field is named from the embedded bundles. skipCompiled leaves out
// the schema keywords the compiler's structural pass judges itself
// (compiledElsewhere), extra names top-level keys to skip (a template's
// definitions). Nothing when minor has no CRD of that group (v1 before
// 1.16, v1beta1 from 1.22: the apiVersion is reported on its own). Only
// the fields at, above or under one of the JSON pointers within are walked
// (every field when within is nil): a patch's targets, so judging what a
// patch wrote costs the size of what it wrote, not of the whole expanded
// CRD. doc is only read.
func MinorProblems(doc map[string]any, group string, minor *Minor, skipCompiled bool, within []string, extra ...string) []Problem {
	root := minor.def(group, "CustomResourceDefinition")
	if root == nil {
		return nil
	}
	w := &minorWalk{group: group, minor: minor, skipTop: extra, within: within}
	if skipCompiled {
		w.skip = compiledElsewhere
	}
	w.object(doc, root, "", "")
	return w.out
}

// NodeProblems judges one schema node as MinorProblems judges every
// schema of a CRD: node is a JSONSchemaProps as written in some file (a
// definitions file a $ref reaches, say), and only its own keys are
// judged, with what they hold that is no schema (its
// x-kubernetes-validations rules); the schemas under it (properties,
// items...) are nodes of their own, judged where they are written. The
// group is the one minor's CRDs are served in (v1, or v1beta1 before
// 1.16). Pointers and fields are relative to node ("/x-kubernetes-validations/0/reason").
// skipCompiled as MinorProblems'. node is only read.
func NodeProblems(node map[string]any, minor *Minor, skipCompiled bool) []Problem {
	group := "v1"
	if minor.def("v1", "CustomResourceDefinition") == nil {
		group = "v1beta1"
	}
	// Most nodes hold only keys the minor has on: they cost a lookup per
	// key, and nothing is built for them (a compile judges every node it
	// resolves).
	schema := minor.def(group, "JSONSchemaProps")
	if schema == nil || !needsWalk(node, schema, minor.n) {
		return nil
	}
	w := &minorWalk{group: group, minor: minor, shallow: true}
	if skipCompiled {
		w.skip = compiledElsewhere
	}
	w.object(node, schema, "", "")
	return w.out
}

// needsWalk reports whether the schema node has a key that schema (the
// minor's JSONSchemaProps) lacks, one gated off in the minor (whose
// number is minorN), or rules to look into.
func needsWalk(node map[string]any, schema *fieldSpec, minorN int) bool {
	for k := range node {
		if _, has := schema.fields[k]; !has || k == "x-kubernetes-validations" {
			return true
		}
		if g, gated := gate("JSONSchemaProps", k); gated && minorN < g.on {
			return true
		}
	}
	return false
}

// minorWalk is one walk of MinorProblems or NodeProblems, following a
// value along the minor's fieldSpecs; out collects, in key order.
type minorWalk struct {
	group   string
	minor   *Minor
	skip    map[string]bool // schema keywords not judged here
	skipTop []string
	within  []string // JSON pointers: walk only along and under them (nil: everywhere)
	shallow bool     // NodeProblems: the root schema's own keys, not the schemas under it
	out     []Problem
}

// follows tells whether the walk goes to the field at the JSON pointer
// ptr: one of within is ptr, holds it, or lies under it.
func (w *minorWalk) follows(ptr string) bool {
	if w.within == nil {
		return true
	}
	for _, t := range w.within {
		if ptr == t || strings.HasPrefix(ptr, t+"/") || strings.HasPrefix(t, ptr+"/") {
			return true
		}
	}
	return false
}

// readDefinition decodes the definition name of d, the one reading of a
// bundle's apiextensions definitions here (readFields'); nil when d has
// no such definition.
func readDefinition(d Definitions, name string) (map[string]any, error) {
	if d == nil || !d.Has(name) {
		return nil, nil
	}
	raw, err := d.Definition(name)
	if err != nil {
		return nil, err
	}
	var def map[string]any
	if err := json.Unmarshal(raw, &def); err != nil {
		return nil, fmt.Errorf("definition %s: %w", name, err)
	}
	return def, nil
}

// gate returns the gate of field of def, if gatedFields has one.
func gate(def, field string) (gatedField, bool) {
	for _, g := range gatedFields {
		if g.def == def && g.field == field {
			return g, true
		}
	}
	return gatedField{}, false
}

// object walks v, a value of the apiextensions definition f.
func (w *minorWalk) object(v any, f *fieldSpec, ptr, path string) {
	m, ok := v.(map[string]any)
	if !ok || ptr != "" && !w.follows(ptr) {
		return
	}
	def := f.name
	for _, k := range sortedKeys(m) {
		if ptr == "" && slices.Contains(w.skipTop, k) || def == "JSONSchemaProps" && w.skip[k] {
			continue
		}
		child, has := f.fields[k]
		g, gated := gate(def, k)
		off := gated && w.minor.n < g.on
		if has && !off {
			w.value(m[k], child, joinPointer(ptr, k), joinField(path, k))
			continue
		}
		first := firstMinorWith(w.minor.version, w.group, def, k, g.on)
		if first == "" {
			continue // no minor has it: not a field of this apiVersion (BadFields)
		}
		why := fmt.Sprintf("Kubernetes %s has no field %q in %s", w.minor.version, k, def)
		switch {
		case has && w.minor.n < g.alpha:
			why = fmt.Sprintf("Kubernetes %s refuses %s.%s (the %s feature gate came in 1.%d)", w.minor.version, def, k, g.gate, g.alpha)
		case has:
			why = fmt.Sprintf("Kubernetes %s has %s.%s only behind the %s feature gate, off by default", w.minor.version, def, k, g.gate)
		}
		w.out = append(w.out, Problem{Field: joinField(path, k), Pointer: joinPointer(ptr, k),
			Message: fmt.Sprintf("%s, so its apiserver refuses or drops it; it is on by default from %s: remove it, or pass --k8s-version %s or later", why, first, first),
		})
	}
}

// value walks v, a value of f: the apiextensions definitions in it (a
// schema's only when the walk is not shallow), in lists, maps and unions;
// a string, a list of names (required, enum...) holds none.
func (w *minorWalk) value(v any, f *fieldSpec, ptr, path string) {
	if f.kind < objectField || (f.kind == listField || f.kind == mapField) && f.elem.kind < objectField || !w.follows(ptr) {
		return
	}
	switch f.kind {
	case objectField:
		if f.own && !(w.shallow && f.isSchema()) {
			w.object(v, f, ptr, path)
		}
	case unionField:
		if w.shallow {
			return // a schema of its own
		}
		if _, ok := v.(map[string]any); ok {
			w.object(v, f.elem, ptr, path)
		} else {
			w.value(v, f.or, ptr, path)
		}
	case listField:
		l, _ := v.([]any)
		for i, x := range l {
			w.value(x, f.elem, joinPointer(ptr, strconv.Itoa(i)), fmt.Sprintf("%s[%d]", path, i))
		}
	case mapField:
		m, _ := v.(map[string]any)
		for _, k := range sortedKeys(m) {
			w.value(m[k], f.elem, joinPointer(ptr, k), joinField(path, k))
		}
	}
}

// firstMinorWith returns the first embedded minor after minor whose
// definition def of group has field (or exists, when field is ""), at or
// after 1.on; "" when there is none.
func firstMinorWith(minor, group, def, field string, on int) string {
	after := minorNumber(minor)
	for _, v := range schemas.Versions() {
		if n := minorNumber(v); n <= after || n < on {
			continue
		}
		if d := embeddedMinors()[v].def(group, def); d != nil && (field == "" || d.field(field) != nil) {
			return v
		}
	}
	return ""
}

// Keeps reports whether Kubernetes version (any form
// schemas.Canonical takes; "" the newest embedded) keeps field of the
// apiextensions definition def (a short name: "JSONSchemaProps",
// "ValidationRule", "CustomResourceDefinitionVersion") in a CRD it
// stores: the minor's own definition has the field (apiextensions.k8s.io/v1's,
// or v1beta1's for the minors before v1) and no feature gate of
// gatedFields keeps it off by default there. When it does not, first is
// the first embedded minor that keeps it ("" when none does). canonical
// is the version's canonical form ("1.29").
func Keeps(version, def, field string) (keeps bool, first, canonical string, err error) {
	m, err := embeddedMinor(version)
	if err != nil {
		return false, "", "", err
	}
	canonical = m.version
	group := "v1"
	if m.def("v1", "CustomResourceDefinition") == nil {
		group = "v1beta1"
	}
	g, gated := gate(def, field)
	if m.def(group, def).field(field) != nil && (!gated || m.n >= g.on) {
		return true, "", canonical, nil
	}
	return false, firstMinorWith(canonical, group, def, field, g.on), canonical, nil
}

// FeatureOnByDefault reports whether the feature gate of gatedFields
// named gate is on by default in Kubernetes version (as Keeps takes
// it), and the first minor where it is. An unknown gate is an error.
func FeatureOnByDefault(version, gateName string) (on bool, first string, err error) {
	m, err := embeddedMinor(version)
	if err != nil {
		return false, "", err
	}
	for _, g := range gatedFields {
		if g.gate == gateName {
			return m.n >= g.on, fmt.Sprintf("1.%d", g.on), nil
		}
	}
	return false, "", fmt.Errorf("no feature gate %q in the table of gated apiextensions fields", gateName)
}

// lastMinorWith is the newest embedded minor before minor whose bundle has
// the apiextensions definition group.def ("" when none has).
func lastMinorWith(minor, group, def string) string {
	before := minorNumber(minor)
	last := ""
	for _, v := range schemas.Versions() {
		if n := minorNumber(v); n < before && embeddedMinors()[v].def(group, def) != nil {
			last = v
		}
	}
	return last
}
