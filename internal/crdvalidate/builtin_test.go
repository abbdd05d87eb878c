package crdvalidate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// builtinWant names, per case of testdata/builtin, fragments its problems
// must hold (none: the objects are valid): the point of the case, checked
// even when want.txt is rewritten.
var builtinWant = map[string][]string{
	"valid":                    nil,
	"misspelled-key":           {"spec.replica: unknown field", "livenessProbe.httpGet.prot: unknown field", "httpGet.port: Required value"},
	"configmap-name":           {"metadata.name: Invalid value: \"App_Config\"", "metadata.labels: Invalid value: \"-backend\""},
	"protocol-22":              {"spec.ports[0].protocol: Invalid value: \"integer\""},
	"cpu-true":                 {"requests.cpu", "limits.memory"},
	"removed-apiversion":       {"removed in Kubernetes 1.16 (last served by 1.15)", "removed in Kubernetes 1.25 (last served by 1.24)", "removed in Kubernetes 1.25"},
	"unknown-kind":             {"did you mean \"ConfigMap\"", "did you mean Deployment?", "apps/v2"},
	"k8s-io-group-without-crd": {"no CRD defines sparkoperator.k8s.io/v1beta2 SparkApplication", "no CRD defines cluster.x-k8s.io/v1beta1 Cluster"},
	"served-by-old-minor":      nil,
	"deprecated-apiversion":    nil,
}

// judgeCase validates the case's input.yaml for its k8s-version (the
// newest embedded when it has none) and renders the report.
func judgeCase(t *testing.T, dir string) (project.ValidationResult, string) {
	t.Helper()
	version := ""
	if b, err := os.ReadFile(filepath.Join(dir, "k8s-version")); err == nil {
		version = strings.TrimSpace(string(b))
	}
	res, _, err := Files(t.Context(), []Input{{Name: "input.yaml", Content: readTestFile(t, filepath.Join(dir, "input.yaml"))}}, Options{KubernetesVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range res[0].Problems {
		fmt.Fprintf(&b, "error: %s\n", p)
	}
	for _, p := range res[0].Warnings {
		fmt.Fprintf(&b, "warning: %s\n", p)
	}
	return res[0], b.String()
}

// TestBuiltinKindsJudged judges each testdata/builtin/<case>/input.yaml,
// objects of Kubernetes' own kinds, and compares the report with
// want.txt (go test ./internal/crdvalidate -run TestBuiltinKindsJudged
// -update rewrites it). Every judged kind is said to be judged by its
// schema only.
func TestBuiltinKindsJudged(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/builtin/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			res, report := judgeCase(t, dir)
			golden.Check(t, filepath.Join(dir, "want.txt"), []byte(report))
			frags, known := builtinWant[name]
			if !known {
				t.Fatalf("add case %q to builtinWant", name)
			}
			if frags == nil && len(res.Problems) > 0 {
				t.Errorf("valid objects have problems: %v", res.Problems)
			}
			for _, f := range frags {
				if !strings.Contains(report, f) {
					t.Errorf("no problem mentions %q", f)
				}
			}
			if name == "deprecated-apiversion" && !strings.Contains(report, "warning: PodDisruptionBudget/web: apiVersion: policy/v1beta1 PodDisruptionBudget is served by Kubernetes 1.24 but removed in Kubernetes 1.25; use policy/v1") {
				t.Errorf("no warning of the removal to come:\n%s", report)
			}
			if len(res.Problems) == 0 && !strings.Contains(report, "judged by its OpenAPI schema for Kubernetes") {
				t.Errorf("nothing says only the schema was judged:\n%s", report)
			}
		})
	}
}

// TestRemovedAPIVersion: an apiVersion the target minor no longer serves
// is a problem naming the release that removed it and what to use; the
// minor that served it judges the object.
func TestRemovedAPIVersion(t *testing.T) {
	src := []byte("apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  backend:\n    serviceName: web\n    servicePort: 80\n")
	for version, want := range map[string]string{
		"1.37": "extensions/v1beta1 Ingress is not served by Kubernetes 1.37: it was removed in Kubernetes 1.22 (last served by 1.21)",
		"1.21": "",
	} {
		res, _, err := Files(t.Context(), []Input{{Name: "ingress.yaml", Content: src}}, Options{KubernetesVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, p := range res[0].Problems {
			got += p.String() + "\n"
		}
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("Kubernetes %s: got %q, want %q", version, got, want)
		}
	}
	// Not yet served: a minor older than the apiVersion.
	src = []byte("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n")
	res, _, err := Files(t.Context(), []Input{{Name: "ingress.yaml", Content: src}}, Options{KubernetesVersion: "1.18"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Problems) != 1 || !strings.Contains(res[0].Problems[0].Message, "served from Kubernetes 1.19") {
		t.Errorf("networking.k8s.io/v1 Ingress for 1.18: %v", res[0].Problems)
	}
}

// TestUnknownKind: a kind no definition and no CRD defines is a problem,
// with a did-you-mean; a custom resource of a *.k8s.io group whose CRD
// is not given is not taken for a built-in object.
func TestUnknownKind(t *testing.T) {
	for src, want := range map[string]string{
		"apiVersion: v1\nkind: configmap\nmetadata:\n  name: x\n":                          `no matches for kind "configmap" in version "v1"`,
		"apiVersion: rbac.authorization.k8s.io/v1\nkind: Rol\nmetadata:\n  name: x\n":      "did you mean Role?",
		"apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nmetadata: {}\n": "no CRD defines sparkoperator.k8s.io/v1beta2 SparkApplication",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: x\n":  "no CRD defines gateway.networking.k8s.io/v1 Gateway",
	} {
		res, _, err := Files(t.Context(), []Input{{Name: "x.yaml", Content: []byte(src)}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res[0].Problems) == 0 || !strings.Contains(res[0].Problems[0].String(), want) {
			t.Errorf("%q: got %v, want a problem with %q", src, res[0].Problems, want)
		}
	}
}
