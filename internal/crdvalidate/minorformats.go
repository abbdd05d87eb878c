package crdvalidate

import (
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// forgetFormats clears, in every schema of crd, each format that
// Kubernetes v does not recognise (k8s-short-name before 1.34, ...): its
// apiserver validates no value against it, and only warns about it when
// the CRD is created. crd is modified: it is the catalog's own copy,
// before any custom resource is judged with it.
func forgetFormats(crd *apiextensions.CustomResourceDefinition, v *version.Version) {
	if crd.Spec.Validation != nil {
		forgetSchemaFormats(crd.Spec.Validation.OpenAPIV3Schema, v)
	}
	for i := range crd.Spec.Versions {
		if s := crd.Spec.Versions[i].Schema; s != nil {
			forgetSchemaFormats(s.OpenAPIV3Schema, v)
		}
	}
}

// forgetSchemaFormats is forgetFormats for one schema and every schema in
// it that validates values.
func forgetSchemaFormats(s *apiextensions.JSONSchemaProps, v *version.Version) {
	if s == nil {
		return
	}
	if s.Format != "" {
		sp := &spec.Schema{}
		sp.Format = s.Format
		if s.Type != "" {
			sp.Type = spec.StringOrArray{s.Type}
		}
		if len(apiservervalidation.GetUnrecognizedFormats(sp, v)) > 0 {
			s.Format = ""
		}
	}
	for k, p := range s.Properties {
		forgetSchemaFormats(&p, v)
		s.Properties[k] = p
	}
	if s.Items != nil {
		forgetSchemaFormats(s.Items.Schema, v)
		for i := range s.Items.JSONSchemas {
			forgetSchemaFormats(&s.Items.JSONSchemas[i], v)
		}
	}
	if s.AdditionalProperties != nil {
		forgetSchemaFormats(s.AdditionalProperties.Schema, v)
	}
	for _, l := range [][]apiextensions.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			forgetSchemaFormats(&l[i], v)
		}
	}
	forgetSchemaFormats(s.Not, v)
}
