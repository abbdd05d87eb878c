// Package sharedgen generates CRD templates that use the same Kubernetes
// types many times, each use with something of its own beside the $ref:
// the input of the tests that hold issue 48 (a resolved $ref target is
// shared by its uses, and what one use merges must reach no other), in
// resolver/ (one Compiler, either order, separate processes) and cmd/ (a
// project built whole against each template built alone). Test input only.
package sharedgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// types are the definitions the generated templates use many times
// each, with properties a use may require.
var types = []struct{ name, props string }{
	{"io.k8s.apimachinery.pkg.apis.meta.v1.Condition", "type status observedGeneration reason message"},
	{"io.k8s.api.core.v1.ContainerPort", "containerPort name protocol hostPort"},
	{"io.k8s.api.core.v1.EnvVar", "name value valueFrom"},
	{"io.k8s.api.core.v1.ResourceRequirements", "limits requests"},
	{"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector", "matchLabels matchExpressions"},
	{"io.k8s.api.core.v1.Toleration", "key operator value effect"},
	{"io.k8s.api.core.v1.ServicePort", "name port targetPort protocol"},
	{"io.k8s.api.core.v1.LocalObjectReference", "name"},
	{"io.k8s.api.core.v1.Container", "name image ports env resources"},
}

// Case is one generated template: its file name, its text, and the JSON
// patch (YAML) it compiles with ("" for none).
type Case struct {
	Name, Src, Patch string
}

// Templates generates n templates from seed (the same ones for the same
// seed, on any machine): each uses a few of
// types several times, most uses with something of their own beside
// the $ref (an allOf with required keys and properties, required and
// properties written beside it, a description, items of a list), every
// third one with a JSON patch that adds to a use.
func Templates(seed uint64, n int) []Case {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]Case, n)
	for i := range out {
		var b strings.Builder
		fmt.Fprintf(&b, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: t%[1]ds.example.com}
spec:
  group: example.com
  names: {kind: T%[1]d, plural: t%[1]ds}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
`, i)
		uses := 2 + rng.IntN(6)
		patched := i%3 == 0
		for u := range uses {
			t := types[rng.IntN(len(types))]
			props := strings.Fields(t.props)
			pick := func() string {
				if rng.IntN(4) == 0 {
					return fmt.Sprintf("own%d", rng.IntN(3))
				}
				return props[rng.IntN(len(props))]
			}
			shape := rng.IntN(6)
			if patched && u == 0 {
				shape = 1 // an object use the patch adds to
			}
			fmt.Fprintf(&b, "          p%d:\n", u)
			const in = "            "
			switch shape {
			case 0:
				fmt.Fprintf(&b, "%s$ref: %s\n", in, t.name)
			case 1, 2:
				fmt.Fprintf(&b, "%s$ref: %s\n%sallOf:\n", in, t.name, in)
				for range 1 + rng.IntN(2) {
					own := pick()
					fmt.Fprintf(&b, "%s- required: [%s]\n", in, own)
					if strings.HasPrefix(own, "own") {
						fmt.Fprintf(&b, "%s  properties:\n%s    %s: {type: string, maxLength: %d}\n", in, in, own, 1+rng.IntN(60))
					}
				}
				if shape == 2 {
					fmt.Fprintf(&b, "%sdescription: use %d of %s\n", in, u, t.name)
				}
			case 3:
				own := pick()
				fmt.Fprintf(&b, "%stype: array\n%sitems:\n%s  $ref: %s\n%s  required: [%s]\n", in, in, in, t.name, in, own)
				if strings.HasPrefix(own, "own") {
					fmt.Fprintf(&b, "%s  properties:\n%s    %s: {type: integer}\n", in, in, own)
				}
			case 4:
				fmt.Fprintf(&b, "%s$ref: %s\n%srequired: [%s, extra%d]\n%sproperties:\n%s  extra%d: {type: boolean}\n", in, t.name, in, pick(), u, in, in, u)
			case 5:
				fmt.Fprintf(&b, "%sallOf:\n%s- $ref: %s\n%s- required: [%s]\n", in, in, t.name, in, pick())
			}
		}
		c := Case{Name: fmt.Sprintf("t%03d.yaml", i), Src: b.String()}
		if patched {
			c.Patch = fmt.Sprintf(`- op: add
  path: /spec/versions/0/schema/openAPIV3Schema/properties/p0/properties/fromPatch%d
  value: {type: string}
- op: add
  path: /spec/versions/0/schema/openAPIV3Schema/properties/p0/required/-
  value: fromPatch%d
`, i, i)
		}
		out[i] = c
	}
	return out
}
