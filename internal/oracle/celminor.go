package oracle

import (
	"maps"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiextensionscel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// RulesNewerThan compiles the CRD's CEL rules and message expressions in
// the environment Kubernetes 1.minor offers a new expression (the base
// environment's libraries introduced up to that minor, as the linked
// apiserver records them), and reports each one that fails there while it
// compiles in the linked apiserver's own environment: a function such as
// isQuantity (1.29) used in a CRD for 1.25, which Validate, judging with
// the newest libraries, accepts. The errors have the apiserver's paths
// and wording. Minors at or past the linked apiserver's compatibility
// version report nothing.
func (c *CRD) RulesNewerThan(minor uint) field.ErrorList {
	current := environment.DefaultCompatibilityVersion()
	target := version.MajorMinor(1, minor)
	if !target.LessThan(current) {
		return nil
	}
	older, newest := environment.MustBaseEnvSet(target), environment.MustBaseEnvSet(current)
	var errs field.ErrorList
	var walk func(s *apiextensions.JSONSchemaProps, path *field.Path, root bool)
	walk = func(s *apiextensions.JSONSchemaProps, path *field.Path, root bool) {
		if s == nil {
			return
		}
		if len(s.XValidations) > 0 {
			errs = append(errs, rulesNewerThan(s, path, root, older, newest)...)
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[name]
			walk(&p, path.Child("properties").Key(name), p.XEmbeddedResource)
		}
		if s.Items != nil {
			walk(s.Items.Schema, path.Child("items"), s.Items.Schema != nil && s.Items.Schema.XEmbeddedResource)
		}
		if s.AdditionalProperties != nil {
			walk(s.AdditionalProperties.Schema, path.Child("additionalProperties"), s.AdditionalProperties.Schema != nil && s.AdditionalProperties.Schema.XEmbeddedResource)
		}
	}
	for _, ns := range c.schemas() {
		walk(ns.schema, field.NewPath("spec").Child(ns.path[len("spec."):]), true)
	}
	return errs
}

// rulesNewerThan compiles the rules of one schema node in both
// environments; a schema the apiserver cannot type is Validate's to report.
func rulesNewerThan(s *apiextensions.JSONSchemaProps, path *field.Path, root bool, older, newest *environment.EnvSet) field.ErrorList {
	structural, err := structuralschema.NewStructural(s)
	if err != nil {
		return nil
	}
	declType := model.SchemaDeclType(structural, root)
	if declType == nil {
		return nil
	}
	compile := func(set *environment.EnvSet) []apiextensionscel.CompilationResult {
		res, err := apiextensionscel.Compile(structural, declType, celconfig.PerCallLimit, set, apiextensionscel.NewExpressionsEnvLoader())
		if err != nil {
			return nil
		}
		return res
	}
	then, now := compile(older), compile(newest)
	if len(then) != len(now) {
		return nil
	}
	var errs field.ErrorList
	rules := path.Child("x-kubernetes-validations")
	for i := range then {
		if failsOnlyThen(then[i].Error, now[i].Error) {
			errs = append(errs, field.Invalid(rules.Index(i).Child("rule"), s.XValidations[i], then[i].Error.Detail))
		}
		if failsOnlyThen(then[i].MessageExpressionError, now[i].MessageExpressionError) {
			errs = append(errs, field.Invalid(rules.Index(i).Child("messageExpression"), s.XValidations[i], then[i].MessageExpressionError.Detail))
		}
	}
	return errs
}

func failsOnlyThen(then, now *apiservercel.Error) bool {
	return then != nil && now == nil
}
