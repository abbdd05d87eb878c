package builtins

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestBuildListIsTheControlPlanes: go.mod requires the k8s.io/kubernetes
// hack/control-plane.sh builds kube-apiserver from by default, and
// replaces each staging module with its v0.MINOR.PATCH twin as that
// script's helper module does, so the verdicts are those of the recorded
// apiserver and one build cache serves both builds. Bump both together.
func TestBuildListIsTheControlPlanes(t *testing.T) {
	script, err := os.ReadFile("../hack/control-plane.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`KUBE_VERSION="\$\{KUBE_VERSION:-(v1\.\d+\.\d+)\}"`).FindSubmatch(script)
	if m == nil {
		t.Fatal("hack/control-plane.sh: no default KUBE_VERSION")
	}
	kube := string(m[1])
	staging := "v0." + strings.TrimPrefix(kube, "v1.")
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^(?:require )?\s*k8s\.io/kubernetes ` + regexp.QuoteMeta(kube) + `$`).Match(gomod) {
		t.Errorf("go.mod does not require k8s.io/kubernetes %s (hack/control-plane.sh's KUBE_VERSION)", kube)
	}
	replaces := regexp.MustCompile(`(?m)^replace (k8s\.io/\S+) => (\S+) (\S+)$`).FindAllSubmatch(gomod, -1)
	if len(replaces) < 20 {
		t.Fatalf("go.mod has %d staging replaces, want one per staging module of k8s.io/kubernetes", len(replaces))
	}
	for _, r := range replaces {
		if string(r[1]) != string(r[2]) || string(r[3]) != staging {
			t.Errorf("replace %s => %s %s, want => %s %s", r[1], r[2], r[3], r[1], staging)
		}
	}
}
