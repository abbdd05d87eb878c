// Package oracle runs the apiserver's own code (k8s.io/apiextensions-apiserver,
// used as a library) on CRDs and custom resources: CRD validation, structural
// schema construction, pruning, defaulting and schema validation, in the
// order the apiserver applies them.
//
// # Cost
//
// Linking k8s.io/apiextensions-apiserver costs a process ~12 ms and ~27 MiB
// of package initialisation before main runs. This package is therefore kept
// out of the compile path: tests use it, and commands that need it pay for it.
package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/kube-openapi/pkg/validation/spec"
	kjson "sigs.k8s.io/json"
)

// CRD is a CustomResourceDefinition converted to the apiserver's internal
// type, ready for validation.
type CRD struct {
	Internal *apiextensions.CustomResourceDefinition
	// APIVersion is the apiVersion the CRD was written in (a create
	// request of that version, for Validate).
	APIVersion string
	// Kind is the document's kind, normally CustomResourceDefinition
	// (DecodeJSON does not check it).
	Kind string

	mu       sync.Mutex
	prepared map[string]*prepared // by version, for Create
}

// Decode converts a CRD given as JSON-like values (what the resolver
// produces, or a decoded YAML file) to the internal type, as DecodeJSON
// does with its JSON.
func Decode(obj map[string]any) (*CRD, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return DecodeJSON(raw)
}

// DecodeJSON converts a CRD given as JSON (apiextensions.k8s.io/v1 or
// v1beta1) to the internal type, decoding it once, straight into the
// versioned type, as the apiserver does with a create request under strict
// field validation (kubectl's default): field names are case-sensitive,
// and unknown and duplicate fields are errors, every one listed with its
// path (a *StrictError). As in the apiserver, the schemas under items and
// additionalProperties are decoded by their own UnmarshalJSON, which does
// not report unknown fields.
func DecodeJSON(raw []byte) (*CRD, error) {
	// Most CRDs are v1: decode as one, and only look at what the
	// document says it is when that is not what it says.
	var v1 apiextensionsv1.CustomResourceDefinition
	strictErrs, err := kjson.UnmarshalStrict(raw, &v1)
	if err == nil && v1.APIVersion == apiextensionsv1.SchemeGroupVersion.String() {
		if len(strictErrs) > 0 {
			return nil, &StrictError{Errs: strictErrs}
		}
		internal := &apiextensions.CustomResourceDefinition{}
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
		if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, internal, nil); err != nil {
			return nil, err
		}
		return &CRD{Internal: internal, APIVersion: v1.APIVersion, Kind: v1.Kind}, nil
	}
	var head metav1.TypeMeta
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &head); err != nil {
		return nil, err
	}
	switch head.APIVersion {
	case apiextensionsv1.SchemeGroupVersion.String():
		if err == nil { // the v1 decode's own error, which cannot be nil here
			err = fmt.Errorf("cannot decode as %s", head.APIVersion)
		}
		return nil, err
	case apiextensionsv1beta1.SchemeGroupVersion.String():
		var v1beta1 apiextensionsv1beta1.CustomResourceDefinition
		strictErrs, err := kjson.UnmarshalStrict(raw, &v1beta1)
		if err != nil {
			return nil, err
		}
		if len(strictErrs) > 0 {
			return nil, &StrictError{Errs: strictErrs}
		}
		internal := &apiextensions.CustomResourceDefinition{}
		apiextensionsv1beta1.SetObjectDefaults_CustomResourceDefinition(&v1beta1)
		if err := apiextensionsv1beta1.Convert_v1beta1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1beta1, internal, nil); err != nil {
			return nil, err
		}
		return &CRD{Internal: internal, APIVersion: head.APIVersion, Kind: v1beta1.Kind}, nil
	}
	apiVersion := any(head.APIVersion)
	if head.APIVersion == "" {
		apiVersion = nil // absent (or empty): printed as before, <nil>
	}
	return nil, fmt.Errorf("apiVersion %v is not apiextensions.k8s.io/v1 or v1beta1", apiVersion)
}

// StrictError lists the unknown and duplicate fields of a document, each
// with its path ("json: unknown field \"spec.versions[0].nmae\"").
type StrictError struct{ Errs []error }

// Error joins the field errors with "; ".
func (e *StrictError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap returns the field errors.
func (e *StrictError) Unwrap() []error { return e.Errs }

// Validate runs ValidateCustomResourceDefinition, exactly as the apiserver
// does on create, and returns every problem.
//
// One exception, for an apiextensions.k8s.io/v1beta1 CRD: spec.
// preserveUnknownFields: true is allowed, as the apiservers that serve
// v1beta1 (1.16-1.21) allow it on a v1beta1 create (their
// validatePreserveUnknownFields returns early for a v1beta1 request; since
// 1.22, with v1beta1 gone, the check has no such exception). Every other
// check, defaults needing preserveUnknownFields: false included, is the
// same code.
func (c *CRD) Validate(ctx context.Context) field.ErrorList {
	errs := apiextensionsvalidation.ValidateCustomResourceDefinition(ctx, c.Internal)
	if c.APIVersion == apiextensionsv1beta1.SchemeGroupVersion.String() {
		errs = slices.DeleteFunc(errs, func(e *field.Error) bool {
			return e.Field == "spec.preserveUnknownFields" && e.Type == field.ErrorTypeInvalid && strings.HasPrefix(e.Detail, "cannot set to true")
		})
	}
	return errs
}

// ValidateFor is Validate as Kubernetes k8sVersion (a minor in any form
// version.ParseGeneric reads; "" the newest) judges a create. Before
// 1.15 CRD schemas have no structural rules: an apiextensions.k8s.io/v1beta1
// CRD with an int-or-string written as its anyOf alone (those minors have
// no x-kubernetes-int-or-string) is what their apiservers take. The
// apiserver's code keeps such CRDs as it keeps every rule it added since
// (structural schemas, valid property types, pruned defaults, atomic
// sets...): an update of a CRD stored before the rule is not held to it.
// So a v1beta1 CRD for those minors is judged as an update of itself,
// which applies every other check. For any other minor, or a v1 CRD (those
// minors refuse it, see crdfields.Check), it is Validate.
func (c *CRD) ValidateFor(ctx context.Context, k8sVersion string) field.ErrorList {
	v, err := version.ParseGeneric(k8sVersion)
	if k8sVersion == "" || err != nil || v.Major() != 1 || v.Minor() >= 15 || c.APIVersion != apiextensionsv1beta1.SchemeGroupVersion.String() {
		return c.Validate(ctx)
	}
	obj := c.Internal.DeepCopy()
	if obj.ResourceVersion == "" {
		obj.ResourceVersion = "1" // an update names what it replaces
	}
	errs := apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate(ctx, obj, obj.DeepCopy())
	return slices.DeleteFunc(errs, func(e *field.Error) bool {
		return e.Field == "spec.preserveUnknownFields" && e.Type == field.ErrorTypeInvalid && strings.HasPrefix(e.Detail, "cannot set to true")
	})
}

// UnrecognizedFormats lists the formats the apiserver would warn about, as
// "path: format", for the given Kubernetes version.
func (c *CRD) UnrecognizedFormats(k8sVersion string) ([]string, error) {
	v, err := version.ParseGeneric(k8sVersion)
	if err != nil {
		return nil, err
	}
	var out []string
	// path holds the node's path in pieces, joined only for a finding.
	var path []string
	var walk func(p *apiextensions.JSONSchemaProps, at ...string)
	walk = func(p *apiextensions.JSONSchemaProps, at ...string) {
		if p == nil {
			return
		}
		path = append(path, at...)
		defer func() { path = path[:len(path)-len(at)] }()
		if p.Format != "" { // GetUnrecognizedFormats finds none without one
			sp := &spec.Schema{}
			sp.Format = p.Format
			if p.Type != "" {
				sp.Type = spec.StringOrArray{p.Type}
			}
			for _, f := range apiservervalidation.GetUnrecognizedFormats(sp, v) {
				out = append(out, strings.Join(path, "")+": "+f)
			}
		}
		for k, child := range p.Properties {
			walk(&child, ".properties.", k)
		}
		if p.Items != nil {
			walk(p.Items.Schema, ".items")
		}
		if p.AdditionalProperties != nil {
			walk(p.AdditionalProperties.Schema, ".additionalProperties")
		}
		for i := range p.AllOf {
			walk(&p.AllOf[i], ".allOf[", strconv.Itoa(i), "]")
		}
		for i := range p.AnyOf {
			walk(&p.AnyOf[i], ".anyOf[", strconv.Itoa(i), "]")
		}
		for i := range p.OneOf {
			walk(&p.OneOf[i], ".oneOf[", strconv.Itoa(i), "]")
		}
	}
	for _, s := range c.schemas() {
		walk(s.schema, s.path)
	}
	slices.Sort(out)
	return out, nil
}

type namedSchema struct {
	path   string
	schema *apiextensions.JSONSchemaProps
}

func (c *CRD) schemas() []namedSchema {
	var out []namedSchema
	if c.Internal.Spec.Validation != nil && c.Internal.Spec.Validation.OpenAPIV3Schema != nil {
		out = append(out, namedSchema{"spec.validation.openAPIV3Schema", c.Internal.Spec.Validation.OpenAPIV3Schema})
	}
	for i, v := range c.Internal.Spec.Versions {
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			out = append(out, namedSchema{fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", i), v.Schema.OpenAPIV3Schema})
		}
	}
	return out
}

// schemaFor returns the schema that applies to a version of the CRD.
func (c *CRD) schemaFor(name string) (*apiextensions.JSONSchemaProps, error) {
	for _, v := range c.Internal.Spec.Versions {
		if v.Name == name && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			return v.Schema.OpenAPIV3Schema, nil
		}
	}
	if c.Internal.Spec.Validation != nil && c.Internal.Spec.Validation.OpenAPIV3Schema != nil {
		return c.Internal.Spec.Validation.OpenAPIV3Schema, nil
	}
	return nil, fmt.Errorf("CRD %s has no schema for version %q", c.Internal.Name, name)
}

// Admission is what the apiserver does to one custom resource on create.
type Admission struct {
	// Pruned lists the fields structural pruning removed (JSON paths).
	Pruned []string
	// Errors are the schema validation errors.
	Errors field.ErrorList
	// Object is the resource as it would be stored: pruned, defaulted.
	Object map[string]any
}

// Admit runs a custom resource (JSON-like values, as decoded from JSON)
// through the apiserver's steps for the given CRD version: pruning, null
// pruning and defaulting, then schema validation.
func (c *CRD) Admit(ctx context.Context, versionName string, obj map[string]any) (*Admission, error) {
	schema, err := c.schemaFor(versionName)
	if err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(schema)
	if err != nil {
		return nil, fmt.Errorf("not structural: %w", err)
	}
	obj = deepCopyJSON(obj)
	pruned := structuralpruning.PruneWithOptions(obj, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s)
	structuraldefaulting.Default(obj, s)
	validator, _, err := apiservervalidation.NewSchemaValidator(schema)
	if err != nil {
		return nil, err
	}
	errs := apiservervalidation.ValidateCustomResource(nil, obj, validator)
	slices.Sort(pruned)
	return &Admission{Pruned: pruned, Errors: errs, Object: obj}, nil
}

// Structural reports whether every schema of the CRD is structural, as
// NewStructural plus the structural invariants check see it.
func (c *CRD) Structural() error {
	for _, ns := range c.schemas() {
		s, err := structuralschema.NewStructural(ns.schema)
		if err != nil {
			return fmt.Errorf("%s: %w", ns.path, err)
		}
		if errs := structuralschema.ValidateStructural(field.NewPath(ns.path), s); len(errs) > 0 {
			return fmt.Errorf("%s: %w", ns.path, errs.ToAggregate())
		}
	}
	return nil
}
