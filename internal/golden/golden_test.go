package golden

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestEveryTestBinaryAcceptsUpdate: `go test ./... -update` passes -update
// to every test binary, and one that does not define it fails. Every
// package with tests must import this package (an update_flag_test.go
// with a blank import is enough).
func TestEveryTestBinaryAcceptsUpdate(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		"{{.ImportPath}}|{{len .TestGoFiles}}|{{len .XTestGoFiles}}|{{join .TestImports \" \"}} {{join .XTestImports \" \"}}",
		"github.com/k8s-crd-resolver/k8s-crd-resolver/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const self = "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 4)
		if len(parts) != 4 || parts[0] == self || (parts[1] == "0" && parts[2] == "0") {
			continue
		}
		checked++
		if !slices.Contains(strings.Fields(parts[3]), self) {
			t.Errorf("%s has tests but does not import %s: `go test ./... -update` would fail there; add an update_flag_test.go with a blank import", parts[0], self)
		}
	}
	if checked == 0 {
		t.Fatal("no test packages found")
	}
}
