package cmd

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMainBinaryStaysLean fails when the main binary links a heavy
// dependency. Linking k8s.io/apiextensions-apiserver's validation costs
// every process ~25 ms and 20 MiB before main runs, and pre-commit scripts
// call us once per file: such code belongs in a companion binary
// (cmd/k8s-crd-resolver-<name>, run through newPluginCmd).
func TestMainBinaryStaysLean(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "..").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps printed only %d packages; is the test running in cmd/?", len(deps))
	}
	forbidden := []string{
		"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation",
		"sigs.k8s.io/controller-runtime",
		"k8s.io/client-go",
		"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle",
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("the main binary imports %s; move the command that needs it into a companion binary", d)
			}
		}
	}
}
