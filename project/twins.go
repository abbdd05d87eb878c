package project

import "reflect"

// equal reports whether the JSON values a and b are equal (reflect.DeepEqual,
// faster for the maps, lists and scalars that compiled CRDs are made of).
func equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return reflect.DeepEqual(a, b)
}

// Twins: the same template compiled into two sets, one with Kubernetes'
// descriptions and one without (this repository's dist/ and
// operator/crds/), gives CRDs that the apiserver's validation cannot tell
// apart, so Validate sends only the first to the validator.
//
// # Why descriptions cannot change whether a CRD is valid
//
// ValidateCustomResourceDefinition (k8s.io/apiextensions-apiserver
// v0.37.2: pkg/apis/apiextensions/validation, the structural schema code
// in pkg/apiserver/schema, and the CEL and kube-openapi validators they
// build) reads a schema's description in these places only:
//   - by name: the structural check forbids a description inside a value
//     validation (allOf, anyOf, oneOf, not; ForbiddenGenerics);
//   - by reflection: the status subresource's list of fields allowed at
//     the root (description is one of them); the check of the root's
//     metadata property, which compares that node, description included,
//     with an empty one; hasIdenticalPerVersionSchema, which compares the
//     schemas of a CRD's versions with one another (and the v1 conversion,
//     which hoists identical ones); schemaHasUnprunedDefaults, which
//     compares a schema with a copy of itself;
//   - as a field error's value (the root schema, spec.versions), which
//     changes a message, never whether there is one.
//
// Descriptions are copied into the structural schema and into the
// kube-openapi schemas that the validators and CEL's cost estimates are
// built from, none of which reads them.
//
// So twins are CRDs equal once the descriptions are set aside everywhere
// but in value validations, in the root's metadata property and in a CRD
// with more than one version: then both are valid or both are invalid.
// Only "valid" is carried from one to the other; an invalid CRD's
// problems may quote its descriptions, so the twin of one is validated on
// its own. TestTwinsAreValidatedAlike (twins_test.go) checks each of these
// exceptions against the apiserver's code.

// twins reports whether the CRDs a and b (JSON values, as compiled) are
// twins: equal except for descriptions where none can change whether the
// CRD is valid. Descriptions that are not strings are compared as they are.
func twins(a, b map[string]any) bool {
	return equalExcept(a, b, map[string]func(x, y any) bool{"spec": spec})
}

// spec compares two CRD specs: at most one version each, schemas as twins.
func spec(a, b any) bool {
	va, _ := mapOf(a)["versions"].([]any)
	vb, _ := mapOf(b)["versions"].([]any)
	if len(va) > 1 || len(vb) > 1 {
		return false
	}
	return equalExcept(a, b, map[string]func(x, y any) bool{
		"versions": func(x, y any) bool {
			return equalList(x, y, func(x, y any) bool {
				return equalExcept(x, y, map[string]func(x, y any) bool{"schema": validation})
			})
		},
		"validation": validation, // apiextensions.k8s.io/v1beta1
	})
}

// validation compares two {openAPIV3Schema: ...}.
func validation(a, b any) bool {
	return equalExcept(a, b, map[string]func(x, y any) bool{
		"openAPIV3Schema": func(x, y any) bool { return schema(x, y, true) },
	})
}

// schema compares two schemas, leaving out their descriptions (when both
// are strings or absent) and those of the schemas under properties (but
// the root's metadata), items and additionalProperties. Everything else,
// value validations (allOf, anyOf, oneOf, not) whole, is compared as it is.
func schema(a, b any, root bool) bool {
	sub := func(x, y any) bool { return schema(x, y, false) }
	return equalExcept(a, b, map[string]func(x, y any) bool{
		"description": func(x, y any) bool {
			_, xs := x.(string)
			_, ys := y.(string)
			return (x == nil || xs) && (y == nil || ys) || equal(x, y)
		},
		"properties": func(x, y any) bool {
			return equalExcept(x, y, nil, func(k string, x, y any) bool {
				if root && k == "metadata" {
					return equal(x, y)
				}
				return schema(x, y, false)
			})
		},
		"items": func(x, y any) bool {
			if _, ok := x.([]any); ok {
				return equalList(x, y, sub)
			}
			return schemaOrValue(x, y, sub)
		},
		"additionalProperties": func(x, y any) bool { return schemaOrValue(x, y, sub) },
	})
}

// schemaOrValue compares two schemas with eq, anything else as it is.
func schemaOrValue(x, y any, eq func(x, y any) bool) bool {
	if _, ok := x.(map[string]any); ok {
		return eq(x, y)
	}
	return equal(x, y)
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// equalExcept reports whether a and b are equal objects, comparing the
// value of a key named in special with its function (called with nil for
// a missing side), the others with each (if given) or as they are.
func equalExcept(a, b any, special map[string]func(x, y any) bool, each ...func(k string, x, y any) bool) bool {
	ma, oka := a.(map[string]any)
	mb, okb := b.(map[string]any)
	if !oka || !okb {
		return oka == okb && equal(a, b)
	}
	cmp := func(k string, x, y any) bool {
		if f := special[k]; f != nil {
			return f(x, y)
		}
		if len(each) > 0 {
			return each[0](k, x, y)
		}
		return equal(x, y)
	}
	for k, x := range ma {
		y, ok := mb[k]
		if !ok && special[k] == nil {
			return false
		}
		if !cmp(k, x, y) {
			return false
		}
	}
	for k, y := range mb {
		if _, ok := ma[k]; !ok {
			if special[k] == nil || !cmp(k, nil, y) {
				return false
			}
		}
	}
	return true
}

// equalList reports whether a and b are lists of the same length whose
// elements are equal by eq.
func equalList(a, b any, eq func(x, y any) bool) bool {
	la, oka := a.([]any)
	lb, okb := b.([]any)
	if !oka || !okb {
		return oka == okb && equal(a, b)
	}
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		if !eq(la[i], lb[i]) {
			return false
		}
	}
	return true
}
