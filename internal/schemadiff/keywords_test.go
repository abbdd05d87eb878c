package schemadiff

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestEveryKeywordIsHandled: every JSON field of JSONSchemaProps is compared by a rule,
// ignored with a reason, or one of the few compared as values (a change is then an
// UnhandledChange): a keyword a Kubernetes upgrade adds fails this test until it is placed.
func TestEveryKeywordIsHandled(t *testing.T) {
	asValues := []string{"allOf", "oneOf", "anyOf", "not", "$ref", "definitions", "patternProperties", "dependencies", "additionalItems"}
	typ := reflect.TypeFor[apiextensionsv1.JSONSchemaProps]()
	var fields []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		require.NotEmpty(t, name, f.Name)
		fields = append(fields, name)
		n := 0
		for _, in := range [][]string{comparedKeywords, asValues} {
			if slices.Contains(in, name) {
				n++
			}
		}
		if ignoredKeywords[name] != "" {
			n++
		}
		require.Equal(t, 1, n, "keyword %s: in %d of comparedKeywords, ignoredKeywords and the value-compared list; put it in exactly one", name, n)
	}
	for _, k := range append(slices.Clone(comparedKeywords), asValues...) {
		require.Contains(t, fields, k, "not a JSONSchemaProps keyword")
	}
	for k := range ignoredKeywords {
		require.Contains(t, fields, k, "not a JSONSchemaProps keyword")
	}
}

// TestUnhandledKeywords: a change to each value-compared keyword is an UnhandledChange,
// breaking; a change to an ignored one is nothing.
func TestUnhandledKeywords(t *testing.T) {
	schema := func(kv string) []byte { return []byte(crdOnly("{type: object, " + kv + "}")) }
	for _, k := range []string{"allOf", "oneOf", "anyOf", "not"} {
		o, err := Parse("o", schema(k+": [{maxLength: 1}]"), 0)
		require.NoError(t, err)
		n, err := Parse("n", schema(k+": [{maxLength: 2}]"), 0)
		require.NoError(t, err)
		rep := Compare(o, n)
		require.Len(t, rep.Changes, 1, k)
		require.Equal(t, UnhandledChange, rep.Changes[0].Kind)
		require.Equal(t, k, rep.Changes[0].Keyword)
		require.True(t, rep.Changes[0].Breaking)
	}
	for k := range ignoredKeywords {
		o, err := Parse("o", schema(k+": a"), 0)
		require.NoError(t, err)
		n, err := Parse("n", schema(k+": b"), 0)
		require.NoError(t, err)
		require.True(t, Compare(o, n).Empty(), k)
	}
}

func crdOnly(schema string) string {
	return "kind: CustomResourceDefinition\nmetadata: {name: w.example.com}\nspec: {group: example.com, names: {kind: W, plural: w}, scope: Namespaced, versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: " + schema + "}}]}\n"
}
