package version

import (
	"runtime"
	"strings"
	"testing"

	_ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

func TestString(t *testing.T) {
	v := schemas.Versions()
	if len(v) < 2 {
		t.Fatalf("only %d embedded versions", len(v))
	}
	got := String("k8s-crd-resolver")
	want := []string{
		"k8s-crd-resolver " + Module() + "\n",
		"Kubernetes: " + v[0] + " to " + v[len(v)-1] + " (",
		"Go: " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("String() = %q, missing %q", got, w)
		}
	}
	version = "v9.8.7"
	defer func() { version = "" }()
	if !strings.HasPrefix(String("x"), "x v9.8.7\n") {
		t.Errorf("the ldflags version is not used: %q", String("x"))
	}
}
