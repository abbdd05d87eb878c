package jsonschema

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkExportKeys exports one CRD whose schema is a mapping of n
// properties: the shape that made the old reader (yaml.v3 into maps)
// quadratic. Rerun: go test ./internal/jsonschema -run X -bench ExportKeys -benchtime 1x
func BenchmarkExportKeys(b *testing.B) {
	for _, n := range []int{10000, 40000, 120000} {
		var sb strings.Builder
		sb.WriteString("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: w.example.com}\n" +
			"spec:\n  group: example.com\n  names: {kind: W, plural: w}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n" +
			"    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n")
		for i := range n {
			fmt.Fprintf(&sb, "          p%d: {type: string}\n", i)
		}
		src := []byte(sb.String())
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Export([]Input{{Name: "x", Content: src}}, LayoutKind); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
