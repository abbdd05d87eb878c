package jsonschema

import (
	"strconv"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/lineartest"
)

// TestLinearWork: export reads its CRDs with allocations growing at most
// linearly in each dimension of the input (keys per mapping, mappings,
// documents, nesting, line length), as check, diff and validate do: the
// same reader (docread.DecodeDocuments).
func TestLinearWork(t *testing.T) {
	if testing.Short() {
		t.Skip("measures inputs up to a few MB")
	}
	lineartest.Check(t, lineartest.CRDShapes(), lineartest.Allocs(func(src []byte) {
		if _, err := Export([]Input{{Name: "x", Content: src}}, LayoutKind); err != nil {
			t.Fatal(err)
		}
	}))
}

// TestReadsAsValidateDoes: export refuses what the shared reader refuses,
// with its words and place (file:line:col): broken YAML, a duplicate key,
// an alias bomb, binary input.
func TestReadsAsValidateDoes(t *testing.T) {
	// Each level refers nine times to the one before: 9^9 nodes.
	bomb := "l0: &l0 [x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 10; i++ {
		prev := "*l" + strconv.Itoa(i-1)
		bomb += "l" + strconv.Itoa(i) + ": &l" + strconv.Itoa(i) + " [" + strings.Repeat(prev+", ", 8) + prev + "]\n"
	}
	for name, src := range map[string]string{
		"broken":        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {group: [\n",
		"duplicate key": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nkind: Other\n",
		"alias bomb":    bomb,
		"binary":        "apiVersion: v1\x00\x01\x02\n",
	} {
		_, want := docread.DecodeDocuments("crd.yaml", []byte(src), 0)
		if want == nil {
			t.Fatalf("%s: the shared reader accepts it", name)
		}
		_, err := Export([]Input{{Name: "crd.yaml", Content: []byte(src)}}, LayoutKind)
		if err == nil || !strings.Contains(err.Error(), want.Error()) {
			t.Errorf("%s: export says %v, the shared reader %v", name, err, want)
		}
	}
}
