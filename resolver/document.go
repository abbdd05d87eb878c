package resolver

import (
	"errors"
	"fmt"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdfields"
)

const (
	apiextensionsV1      = "apiextensions.k8s.io/v1"
	apiextensionsV1beta1 = "apiextensions.k8s.io/v1beta1"
)

// compileDocument turns one template document into a CRD, through the
// stages of the data flow, each a function with a typed result:
//
//	*document  --checkTemplate-->  *templateDoc  (a CRD template, its fields checked)
//	           --resolveSchemas--> *crdDoc       (every schema resolved and structural)
//	           --postSteps-->      *crdDoc       (v1beta1 defaults, measured, patched)
//
// Diagnostics go to the run's diagnostics as each stage finds them; a
// stage that finds an error ends the document. It returns the CRD and what
// it measured (its compact-JSON size, its nesting), and reports false when
// the document failed.
func (r *run) compileDocument(abs string, d *document) (map[string]any, cost, bool) {
	errsBefore := len(r.errs)
	t, ok := r.checkTemplate(scope{file: abs, doc: d})
	if !ok {
		return nil, cost{}, false
	}
	crd := r.resolveSchemas(t)
	if len(r.errs) > errsBefore {
		return nil, cost{}, false
	}
	if crd, ok = r.postSteps(crd); !ok {
		return nil, cost{}, false
	}
	r.output = r.output.Plus(crd.size)
	return crd.obj, crd.size, len(r.errs) == errsBefore
}

// templateDoc is a template document that is a CRD template: an
// apiextensions.k8s.io/v1 or v1beta1 CustomResourceDefinition whose fields
// outside its schemas are the apiserver's.
type templateDoc struct {
	sc         scope
	obj        map[string]any // the document as written (shared with the file cache: read only)
	apiVersion string
}

// crdDoc is a compiled CRD: a fresh tree that shares the resolved $ref
// targets with the Compiler's cache (passes copy what they change).
type crdDoc struct {
	t    *templateDoc
	obj  map[string]any
	size cost // measured by postSteps
}

// checkTemplate checks that the document is a CRD template, and its fields
// outside the schemas, where the author wrote them.
func (r *run) checkTemplate(sc scope) (*templateDoc, bool) {
	d := sc.doc
	obj, ok := d.Value.(map[string]any)
	if !ok {
		r.badInput(sc, "", "expected a CustomResourceDefinition mapping, found %s", describeValue(d.Value))
		return nil, false
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if kind != "CustomResourceDefinition" || (apiVersion != apiextensionsV1 && apiVersion != apiextensionsV1beta1) {
		msg := fmt.Sprintf("not a CustomResourceDefinition (apiVersion %q, kind %q); a template is an apiextensions.k8s.io/v1 or v1beta1 CRD", apiVersion, kind)
		if _, defsOnly := obj["definitions"]; defsOnly && kind == "" {
			msg = "this document only holds definitions: it is a shared definitions file for templates to $ref, not a template"
		}
		ptr := "/kind"
		if _, ok := obj["kind"]; !ok {
			ptr = ""
		}
		r.badInput(sc, ptr, "%s", msg)
		return nil, false
	}
	// Fields the apiserver's strict decoding would refuse, where the
	// author wrote them.
	for _, p := range crdfields.BadFields(obj, apiVersion, "definitions") {
		r.badInput(sc, p.Pointer, "%s", p.Message)
	}
	// Fields the target minor does not have, or keeps off by default
	// (internal/crdfields), where the author wrote them.
	group := apiVersion[len("apiextensions.k8s.io/"):]
	for _, p := range crdfields.MinorProblems(obj, group, r.c.minorFields, true, nil, "definitions") {
		r.badInput(sc, p.Pointer, "field %q: %s", p.Field, p.Message)
	}
	switch {
	case apiVersion == apiextensionsV1beta1 && r.c.atLeast(1, 22) && r.c.opts.AllowRemovedAPI:
		r.warn(sc, "/apiVersion", "apiextensions.k8s.io/v1beta1 CRDs are not served by Kubernetes 1.22 and later; convert the template to apiextensions.k8s.io/v1")
	case apiVersion == apiextensionsV1beta1 && r.c.atLeast(1, 22):
		// Its apiserver refuses the CRD outright: an error, as validate
		// --k8s-version says (crdfields.Check), unless asked otherwise.
		r.badInput(sc, "/apiVersion", "apiextensions.k8s.io/v1beta1 CRDs are served up to Kubernetes 1.21; Kubernetes %s serves only apiextensions.k8s.io/v1: convert the template to apiextensions.k8s.io/v1, pass --k8s-version 1.21 or earlier, or pass --allow-removed-api (allowRemovedAPI: true in the configuration) to compile it with a warning", r.c.version)
	case apiVersion == apiextensionsV1 && !r.c.bundle.Has(crdfields.DefsPrefix+"v1.CustomResourceDefinition") && r.c.bundle.Has(crdfields.DefsPrefix+"v1beta1.CustomResourceDefinition"):
		// The target's bundle has only v1beta1 CRDs (1.12-1.15): its
		// apiserver would refuse the CRD outright, an error, as validate
		// --k8s-version says (crdfields.Check).
		r.badInput(sc, "/apiVersion", "apiextensions.k8s.io/v1 CRDs are served from Kubernetes 1.16; Kubernetes %s serves only apiextensions.k8s.io/v1beta1: write the template as apiVersion: apiextensions.k8s.io/v1beta1, or pass --k8s-version 1.16 or later", r.c.version)
	}
	if spec, _ := obj["spec"].(map[string]any); spec == nil {
		r.badInput(sc, "/spec", "the CRD has no spec")
		return nil, false
	}
	return &templateDoc{sc: sc, obj: obj, apiVersion: apiVersion}, true
}

// resolveSchemas copies the template without its definitions, with every
// openAPIV3Schema resolved (resolve.go) and made structural
// (structural.go).
func (r *run) resolveSchemas(t *templateDoc) *crdDoc {
	sc := t.sc
	out := make(map[string]any, len(t.obj))
	for k, v := range t.obj {
		if k != "definitions" {
			out[k] = deepCopy(v)
		}
	}
	spec := out["spec"].(map[string]any)
	found := 0
	compileAt := func(holder map[string]any, ptr string) {
		schema, ok := holder["openAPIV3Schema"]
		if !ok {
			return
		}
		found++
		sptr := ptr + "/openAPIV3Schema"
		if _, ok := schema.(map[string]any); !ok {
			r.badInput(sc, sptr, "openAPIV3Schema must be a mapping, not %s", describeValue(schema))
			return
		}
		orig, _ := lookupPointer(sc.doc.Value, sptr)
		// The tree shares normalised subtrees with the cache: the passes
		// below copy what they change.
		resolved, _ := r.resolveSchema(orig, sc, sptr).(map[string]any)
		if resolved == nil { // stopped, reported
			return
		}
		r.structural(resolved, sc, sptr)
		holder["openAPIV3Schema"] = resolved
	}
	if v, ok := spec["validation"].(map[string]any); ok {
		compileAt(v, "/spec/validation")
	}
	versions, _ := spec["versions"].([]any)
	for i, v := range versions {
		vm, _ := v.(map[string]any)
		if s, ok := vm["schema"].(map[string]any); ok {
			compileAt(s, fmt.Sprintf("/spec/versions/%d/schema", i))
		}
	}
	if found == 0 {
		where := "spec.versions[*].schema.openAPIV3Schema"
		if t.apiVersion == apiextensionsV1beta1 {
			where = "spec.validation.openAPIV3Schema or " + where
		}
		r.badInput(sc, "/spec", "the CRD has no schema; write one at %s", where)
	}
	// A $ref anywhere else (names, printer columns...) is not a schema
	// and is not resolved: say so rather than pass it through.
	r.scanRefs(out, sc, "a $ref outside openAPIV3Schema is not resolved; write the value out, or move the $ref into the schema", false)
	return &crdDoc{t: t, obj: out}
}

// postSteps finishes a compiled CRD: the v1beta1 rules on defaults
// (v1beta1.go), the size check on what was built (budget.go), then the
// JSON patch (patch.go), checked to leave a CRD.
func (r *run) postSteps(crd *crdDoc) (*crdDoc, bool) {
	errsBefore := len(r.errs)
	sc, out := crd.t.sc, crd.obj
	if crd.t.apiVersion == apiextensionsV1beta1 {
		if r.v1beta1Defaults(out, sc); len(r.errs) > errsBefore {
			return nil, false
		}
	}
	// What the document is, exactly, before anything materialises it
	// (the patch copies it whole).
	size := r.measure(out)
	if !r.checkOutput(sc, size, "the compiled CRD") {
		return nil, false
	}
	if p := r.patch; p != nil {
		shape := schemaShapeOf(crd.t.obj)
		patched, err := p.apply(out, r.budget, nil)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				r.errs = append(r.errs, e)
			}
			return nil, false
		}
		if problem := crdProblem(patched, shape); problem != "" {
			r.errs = append(r.errs, p.breakingOp(out, shape, Size(r.budget.Limit), problem))
			return nil, false
		}
		out = patched.(map[string]any)
		r.scanRefs(out, sc, "the patch adds a $ref; patches apply after resolution, so write the ref in the template instead", true)
		// What the patch wrote is judged by the target minor too (minor.go).
		if r.checkPatchMinor(p, out, crd.t.apiVersion[len("apiextensions.k8s.io/"):]); len(r.errs) > errsBefore {
			return nil, false
		}
		size = r.measure(out)
		if !r.checkOutput(sc, size, "the patched CRD") {
			return nil, false
		}
	}
	return &crdDoc{t: crd.t, obj: out, size: size}, true
}

// scanRefs reports every $ref keyword left in a compiled document with the
// message why. Resolved schemas hold none by construction, so they are only
// searched when intoSchemas is set (after a patch).
func (r *run) scanRefs(v any, sc scope, why string, intoSchemas bool) {
	cause := ErrInput
	if intoSchemas {
		cause = ErrPatch
	}
	var walk func(v any, p *schemaPath, inSchema bool)
	walk = func(v any, p *schemaPath, inSchema bool) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				switch {
				case k == "$ref" && (p.parent == nil || p.tok != "properties"):
					r.errAt(site{sc: sc, ptr: p.join(k)}, fmt.Errorf("%w: %s", cause, why))
				case k == "openAPIV3Schema" && !intoSchemas:
				case inSchema && (k == "default" || k == "enum" || k == "example"):
				default:
					walk(x, p.Child(k), inSchema || k == "openAPIV3Schema")
				}
			}
		case []any:
			for i, x := range t {
				walk(x, p.Child(itoa(i)), inSchema)
			}
		}
	}
	walk(v, rootPath(""), false)
}

// checkOutput checks that the compile's output, with a document of size
// c added, stays within the budget and the nesting limit.
func (r *run) checkOutput(sc scope, c cost, what string) bool {
	if c.Depth > maxDepth {
		r.badInput(sc, "", "%s nests more than %d levels deep", what, maxDepth)
		return false
	}
	if why := r.budget.Over(r.output.Plus(c)); why != "" {
		r.errAt(site{sc: sc}, budgetError(what+" brings the compile's output to "+why))
		return false
	}
	return true
}

// schemaShape is where a template holds its schemas; a patched CRD must
// still hold them there.
type schemaShape struct {
	validation bool // spec.validation.openAPIV3Schema (v1beta1)
	perVersion bool // spec.versions[*].schema.openAPIV3Schema
}

func schemaShapeOf(crd map[string]any) schemaShape {
	var s schemaShape
	_, s.validation = dig(crd, "spec", "validation", "openAPIV3Schema").(map[string]any)
	versions, _ := dig(crd, "spec", "versions").([]any)
	for _, v := range versions {
		if _, ok := dig(v, "schema", "openAPIV3Schema").(map[string]any); ok {
			s.perVersion = true
		}
	}
	return s
}

// crdProblem says why doc is no longer a CRD with the schemas a template
// of that shape had, or returns "".
func crdProblem(doc any, shape schemaShape) string {
	m, ok := doc.(map[string]any)
	if !ok {
		return "the document is " + describeValue(doc)
	}
	apiVersion, _ := m["apiVersion"].(string)
	if apiVersion != apiextensionsV1 && apiVersion != apiextensionsV1beta1 {
		return fmt.Sprintf("its apiVersion is %s, not %s or %s", describeScalar(m["apiVersion"]), apiextensionsV1, apiextensionsV1beta1)
	}
	if m["kind"] != "CustomResourceDefinition" {
		return fmt.Sprintf("its kind is %s, not CustomResourceDefinition", describeScalar(m["kind"]))
	}
	spec, ok := m["spec"].(map[string]any)
	if !ok {
		return "it has no spec mapping"
	}
	schemas := 0
	if v, has := dig(spec, "validation", "openAPIV3Schema").(map[string]any); has && v != nil {
		schemas++
	} else if shape.validation {
		return "spec.validation.openAPIV3Schema is no longer a schema (the template had one)"
	}
	versions, _ := spec["versions"].([]any)
	for i, v := range versions {
		if _, has := dig(v, "schema", "openAPIV3Schema").(map[string]any); has {
			schemas++
		} else if shape.perVersion {
			name, _ := dig(v, "name").(string)
			return fmt.Sprintf("spec.versions[%d] (%q) has no schema.openAPIV3Schema (every version of the template had one)", i, name)
		}
	}
	if schemas == 0 {
		return "it has no schema left"
	}
	if p := crdfields.BadFields(m, apiVersion); len(p) > 0 {
		return p[0].Message
	}
	return ""
}

func describeScalar(v any) string {
	switch t := v.(type) {
	case string:
		return fmt.Sprintf("%q", t)
	case nil:
		return "missing"
	}
	return describeValue(v)
}

// breakingOp re-applies the patch one operation at a time, on the error
// path only, to name the operation after which the document stopped being
// a CRD with schemas (for good: the last one that turned it from one into
// none).
func (p *Patch) breakingOp(doc any, shape schemaShape, limit Size, final string) *Error {
	bad, problem := -1, final
	wasOK := true
	_, _ = p.apply(doc, newBudget(limit), func(i int, d any) {
		why := crdProblem(d, shape)
		if why != "" && wasOK {
			bad, problem = i, why
		}
		wasOK = why == ""
	})
	if bad < 0 { // cannot happen: the last document has a problem
		return &Error{Pos: Position{File: p.file}, Err: fmt.Errorf("%w: the patched document is no longer a CRD with schemas: %s", ErrPatch, final)}
	}
	op := p.ops[bad]
	return &Error{Pos: op.pos, Err: fmt.Errorf("%w: after operation %d (%s) the document is no longer a CRD with schemas: %s", ErrPatch, bad, op.describe(), problem)}
}
