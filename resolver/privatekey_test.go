package resolver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// TestAuthorCannotWriteTheDefaultKey: the key under which the compiler
// sets Kubernetes' defaults aside is its own. Written in a template it is
// an unknown extension like any other, dropped with a warning: it neither
// vanishes silently nor makes a list-map key defaulted.
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
}
