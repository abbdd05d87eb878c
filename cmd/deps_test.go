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
// install ./...` compiles) requires controller-runtime, or when any of its
// packages or tests imports it or client-go directly: the operator that
// needs them is its own module (operator/). client-go stays an indirect
// requirement: the apiserver's CRD validation, linked by the validation
// companion only, imports the webhook client to check conversion webhook
// configs. Cutting that link would mean carrying a modified copy of
// upstream code, which this project does not do. Nor does the module
// require or import k8s.io/kubernetes: the apiserver's hand-written
// validation is linked by the builtins module (builtins/) alone.
func TestModuleStaysLean(t *testing.T) {
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(gomod)) {
		f := strings.Fields(line)
		if len(f) > 1 && f[0] == "require" {
			f = f[1:]
		}
		switch {
		case len(f) > 0 && f[0] == "sigs.k8s.io/controller-runtime":
			t.Errorf("go.mod requires controller-runtime: %s; code that needs it belongs in the operator module", strings.TrimSpace(line))
		case len(f) > 0 && f[0] == "k8s.io/kubernetes":
			t.Errorf("go.mod requires k8s.io/kubernetes: %s; the apiserver's hand-written validation is linked in its own module, builtins/ (k8s-crd-resolver-builtins)", strings.TrimSpace(line))
		case len(f) > 0 && f[0] == "k8s.io/client-go" && !strings.Contains(line, "// indirect"):
			t.Errorf("go.mod requires client-go directly: %s; code that needs it belongs in the operator module", strings.TrimSpace(line))
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
		if d == "sigs.k8s.io/controller-runtime" || strings.HasPrefix(d, "sigs.k8s.io/controller-runtime/") {
			t.Errorf("a package or test of this module imports %s; move it into the operator module", d)
		}
		if strings.HasPrefix(d, "k8s.io/kubernetes/") {
			t.Errorf("a package or test of this module imports %s; it belongs in the builtins module (builtins/), run as k8s-crd-resolver-builtins", d)
		}
	}
	// Our own packages never import client-go themselves.
	out, err = exec.CommandContext(t.Context(), "go", "list", "-f", `{{.ImportPath}}: {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list -f: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(line, ":")
		for _, imp := range strings.Fields(imports) {
			if imp == "k8s.io/client-go" || strings.HasPrefix(imp, "k8s.io/client-go/") {
				t.Errorf("%s imports %s; code that needs client-go belongs in the operator module", pkg, imp)
			}
		}
	}
}

// TestDependenciesPointOneWay fails when a package the compiler is built
// from imports, directly or not, the compiler or anything above it: cmd →
// project → resolver → internal/… and schemas (docs/architecture.md).
func TestDependenciesPointOneWay(t *testing.T) {
	const mod = "github.com/k8s-crd-resolver/k8s-crd-resolver/"
	below := []string{"internal/crdfields", "internal/emit", "internal/sourcetext", "internal/suggest", "internal/bundlefmt", "internal/fileio", "schemas"}
	above := []string{"resolver", "project", "cmd"}
	for _, pkg := range below {
		out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "../"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, d := range strings.Fields(string(out)) {
			for _, a := range above {
				if d == mod+a || strings.HasPrefix(d, mod+a+"/") {
					t.Errorf("%s imports %s; dependencies point one way (cmd → project → resolver → internal/…)", pkg, d)
				}
			}
		}
	}
	// resolver itself never imports what is above it.
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "../resolver").Output()
	if err != nil {
		t.Fatalf("go list -deps resolver: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if d == mod+"project" || d == mod+"cmd" || strings.HasPrefix(d, mod+"cmd/") {
			t.Errorf("resolver imports %s", d)
		}
	}
}
