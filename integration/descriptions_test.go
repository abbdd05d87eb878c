package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestFitDescriptionsKubectl: daskjob compiled with --fit-descriptions
// client-side-apply is created by a real client-side `kubectl apply`
// (the same CRD with all of Kubernetes' descriptions is refused: its
// last-applied annotation is too long), and `kubectl explain` documents a
// field whose description was kept (spec.job.spec.containers, depth 4)
// and not one whose description was dropped (the same field of the pod
// spec at depth 7, spec.cluster.spec.worker.spec.containers). kubectl
// comes from the control plane's assets (hack/control-plane.sh builds it
// unless WITH_KUBECTL=0); without it the test is skipped, except in CI, where it fails.
func TestFitDescriptionsKubectl(t *testing.T) {
	kubeAPI(t)
	kubectl := filepath.Join(os.Getenv(assetsEnv), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		msg := fmt.Sprintf("kubectl is not in %s (make control-plane builds it; WITH_KUBECTL=0 leaves it out): %v", assetsEnv, err)
		if os.Getenv(ciEnv) != "" || os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI must run this test)")
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(t.Context(), kubectl, append(kubectlArgs(), args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	// The group is as long as kubernetes.dask.org, so the sizes are
	// daskjob's own; the operator's CRDs (installed by other tests) are
	// left alone.
	compile := func(group string, args ...string) (string, *unstructured.Unstructured) {
		u := compileTemplate(t, append([]string{"resolve", "--no-config", "--no-validate", "--k8s-version", "1.37", "templates/daskjob.yaml"}, args...)...)
		if err := unstructured.SetNestedField(u.Object, group, "spec", "group"); err != nil {
			t.Fatal(err)
		}
		u.SetName("daskjobs." + group)
		raw, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, group+".yaml")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = run("delete", "--ignore-not-found", "-f", path) })
		return path, u
	}
	const fitted, full = "descriptions.fit.io", "descriptionz.fit.io"
	if len(fitted) != len("kubernetes.dask.org") {
		t.Fatal("the test group must be as long as Dask's")
	}
	fittedPath, fittedCRD := compile(fitted, "--fit-descriptions", "client-side-apply")
	fullPath, _ := compile(full)

	// Kept and dropped, as compiled.
	desc := func(u *unstructured.Unstructured, fields ...string) string {
		path := []string{"spec", "versions"}
		versions, _, _ := unstructured.NestedSlice(u.Object, path...)
		schema := versions[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
		for _, f := range fields {
			schema = schema["properties"].(map[string]any)[f].(map[string]any)
		}
		s, _ := schema["description"].(string)
		return s
	}
	const containersText = "List of containers belonging to the pod."
	kept := []string{"spec", "job", "spec", "containers"}
	dropped := []string{"spec", "cluster", "spec", "worker", "spec", "containers"}
	if d := desc(fittedCRD, kept...); !strings.HasPrefix(d, containersText) {
		t.Fatalf("the fitted CRD has no description at %s: %q", strings.Join(kept, "."), d)
	}
	if d := desc(fittedCRD, dropped...); d != "" {
		t.Fatalf("the fitted CRD keeps a description at %s (depth 7): %q", strings.Join(dropped, "."), d)
	}

	if out, err := run("apply", "-f", fullPath); err == nil || !strings.Contains(out, "metadata.annotations: Too long") {
		t.Fatalf("client-side apply of daskjob with all descriptions: %v\n%s\nwant the annotation refused as too long", err, out)
	}
	if out, err := run("apply", "-f", fittedPath); err != nil {
		t.Fatalf("client-side apply of the fitted daskjob: %v\n%s", err, out)
	}
	eventually(t, "the fitted CRD Established", func(ctx context.Context) (bool, string, error) {
		out, err := run("get", "crd", "daskjobs."+fitted, "-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`)
		return err == nil && out == "True", fmt.Sprint(err, out), nil
	})
	if out, _ := run("get", "crd", "daskjobs."+fitted, "-o", "jsonpath={.metadata.annotations}"); !strings.Contains(out, "last-applied-configuration") {
		t.Fatalf("the CRD was not created by client-side apply (no last-applied annotation): %.200s", out)
	}
	explain := func(fields []string) string {
		var out string
		// kubectl explain reads the OpenAPI the apiserver publishes, which
		// follows the CRD's creation.
		eventually(t, "kubectl explain "+strings.Join(fields, "."), func(ctx context.Context) (bool, string, error) {
			var err error
			out, err = run("explain", "--api-version", fitted+"/v1", "daskjobs."+strings.Join(fields, "."))
			return err == nil, fmt.Sprint(err, out), nil
		})
		return out
	}
	out := explain(kept)
	t.Logf("kubectl explain daskjobs.%s:\n%.400s", strings.Join(kept, "."), out)
	if !strings.Contains(out, containersText) {
		t.Errorf("kubectl explain daskjobs.%s does not document the kept field:\n%s", strings.Join(kept, "."), out)
	}
	out = explain(dropped)
	t.Logf("kubectl explain daskjobs.%s:\n%.400s", strings.Join(dropped, "."), out)
	if strings.Contains(out, containersText) || !strings.Contains(out, "FIELD: containers") {
		t.Errorf("kubectl explain daskjobs.%s should show the field without its dropped description:\n%s", strings.Join(dropped, "."), out)
	}
}
