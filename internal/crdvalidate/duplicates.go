package crdvalidate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// A built-in kind's list-map keys (x-kubernetes-list-type: map) and
// list-sets are markers for server-side apply: a create of a built-in
// object is not held to them, only to its kind's hand-written validation,
// which refuses the duplicates of most such lists (container, volume and
// resource claim names, volume mount paths, Service ports, webhook names,
// scheduling gates...) and accepts those listed here. The schema judge
// (judged as a custom resource, whose duplicates the apiserver refuses)
// warns of these, and keeps every other duplicate an error.

// listField names a list of a built-in kind: the definition that holds it
// and its property.
type listField struct{ def, property string }

// createAcceptsDuplicates are the lists whose duplicate keys or items the
// apiserver's create accepts (its hand-written validation does not refuse
// them; 1.37's warns of duplicate env names and container ports).
// Each has a case in TestBuiltinDuplicates, which the 1.37 hand-written
// validation (k8s-crd-resolver-builtins) accepts when it is installed.
// discovery's v1beta1 and v1alpha1 Endpoint are validated as the internal
// type v1's is, by the same code.
var createAcceptsDuplicates = map[listField]bool{
	{"io.k8s.api.core.v1.Container", "env"}:                         true,
	{"io.k8s.api.core.v1.Container", "ports"}:                       true,
	{"io.k8s.api.core.v1.EphemeralContainer", "env"}:                true,
	{"io.k8s.api.core.v1.EphemeralContainer", "ports"}:              true,
	{"io.k8s.api.core.v1.PodSpec", "hostAliases"}:                   true,
	{"io.k8s.api.core.v1.PodSpec", "imagePullSecrets"}:              true,
	{"io.k8s.api.discovery.v1.Endpoint", "addresses"}:               true,
	{"io.k8s.api.discovery.v1beta1.Endpoint", "addresses"}:          true,
	{"io.k8s.api.discovery.v1alpha1.Endpoint", "addresses"}:         true,
	{"io.k8s.api.storage.v1.CSIDriverSpec", "volumeLifecycleModes"}: true,
}

// builtinKind is the definition a built-in object is judged by: its name
// in the bundle of minor.
type builtinKind struct{ minor, def string }

// acceptsDuplicate reports whether a create of the kind accepts the
// duplicate the list-type check found at dup.Field (the list's item):
// whether the list it is in is one of createAcceptsDuplicates.
func (k builtinKind) acceptsDuplicate(dup *field.Error) bool {
	segs := project.FieldSegments(dup.Field)
	if len(segs) < 2 {
		return false
	}
	b, err := schemas.Load(k.minor)
	if err != nil {
		return false
	}
	owner, ok := definitionAt(b, k.def, segs[:len(segs)-2])
	return ok && createAcceptsDuplicates[listField{owner, segs[len(segs)-2]}]
}

// definitionAt walks the definitions of b from def along the segments of
// a field path (property names, list indices, map keys) and returns the
// definition the path ends at: false when it leaves the definitions or
// ends inside one (an inline object, a list's item that is not a $ref).
// It reads one definition per $ref on the path.
func definitionAt(b *schemas.Bundle, def string, segs []string) (string, bool) {
	node, err := definition(b, def)
	if err != nil {
		return "", false
	}
	for _, seg := range segs {
		switch {
		case node["items"] != nil:
			node, _ = node["items"].(map[string]any)
		case node["properties"] != nil:
			props, _ := node["properties"].(map[string]any)
			node, _ = props[seg].(map[string]any)
		default:
			node, _ = node["additionalProperties"].(map[string]any)
		}
		if node == nil {
			return "", false
		}
		def = ""
		if ref, _ := node["$ref"].(string); ref != "" {
			def = strings.TrimPrefix(ref, "#/definitions/")
			if node, err = definition(b, def); err != nil {
				return "", false
			}
		}
	}
	return def, def != ""
}

// definition decodes the definition name of b.
func definition(b *schemas.Bundle, name string) (map[string]any, error) {
	raw, err := b.Definition(name)
	if err != nil {
		return nil, err
	}
	var node map[string]any
	return node, json.Unmarshal(raw, &node)
}

// duplicateMessage is the warning of a duplicate a create accepts: what
// is duplicated (the list-map's keys, or the set's item) and who refuses it.
func duplicateMessage(dup *field.Error) string {
	what := "item " + duplicateValue(dup.BadValue)
	if keys, ok := dup.BadValue.(map[string]any); ok {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			parts = append(parts, k+" "+duplicateValue(keys[k]))
		}
		what = strings.Join(parts, " and ")
		if len(parts) == 0 {
			what = "item without its key"
		}
	}
	return fmt.Sprintf("duplicate %s: create accepts it (the kind's validation does not refuse it), server-side apply (kubectl apply --server-side) refuses it", what)
}

// duplicateValue spells a key or item: a string quoted, anything else as
// JSON.
func duplicateValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(raw)
}
