package resolver

import (
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdfields"
)

// TestKeptByMinor: what validate judges custom resources with for a minor
// holds nothing that minor drops or refuses (crdfields.Check finds nothing
// in it), and the CRD it was made from is left as it was.
func TestKeptByMinor(t *testing.T) {
	crd := func() map[string]any {
		schema := map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{
			"type": "object", "x-kubernetes-map-type": "atomic",
			"x-kubernetes-validations": []any{map[string]any{"rule": "self.size > 0", "optionalOldSelf": true, "reason": "FieldValueInvalid"}},
		}}}
		return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "widgets.example.com"},
			"spec": map[string]any{"group": "example.com", "names": map[string]any{"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
				"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "deprecated": true,
					"selectableFields": []any{map[string]any{"jsonPath": ".spec.color"}}, "schema": map[string]any{"openAPIV3Schema": schema}}}}}
	}
	for _, minor := range []string{"1.16", "1.18", "1.22", "1.24", "1.27", "1.29", "1.30", "1.31"} {
		obj := crd()
		before, err := crdfields.Check(obj, minor)
		if err != nil {
			t.Fatal(err)
		}
		kept, dropped, err := KeptByMinor(obj, minor)
		if err != nil {
			t.Fatal(err)
		}
		if len(dropped) != len(before) {
			t.Errorf("%s: KeptByMinor dropped %+v, Check found %+v", minor, dropped, before)
		}
		if again, _ := crdfields.Check(kept, minor); len(again) != 0 {
			t.Errorf("%s: KeptByMinor kept %+v", minor, again)
		}
		if again, _ := crdfields.Check(obj, minor); len(again) != len(before) {
			t.Errorf("%s: KeptByMinor modified its argument: %+v, was %+v", minor, again, before)
		}
	}
	if _, dropped, _ := KeptByMinor(crd(), "1.31"); len(dropped) != 0 {
		t.Errorf("1.31 keeps every field of the CRD, KeptByMinor dropped %+v", dropped)
	}
	// 1.16 has none of deprecated, selectableFields, x-kubernetes-map-type
	// and x-kubernetes-validations (whose rules' fields go with it).
	if _, dropped, _ := KeptByMinor(crd(), "1.16"); len(dropped) != 4 {
		t.Errorf("1.16: KeptByMinor dropped %+v, want the four fields it lacks", dropped)
	}
}
