package resolver

import (
	"errors"
	"fmt"
)

const (
	apiextensionsV1      = "apiextensions.k8s.io/v1"
	apiextensionsV1beta1 = "apiextensions.k8s.io/v1beta1"
)

// compileDocument turns one template document into a CRD: every schema
// resolved and made structural, the template's own definitions dropped,
// then the patch applied. It reports false when the document failed.
func (r *run) compileDocument(abs string, d *document) (map[string]any, bool) {
	errsBefore := len(r.errs)
	sc := scope{file: abs, doc: d}
	obj, ok := d.value.(map[string]any)
	if !ok {
		r.errAt(site{sc: sc}, fmt.Errorf("%w: expected a CustomResourceDefinition mapping, found %s", ErrInput, describeValue(d.value)))
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
		r.errAt(site{sc: sc, ptr: ptr}, fmt.Errorf("%w: %s", ErrInput, msg))
		return nil, false
	}
	if apiVersion == apiextensionsV1beta1 && r.c.atLeast(1, 22) {
		r.warn(sc, "/apiVersion", "apiextensions.k8s.io/v1beta1 CRDs are not served by Kubernetes 1.22 and later; convert the template to apiextensions.k8s.io/v1")
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "definitions" {
			out[k] = deepCopy(v)
		}
	}
	spec, _ := out["spec"].(map[string]any)
	if spec == nil {
		r.errAt(site{sc: sc, ptr: "/spec"}, fmt.Errorf("%w: the CRD has no spec", ErrInput))
		return nil, false
	}
	found := 0
	compileAt := func(holder map[string]any, ptr string) {
		schema, ok := holder["openAPIV3Schema"]
		if !ok {
			return
		}
		found++
		sptr := ptr + "/openAPIV3Schema"
		if _, ok := schema.(map[string]any); !ok {
			r.errAt(site{sc: sc, ptr: sptr}, fmt.Errorf("%w: openAPIV3Schema must be a mapping, not %s", ErrInput, describeValue(schema)))
			return
		}
		orig, _ := lookupPointer(d.value, sptr)
		// The tree shares normalised subtrees with the cache: the passes
		// below copy what they change.
		resolved, _ := r.resolveSchema(orig, sc, sptr).(map[string]any)
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
		if apiVersion == apiextensionsV1beta1 {
			where = "spec.validation.openAPIV3Schema or " + where
		}
		r.errAt(site{sc: sc, ptr: "/spec"}, fmt.Errorf("%w: the CRD has no schema; write one at %s", ErrInput, where))
	}
	// A $ref anywhere else (names, printer columns...) is not a schema
	// and is not resolved: say so rather than pass it through.
	r.scanRefs(out, sc, "a $ref outside openAPIV3Schema is not resolved; write the value out, or move the $ref into the schema", false)
	if len(r.errs) > errsBefore {
		return nil, false
	}
	if p := r.c.opts.Patch; p != nil {
		patched, err := p.Apply(out)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				r.errs = append(r.errs, e)
			}
			return nil, false
		}
		m, ok := patched.(map[string]any)
		if !ok {
			r.errAt(site{sc: sc}, fmt.Errorf("%w: the patched document is %s, not a CRD", ErrPatch, describeValue(patched)))
			return nil, false
		}
		out = m
		r.scanRefs(out, sc, "the patch adds a $ref; patches apply after resolution, so write the ref in the template instead", true)
	}
	return out, len(r.errs) == errsBefore
}

// scanRefs reports every $ref keyword left in a compiled document with the
// message why. Resolved schemas hold none by construction, so they are only
// searched when intoSchemas is set (after a patch).
func (r *run) scanRefs(v any, sc scope, why string, intoSchemas bool) {
	cause := ErrInput
	if intoSchemas {
		cause = ErrPatch
	}
	var walk func(v any, p *Path, inSchema bool)
	walk = func(v any, p *Path, inSchema bool) {
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
	walk(v, RootPath(""), false)
}
