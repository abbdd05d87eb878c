package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crdYAML wraps a schema (YAML, indented for openAPIV3Schema) into a CRD.
func crdYAML(schema string) []byte {
	return []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: xs.example.com}
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
` + schema)
}

func TestCompare(t *testing.T) {
	ref := crdYAML(`        type: object
        properties:
          spec:
            type: object
            properties:
              items:
                type: array
                maxItems: 4
                x-kubernetes-validations: [{rule: "self == oldSelf", message: immutable}]
                items: {type: string, minLength: 1}
              empty: {type: object}
              gone: {type: string}
`)
	tests := []struct {
		name, ours string
		ok         bool
		want       []string
	}{{
		name: "same except the transition rule, ours smaller",
		ours: `        type: object
        properties:
          spec:
            type: object
            properties:
              items: {type: array, maxItems: 4, items: {type: string, minLength: 1}}
              empty: {type: object}
              gone: {type: string}
`,
		ok:   true,
		want: []string{"deliberate exceptions: 1", "targets met"},
	}, {
		name: "a path, a constraint and pruning missing",
		ours: `        type: object
        properties:
          spec:
            type: object
            properties:
              items: {type: array, maxItems: 5, items: {type: string}}
              empty: {type: object, x-kubernetes-preserve-unknown-fields: true}
              extra: {type: string, pattern: "^a"}
`,
		want: []string{
			"schema paths only in the reference: 1", ".spec: 1 schema(s) below (gone)",
			"schema paths only in ours: 1", ".spec: 1 schema(s) below (extra)",
			".spec.items maxItems: ours 5, reference 4",
			".spec.items[*] minLength: ours -, reference 1",
			".spec.empty x-kubernetes-preserve-unknown-fields: ours true, reference -",
			"only in the reference: 1; only in ours: 0; different: 1; deliberate exceptions: 1",
			"targets MISSED",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parse("ours.yaml", crdYAML(tt.ours))
			require.NoError(t, err)
			f, err := parse("ref.yaml", ref)
			require.NoError(t, err)
			r := compare(o, f)
			var out bytes.Buffer
			r.write(&out)
			assert.Equal(t, tt.ok, r.ok(), out.String())
			for _, w := range tt.want {
				assert.Contains(t, out.String(), w)
			}
		})
	}
}

func TestCompareSizeTarget(t *testing.T) {
	schema := "        type: object\n"
	small, err := parse("a", crdYAML(schema))
	require.NoError(t, err)
	big, err := parse("b", crdYAML("        type: object\n        description: "+strings.Repeat("x", 100)+"\n"))
	require.NoError(t, err)
	assert.True(t, compare(small, big).ok())
	assert.False(t, compare(big, small).ok(), "ours larger than the reference misses the size target")
}

func TestParseSkipsLeadingSeparator(t *testing.T) {
	c, err := parse("cg.yaml", append([]byte("---\n"), crdYAML("        type: object\n")...))
	require.NoError(t, err)
	assert.Contains(t, c.nodes, "")
}

func TestCompareSizeIsLikeForLike(t *testing.T) {
	ref, err := parse("ref", crdYAML("        type: object\n        properties:\n          a: {type: string}\n"))
	require.NoError(t, err)
	ours, err := parse("ours", crdYAML("        type: object\n        properties:\n          a: {type: string}\n          kept: {type: object, properties: {labels: {type: object}}}\n"))
	require.NoError(t, err)
	r := compare(ours, ref)
	s := r.sizes[0]
	assert.Greater(t, s.oursN, s.refN, "whole: ours holds more")
	assert.Equal(t, s.refShared, s.oursShared, "like for like: the paths only ours has do not count")
	assert.True(t, r.ok())

	bigger, err := parse("ours", crdYAML("        type: object\n        properties:\n          a: {type: string, description: "+strings.Repeat("x", 50)+"}\n"))
	require.NoError(t, err)
	assert.False(t, compare(bigger, ref).ok(), "more bytes on a shared path miss the target")
}
