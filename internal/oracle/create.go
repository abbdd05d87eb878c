package oracle

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/operation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kversion "k8s.io/apimachinery/pkg/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// Verdict is what the apiserver says to a create request of one custom
// resource (Create).
type Verdict struct {
	// Unknown lists the fields the apiserver drops, as it names them
	// ("spec.worker.spce", "metadata.labelz"): pruned by the schema or
	// unknown to ObjectMeta. With fieldValidation=Strict (kubectl's
	// default) each is an `unknown field` error, with Warn a warning;
	// with Ignore they are dropped silently.
	Unknown []string
	// Errors are the validation errors that make the apiserver refuse
	// the object (422 Invalid): schema, CEL rules, metadata, list
	// types. Empty when the object would be created.
	Errors field.ErrorList
	// Warnings are what the apiserver sends back with the response:
	// a deprecated version, finalizer names.
	Warnings []string
	// Duplicates are the duplicate keys of x-kubernetes-list-type map
	// lists and duplicate items of set lists that
	// CreateOptions.DuplicateAccepted accepted: not in Errors.
	Duplicates field.ErrorList
	// Object is the resource as it would be stored: pruned, defaulted,
	// status dropped when the CRD has a status subresource.
	Object map[string]any
}

// CreateOptions changes how Create judges an object that is judged as a
// custom resource but is not one (a built-in kind's object, by a CRD
// compiled from its schema). The zero value judges as the apiserver
// judges a custom resource.
type CreateOptions struct {
	// DuplicateAccepted, when set, is asked about each duplicate the
	// list-type check finds (a key of an x-kubernetes-list-type map, an
	// item of a set: a field.ErrorTypeDuplicate at the list item); one it
	// accepts is in Verdict.Duplicates instead of Errors, and counts as
	// no error for what follows (CEL rules, the generic metadata checks).
	// The apiserver refuses every such duplicate of a custom resource:
	// leave it nil for one.
	DuplicateAccepted func(*field.Error) bool
}

// ErrNotServed is returned by Create for a version the CRD does not serve
// (the apiserver answers 404 Not Found).
var ErrNotServed = fmt.Errorf("version not served")

// Create judges a custom resource (JSON-like values) as the apiserver
// judges a create request of it, in the apiserver's order: decoding
// (ObjectMeta's unknown fields, structural pruning, nulls, metadata
// coercion), defaulting, PrepareForCreate, then the custom resource
// strategy's validation (apiVersion and kind, ObjectMeta, the OpenAPI
// schema with formats, int-or-string and quantities, embedded resources,
// list types, x-kubernetes-validations with the apiserver's per-call and
// per-request CEL cost limits) and the generic ObjectMeta checks. The
// object's apiVersion must name the CRD's group; its version must be
// one the CRD defines (an error otherwise, ErrNotServed for an unserved
// one).
//
// A namespaced object without a namespace gets "default", as kubectl
// gives it; a generateName gets five characters, as the apiserver's
// name generator does. The zero CreateOptions judge as the apiserver
// judges a custom resource.
func (c *CRD) Create(ctx context.Context, obj map[string]any, opts CreateOptions) (*Verdict, error) {
	spec := &c.Internal.Spec
	apiVersion, _ := obj["apiVersion"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	if gv.Group != spec.Group {
		return nil, fmt.Errorf("apiVersion %q is not of group %s", apiVersion, spec.Group)
	}
	ver := slices.IndexFunc(spec.Versions, func(v apiextensions.CustomResourceDefinitionVersion) bool { return v.Name == gv.Version })
	if ver < 0 && !(len(spec.Versions) == 0 && spec.Version == gv.Version) {
		return nil, fmt.Errorf("no version %q in CRD %s", gv.Version, c.Internal.Name)
	}
	v := apiextensions.CustomResourceDefinitionVersion{Name: gv.Version, Served: true}
	if ver >= 0 {
		v = spec.Versions[ver]
	}
	if !v.Served {
		return nil, fmt.Errorf("%w: %s is not served by CRD %s", ErrNotServed, apiVersion, c.Internal.Name)
	}
	pr, err := c.prepare(gv.Version)
	if err != nil {
		return nil, err
	}
	s := pr.structural
	verdict := &Verdict{}
	if v.Deprecated {
		if v.DeprecationWarning != nil {
			verdict.Warnings = append(verdict.Warnings, *v.DeprecationWarning)
		} else {
			verdict.Warnings = append(verdict.Warnings, defaultDeprecationWarning(gv.Version, spec))
		}
	}

	// Decoding: the apiserver's unstructuredSchemaCoercer.apply, with
	// unknown field paths returned (as for fieldValidation Strict or Warn).
	u := deepCopyJSON(obj)
	kind, _ := u["kind"].(string)
	objectMeta, foundMeta, unknownMeta, err := schemaobjectmeta.GetObjectMetaWithOptions(u, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	verdict.Unknown = append(verdict.Unknown, unknownMeta...)
	if kind == spec.Names.Kind {
		if spec.PreserveUnknownFields == nil || !*spec.PreserveUnknownFields {
			verdict.Unknown = append(verdict.Unknown, structuralpruning.PruneWithOptions(u, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, s)
		}
		ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u, s, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if ferr != nil {
			return nil, ferr
		}
		verdict.Unknown = append(verdict.Unknown, paths...)
	}
	uu := &unstructured.Unstructured{Object: u}
	uu.SetKind(kind)
	uu.SetAPIVersion(apiVersion)
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(u, objectMeta); err != nil {
			return nil, err
		}
	}
	structuraldefaulting.Default(u, s)

	// The request: what kubectl and the apiserver fill in.
	namespaced := spec.Scope == apiextensions.NamespaceScoped
	if namespaced && uu.GetNamespace() == "" {
		uu.SetNamespace(metav1.NamespaceDefault)
	}
	if !namespaced {
		uu.SetNamespace("")
	}
	if uu.GetName() == "" && uu.GetGenerateName() != "" {
		uu.SetName(uu.GetGenerateName() + "x2v7q")
	}
	// PrepareForCreate.
	if spec.Subresources != nil && spec.Subresources.Status != nil || v.Subresources != nil && v.Subresources.Status != nil {
		delete(u, "status")
	}
	uu.SetGeneration(1)

	// The strategy's Validate.
	var errs field.ErrorList
	if kind != spec.Names.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), kind, fmt.Sprintf("must be %v", spec.Names.Kind)))
	}
	if len(errs) == 0 {
		meta, merrs := objectMetaOf(u)
		errs = append(errs, merrs...)
		if meta != nil {
			errs = append(errs, metavalidation.ValidateObjectMetaDeclaratively(ctx, operation.Create, meta, nil, namespaced, metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"), utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta))...)
		}
		if !pr.quick.valid(u) {
			errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u, pr.validator)...)
		}
		errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u, s, false)...)
		for _, e := range structurallisttype.ValidateListSetsAndMaps(nil, s, u) {
			if e.Type == field.ErrorTypeDuplicate && opts.DuplicateAccepted != nil && opts.DuplicateAccepted(e) {
				verdict.Duplicates = append(verdict.Duplicates, e)
				continue
			}
			errs = append(errs, e)
		}
		// As the strategy: the note that rules were skipped only where
		// there are rules (a CEL validator).
		if pr.cel != nil {
			if blocked := blockingError(errs); blocked != nil {
				errs = append(errs, blocked)
			} else {
				cerrs, _ := pr.cel.Validate(ctx, nil, s, u, nil, celconfig.RuntimeCELCostBudget)
				errs = append(errs, cerrs...)
			}
		}
	}
	// rest.ValidateCreate: the generic checks, once the strategy's pass.
	if len(errs) == 0 {
		errs = append(errs, metavalidation.ValidateObjectMetaAccessor(uu, namespaced, path.ValidatePathSegmentName, field.NewPath("metadata"))...)
	}
	verdict.Errors = errs
	verdict.Warnings = append(verdict.Warnings, finalizerWarnings(uu.GetFinalizers())...)
	verdict.Object = u
	return verdict, nil
}

// prepared is what the apiserver builds once per CRD version (the custom
// resource strategy) and uses for every request: safe for concurrent use.
type prepared struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	quick      *quickSchema   // whether validator would pass an object, known cheaply
	cel        *cel.Validator // nil without x-kubernetes-validations
}

// prepare returns the version's prepared validators, built on first use.
func (c *CRD) prepare(version string) (*prepared, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if pr, ok := c.prepared[version]; ok {
		return pr, nil
	}
	js, err := c.schemaFor(version)
	if err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(js)
	if err != nil {
		return nil, fmt.Errorf("CRD %s is not structural: %w", c.Internal.Name, err)
	}
	validator, openapi, err := apiservervalidation.NewSchemaValidator(js)
	if err != nil {
		return nil, err
	}
	pr := &prepared{structural: s, validator: validator, quick: compileQuick(openapi), cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}
	if c.prepared == nil {
		c.prepared = map[string]*prepared{}
	}
	c.prepared[version] = pr
	return pr, nil
}

// objectMetaOf is the strategy's getObjectMeta.
func objectMetaOf(u map[string]any) (*metav1.ObjectMeta, field.ErrorList) {
	raw := u["metadata"]
	if raw == nil {
		return &metav1.ObjectMeta{}, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, fmt.Sprintf("expected map[string]interface{}, got %T", raw))}
	}
	meta := &metav1.ObjectMeta{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, meta); err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, err.Error())}
	}
	return meta, nil
}

// blockingError is the strategy's hasBlockingErr: CEL rules are not run on
// an object with errors of these types.
func blockingError(errs field.ErrorList) *field.Error {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return nil
}

// defaultDeprecationWarning is the apiserver's (customresource_handler.go).
func defaultDeprecationWarning(deprecated string, spec *apiextensions.CustomResourceDefinitionSpec) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", spec.Group, deprecated, spec.Names.Kind)
	var newer []string
	for _, v := range spec.Versions {
		if v.Served && !v.Deprecated && kversion.CompareKubeAwareVersionStrings(deprecated, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	slices.SortFunc(newer, func(a, b string) int { return -kversion.CompareKubeAwareVersionStrings(a, b) })
	return msg + fmt.Sprintf("; use %s/%s %s", spec.Group, newer[0], spec.Names.Kind)
}

// standardFinalizers are the finalizers Kubernetes itself defines.
var standardFinalizers = []string{metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents, "kubernetes"}

// finalizerWarnings are the strategy's WarningsOnCreate.
func finalizerWarnings(finalizers []string) []string {
	var out []string
	p := field.NewPath("metadata", "finalizers").String()
	seen := map[string]bool{}
	sorted := slices.Clone(finalizers)
	slices.Sort(sorted)
	for _, f := range sorted {
		if seen[f] {
			continue
		}
		seen[f] = true
		for _, msg := range utilvalidation.IsQualifiedName(f) {
			out = append(out, fmt.Sprintf("%s: %q: %s", p, f, msg))
		}
		if !strings.Contains(f, "/") && !slices.Contains(standardFinalizers, f) {
			if strings.Contains(f, ".") {
				out = append(out, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers", p, f))
			} else {
				out = append(out, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", p, f))
			}
		}
	}
	return out
}
