package cmd

import (
	"fmt"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// notATemplate refuses a file diff is given that is a CRD template, not a
// compiled CRD: its schemas hold $refs, which a comparison would take for
// schemas that accept anything, calling every property removed. The
// message says where the first $ref is and what to run instead.
func notATemplate(name string, data []byte) error {
	docs, err := docread.DecodeDocuments(name, data, 0)
	if err != nil {
		return nil // schemadiff.Parse reports it
	}
	for _, d := range docs {
		if ptr, ok := resolver.FirstRef(d.Value); ok {
			return fmt.Errorf("%s: %s is a CRD template (a $ref at %s), not a compiled CRD: diff compares compiled CRDs; compile it first (k8s-crd-resolver resolve %s --output-file compiled.yaml), or run diff with no arguments to compare the project's outputs with a fresh build",
				d.Position(ptr), name, ptr, name)
		}
	}
	return nil
}
