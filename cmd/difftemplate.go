package cmd

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// notATemplate refuses a file diff is given that is a CRD template, not a
// compiled CRD: its schemas hold $refs, which a comparison would take for
// schemas that accept anything, calling every property removed. The
// message says where the first $ref is and what to run instead.
func notATemplate(name string, data []byte) error {
	docs, err := resolver.DecodeDocuments(name, data, 0)
	if err != nil {
		return nil // schemadiff.Parse reports it
	}
	for _, d := range docs {
		if ptr, ok := firstRef(d.Value, ""); ok {
			return fmt.Errorf("%s: %s is a CRD template (a $ref at %s), not a compiled CRD: diff compares compiled CRDs; compile it first (k8s-crd-resolver resolve %s --output-file compiled.yaml), or run diff with no arguments to compare the project's outputs with a fresh build",
				d.Position(ptr), name, ptr, name)
		}
	}
	return nil
}

// firstRef returns the JSON pointer of the first "$ref" key in v, keys
// taken in sorted order, walking each value once.
func firstRef(v any, ptr string) (string, bool) {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["$ref"]; ok {
			return ptr + "/$ref", true
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p, ok := firstRef(t[k], ptr+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k)); ok {
				return p, true
			}
		}
	case []any:
		for i, x := range t {
			if p, ok := firstRef(x, ptr+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	}
	return "", false
}
