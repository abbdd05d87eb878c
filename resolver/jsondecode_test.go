package resolver

import (
	"encoding/json"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "-1.5e10": true, "1E+3": true, "2e-3": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "1e+": false, "+1": false, "0x1": false, "1_000": false,
	} {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v, want %v", s, got, want)
		}
		if want != json.Valid([]byte(s)) && s != "" {
			t.Errorf("test table disagrees with encoding/json on %q", s)
		}
	}
}

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
