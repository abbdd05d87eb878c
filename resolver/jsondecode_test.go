package resolver

import (
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// TestAddDescriptions: the descriptions a bundle stores apart go back
// where their pointers say; data that is not one JSON object of texts is
// an error.
func TestAddDescriptions(t *testing.T) {
	b, err := schemas.Load(schemas.Latest())
	if err != nil {
		t.Fatal(err)
	}
	const name = "io.k8s.api.core.v1.PodSpec"
	raw, _ := b.Definition(name)
	descs, err := b.Descriptions(name)
	if err != nil || len(descs) == 0 {
		t.Fatalf("no descriptions: %v", err)
	}
	v, _ := bundlefmt.Decode(raw)
	def := v.(map[string]any)
	if err := addDescriptions(def, descs); err != nil {
		t.Fatal(err)
	}
	if _, ok := def["description"].(string); !ok {
		t.Fatal("the root has no description")
	}
	if err := addDescriptions(map[string]any{}, []byte(`{"":"x"} {}`)); err == nil {
		t.Error("data after the object was taken")
	}
	if err := addDescriptions(map[string]any{}, []byte(`["x"]`)); err == nil {
		t.Error("a list was taken for the object")
	}
}
