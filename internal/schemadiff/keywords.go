package schemadiff

import "slices"

// comparedKeywords are the JSON-schema keywords (of apiextensionsv1.JSONSchemaProps) a rule
// of the walker reads. TestEveryKeywordIsHandled holds this list and ignoredKeywords to the
// fields of JSONSchemaProps: a keyword Kubernetes adds is either given a rule or listed as
// ignored, never dropped unseen.
var comparedKeywords = []string{
	"type", "format", "default", "enum", "pattern", "required", "nullable", "multipleOf",
	"maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
	"maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties",
	"x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string",
	"x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type", "x-kubernetes-validations",
	// Counted, not reported (Report.DescriptionsChanged).
	"description",
	// Walked into when they hold a schema; any other change of them is an UnhandledChange.
	"properties", "items", "additionalProperties",
}

// ignoredKeywords are keywords no change of which is reported, with the reason. Every other
// keyword (allOf, oneOf, anyOf, not, and what CRDs may not hold: $ref, definitions,
// patternProperties, dependencies, additionalItems) is compared as a value: a difference is
// an UnhandledChange, breaking, for a person to review. (anyOf is left alone where it only
// follows x-kubernetes-int-or-string, which has its own rule.)
var ignoredKeywords = map[string]string{
	"title":        "documentation only: validation, pruning and defaulting never read it",
	"example":      "documentation only: validation, pruning and defaulting never read it",
	"externalDocs": "documentation only: validation, pruning and defaulting never read it",
	"id":           "not used by the apiserver (CRDs may not set it)",
	"$schema":      "not used by the apiserver (CRDs may not set it)",
}

// unhandled reports every keyword of o or n that differs and that no rule reads.
func (w *walker) unhandled(path string, o, n map[string]any) {
	iosChanged := flag(o, "x-kubernetes-int-or-string") != flag(n, "x-kubernetes-int-or-string")
	for _, k := range unionKeys(o, n) {
		ov, nv := o[k], n[k]
		switch {
		case k == "items" || k == "additionalProperties":
			if _, om := ov.(map[string]any); om {
				if _, nm := nv.(map[string]any); nm {
					continue // walked
				}
			}
		case slices.Contains(comparedKeywords, k), ignoredKeywords[k] != "", k == "anyOf" && iosChanged:
			continue
		}
		if same(ov, nv) {
			continue
		}
		w.add(path, UnhandledChange, k, true, "no rule classifies a change of "+k+": review it by hand (counted as breaking)", ov, nv)
	}
}
