package jsonschema

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestNamesAsTheApiserver: the kind, version and group checks agree with
// the apiserver's own (k8s.io/apimachinery's validation, which
// ValidateCustomResourceDefinition calls) on hostile and careless names.
func TestNamesAsTheApiserver(t *testing.T) {
	names := []string{"", "a", "v1", "v1beta1", "V1", "1v", "-a", "a-", "a-b", "a.b", "a/b", "..", "../x", "/x",
		"a_b", "a\x1bb", "a\nb", "é", strings.Repeat("a", 63), strings.Repeat("a", 64), "example.com", "x.example.com",
		"Example.com", "a..b", ".a", "a.", "ex-ample.c-om", strings.Repeat("a.", 126) + "b", strings.Repeat("a.", 127) + "b"}
	for _, n := range names {
		if got, want := dns1035Label(n), len(validation.IsDNS1035Label(n)) == 0; got != want {
			t.Errorf("dns1035Label(%q) = %v, the apiserver's IsDNS1035Label says %v", n, got, want)
		}
		want := len(validation.IsDNS1123Subdomain(n)) == 0 && len(strings.Split(n, ".")) >= 2
		if got := checkGroup(n) == nil; got != want {
			t.Errorf("checkGroup(%q) accepts: %v, the apiserver: %v", n, got, want)
		}
	}
}
