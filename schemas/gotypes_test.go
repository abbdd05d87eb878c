package schemas

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

// TestGoTypes lists, for every embedded bundle, each property-less object definition with its
// classification and the Go declaration it was read from, and the value-constraint keywords
// the Go types' markers brought, as testdata/gotypes.golden. Bundle.Validate (TestEmbedded)
// checks that every property-less object is classified and that its definition says so; this
// file is what a reviewer reads when a bundle is regenerated.
func TestGoTypes(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Property-less object definitions of every embedded bundle, as their Go declarations\n")
	b.WriteString("# classify them (empty struct: type object, pruned; arbitrary: any JSON kept), and the\n")
	b.WriteString("# value constraints imported from validation markers. Regenerate: go test ./schemas -update\n")
	for _, v := range Versions() {
		bundle, err := Load(v)
		if err != nil {
			t.Fatal(err)
		}
		src := bundle.Source()
		fmt.Fprintf(&b, "\n## %s (%s)\n", v, src.KubernetesVersion)
		for _, m := range slices.Sorted(maps.Keys(src.GoModules)) {
			fmt.Fprintf(&b, "module %s %s\n", m, src.GoModules[m])
		}
		kinds := map[string]int{}
		for _, name := range slices.Sorted(maps.Keys(src.Objects)) {
			o := src.Objects[name]
			kinds[o.Kind]++
			fmt.Fprintf(&b, "%-9s %s\n          %s (%s)\n", o.Kind, name, o.Decl, o.Why)
		}
		fmt.Fprintf(&b, "objects: %d empty, %d arbitrary\n", kinds[ObjectEmpty], kinds[ObjectArbitrary])
		var cs []string
		for _, k := range slices.Sorted(maps.Keys(src.Constraints)) {
			cs = append(cs, fmt.Sprintf("%s %d", k, src.Constraints[k]))
		}
		if len(cs) == 0 {
			cs = []string{"none"}
		}
		fmt.Fprintf(&b, "constraints: %s\n", strings.Join(cs, ", "))
		if kinds[ObjectEmpty]+kinds[ObjectArbitrary] != len(src.Objects) {
			t.Errorf("%s: objects of unknown kind: %v", v, src.Objects)
		}
		for _, name := range []string{"io.k8s.apimachinery.pkg.runtime.RawExtension", "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"} {
			if o, ok := src.Objects[name]; bundle.Has(name) && (!ok || o.Kind != ObjectArbitrary) {
				t.Errorf("%s: %s is %+v, want arbitrary", v, name, o)
			}
		}
	}
	golden.Check(t, "testdata/gotypes.golden", []byte(b.String()))
}
