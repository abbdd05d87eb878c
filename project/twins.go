package project

import (
	"fmt"
	"hash/maphash"
	"reflect"
)

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
	return equalExcept(a, b, map[string]func(x, y any) bool{"spec": func(x, y any) bool { return spec(x, y, false) }})
}

// Identity twins: CRDs that are twins but for their identity (metadata,
// spec.group, spec.names and spec.scope: cert-manager's Issuer and
// ClusterIssuer, or a project's many kinds each embedding a
// PodTemplateSpec, have the same schema under other names).
//
// # Why the identity is validated apart from the rest
//
// In ValidateCustomResourceDefinition (the same release), the identity
// is read by these checks only, each reading nothing but the identity:
// the metadata checks (ValidateObjectMeta, whose name check compares
// metadata.name with spec.names.plural + "." + spec.group), the group's
// DNS and dot checks, the scope's enum, the names' required fields and
// ValidateCustomResourceDefinitionNames, and the API approval of
// protected groups (spec.group and metadata.annotations). No other check
// reads an identity field, and these read no other field. So the problems
// of a CRD are those of its identity and those of the rest, and for
// identity twins the rest's are the same. Validate therefore judges an
// identity twin of a valid CRD by its skeleton (skeleton in validate.go:
// its identity around a minimal valid version) and carries the verdict;
// when the skeleton has a problem, the CRD is validated whole, on its
// own. apiextensions.k8s.io/v1beta1 CRDs, whose defaults differ, are
// never identity twins. TestIdentityTwinsAreValidatedAlike
// (twins_test.go) checks this against the apiserver's code, identity
// field by identity field.

// identityTwins reports whether the CRDs a and b are twins once their
// identities are set aside (see above): both apiextensions.k8s.io/v1.
func identityTwins(a, b map[string]any) bool {
	if a["apiVersion"] != crdV1 || b["apiVersion"] != crdV1 {
		return false
	}
	return equalExcept(a, b, map[string]func(x, y any) bool{
		"metadata": func(x, y any) bool { return true },
		"spec":     func(x, y any) bool { return spec(x, y, true) },
	})
}

// sameIdentity reports whether the CRDs a and b have the same identity.
func sameIdentity(a, b map[string]any) bool {
	if !equal(a["metadata"], b["metadata"]) {
		return false
	}
	sa, sb := mapOf(a["spec"]), mapOf(b["spec"])
	for k := range identityKeys {
		if !equal(sa[k], sb[k]) {
			return false
		}
	}
	return true
}

const crdV1 = "apiextensions.k8s.io/v1"

// identityKeys are the identity's keys in a CRD's spec.
var identityKeys = map[string]bool{"group": true, "names": true, "scope": true}

// spec compares two CRD specs: at most one version each, schemas as twins,
// and without the identity's keys when anyIdentity.
func spec(a, b any, anyIdentity bool) bool {
	va, _ := mapOf(a)["versions"].([]any)
	vb, _ := mapOf(b)["versions"].([]any)
	if len(va) > 1 || len(vb) > 1 {
		return false
	}
	special := map[string]func(x, y any) bool{
		"versions": func(x, y any) bool {
			return equalList(x, y, func(x, y any) bool {
				return equalExcept(x, y, map[string]func(x, y any) bool{"schema": validation})
			})
		},
		"validation": validation, // apiextensions.k8s.io/v1beta1
	}
	if anyIdentity {
		for k := range identityKeys {
			special[k] = func(x, y any) bool { return true }
		}
	}
	return equalExcept(a, b, special)
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

// twinHasher hashes CRDs so that twins and identity twins hash alike:
// it leaves out every description and, in apiextensions.k8s.io/v1 CRDs,
// the identity (coarser than twins, never finer: outputs of one hash are
// then compared with twins' rules). The hashes live for one process (a
// random seed): they group, they are never written.
type twinHasher struct {
	seed maphash.Seed
}

func newTwinHasher() *twinHasher { return &twinHasher{seed: maphash.MakeSeed()} }

// output hashes an output's Kubernetes version and CRDs, in order,
// reading views of them it does not keep (the outputs of a check of many
// templates would otherwise all be held at once).
func (h *twinHasher) output(o *Output) uint64 {
	sum := maphash.String(h.seed, o.KubeVersion)
	for _, obj := range o.ObjectsUnkept() {
		sum = mix(sum, h.crd(obj))
	}
	return sum
}

// crd hashes a CRD without descriptions and, in v1, without its identity.
func (h *twinHasher) crd(obj map[string]any) uint64 {
	v1 := obj["apiVersion"] == crdV1
	var sum uint64
	for k, v := range obj {
		switch {
		case k == "metadata" && v1:
		case k == "spec" && v1 && isMap(v):
			var s uint64
			for k2, v2 := range mapOf(v) {
				if !identityKeys[k2] {
					s += h.pair(k2, v2)
				}
			}
			sum += h.pair(k, nil) ^ mix(s, 1)
		default:
			sum += h.pair(k, v)
		}
	}
	return sum
}

// pair hashes one entry of a mapping (entries are summed: their order
// does not count).
func (h *twinHasher) pair(k string, v any) uint64 {
	return mix(maphash.String(h.seed, k), h.value(v))
}

func (h *twinHasher) value(v any) uint64 {
	switch t := v.(type) {
	case map[string]any:
		s := uint64(1 << 62) // not len(t): descriptions are not counted
		for k, x := range t {
			if k != "description" {
				s += h.pair(k, x)
			}
		}
		return mix(s, 2)
	case []any:
		s := uint64(len(t)) + 3<<60
		for _, x := range t {
			s = mix(s, h.value(x))
		}
		return s
	case string:
		return maphash.String(h.seed, t)
	case nil:
		return 4
	case bool:
		if t {
			return 5
		}
		return 6
	}
	// Numbers and anything else, by their text.
	return maphash.String(h.seed, fmt.Sprint(v)) ^ 7
}

// mix combines two hashes, order mattering (splitmix64's finalizer).
func mix(a, b uint64) uint64 {
	x := a*0x9e3779b97f4a7c15 + b
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func isMap(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}
