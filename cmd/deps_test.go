package cmd

import (
	"os"
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

// TestModuleStaysLean fails when this module (what pre-commit's `go
// install ./...` compiles) requires controller-runtime or client-go again,
// or when any of its packages or tests imports them: the operator that
// needs them is its own module (operator/). It also keeps out of the
// validation companion what validation never runs: the apiserver's webhook
// client and the gRPC and OpenTelemetry SDK it links (see
// internal/oracle/apiextvalidation).
func TestModuleStaysLean(t *testing.T) {
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	heavy := []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go"}
	for line := range strings.Lines(string(gomod)) {
		for _, h := range heavy {
			if f := strings.Fields(line); len(f) > 0 && (f[0] == h || len(f) > 1 && f[0] == "require" && f[1] == h) {
				t.Errorf("go.mod requires %s: %s; code that needs it belongs in the operator module", h, strings.TrimSpace(line))
			}
		}
	}
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-test", "../...").Output()
	if err != nil {
		t.Fatalf("go list -deps -test: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list -deps -test ../... printed only %d packages; is the test running in cmd/?", len(deps))
	}
	for _, d := range deps {
		for _, h := range heavy {
			if d == h || strings.HasPrefix(d, h+"/") {
				t.Errorf("a package or test of this module imports %s; move it into the operator module", d)
			}
		}
	}
	out, err = exec.CommandContext(t.Context(), "go", "list", "-deps", "./k8s-crd-resolver-validate").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		for _, f := range []string{"k8s.io/apiserver/pkg/util/webhook", "k8s.io/apiserver/pkg/server", "google.golang.org/grpc", "go.opentelemetry.io/otel/sdk"} {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("the validation companion imports %s, which CRD validation never runs", d)
			}
		}
	}
}
