package resolver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// TestAuthorCannotWriteTheDefaultKey: the key under which the compiler
// sets Kubernetes' defaults aside is its own, and every writer leaves it
// out. Written as a schema keyword in a template it is an unknown
// extension like any other, dropped with a warning: it neither vanishes
// silently nor makes a list-map key defaulted. Inside a value (a default,
// a JSON patch's value) it would vanish from the CRD: an error at it.
func TestAuthorCannotWriteTheDefaultKey(t *testing.T) {
	const key = "x-k8s-crd-resolver-default"
	c, err := resolver.New(resolver.Options{KubeVersion: "1.37"})
	require.NoError(t, err)
	listMap := func(item string) string {
		return "ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: " + item + "}"
	}

	_, err = c.Compile("thing.yaml", []byte(crdTemplate(listMap("{type: object, properties: {name: {type: string, "+key+": http}}}"))))
	require.ErrorContains(t, err, "list-map key name is neither required nor defaulted")

	res, err := c.Compile("thing.yaml", []byte(crdTemplate(
		"color: {type: string, "+key+": red}",
		listMap("{type: object, required: [name], properties: {name: {type: string}}}"))))
	require.NoError(t, err)
	out, err := res.YAML()
	require.NoError(t, err)
	require.NotContains(t, string(out), ": red")
	var warnings []string
	for _, w := range res.Warnings {
		warnings = append(warnings, w.String())
	}
	require.Contains(t, strings.Join(warnings, "\n"), "/properties/color/"+key+": dropped "+key)

	_, err = c.Compile("thing.yaml", []byte(crdTemplate(
		"config: {type: object, x-kubernetes-preserve-unknown-fields: true, default: {a: 1, "+key+": 2}}")))
	require.ErrorContains(t, err, "thing.yaml:16:94: /spec/versions/0/schema/openAPIV3Schema/properties/config/default/"+key+": bad input: "+key+" is the compiler's own key")

	_, err = resolver.ParsePatch("thing.patch.yaml", []byte("- {op: add, path: /metadata/labels, value: {a: b}}\n- {op: add, path: /spec/x, value: [{"+key+": 1}]}\n"))
	require.ErrorContains(t, err, "thing.patch.yaml:2:")
	require.ErrorContains(t, err, key+" is the compiler's own key")
}
