package integration

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/apirecord"
)

// record rewrites the verdicts of testdata/apiserver-recorded with what
// the live apiserver says (go test ./integration/ -run TestAPIServerRecorded -record).
var record = flag.Bool("record", false, "rewrite testdata/apiserver-recorded's verdicts from the live kube-apiserver")

// recordedDir holds the built-in objects whose verdicts were recorded from
// the real kube-apiserver (README.md there).
const recordedDir = "../testdata/apiserver-recorded"

// strictField finds the fields a Strict decoding error names.
var strictField = regexp.MustCompile(`(?:unknown|duplicate) field "([^"]*)"`)

// TestAPIServerRecorded creates every object of testdata/apiserver-recorded
// on the live kube-apiserver (dryRun=All, fieldValidation=Strict) and fails
// when its verdict is not the recorded one; with -record it writes the
// verdicts instead. Namespaces the objects name are created for real
// first, as the objects could not be created without them.
// Without KUBEBUILDER_ASSETS it uses hack/control-plane.sh's cache when
// that holds every binary (it builds none), and skips otherwise.
func TestAPIServerRecorded(t *testing.T) {
	if os.Getenv(assetsEnv) == "" && !testing.Short() {
		if dir, err := exec.CommandContext(t.Context(), "../hack/control-plane.sh", "--check").Output(); err == nil {
			t.Setenv(assetsEnv, strings.TrimSpace(string(dir)))
		}
	}
	k := kubeAPI(t)
	ctx := t.Context()
	files, err := filepath.Glob(recordedDir + "/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no objects in %s: %v", recordedDir, err)
	}
	version := serverVersion(t, k)
	type object struct {
		file    string
		verdict apirecord.Verdict
		body    []byte
		obj     *unstructured.Unstructured
	}
	var objs []object
	namespaces := map[string]bool{}
	for _, f := range files {
		content := read(t, ".", f)
		v, body, err := apirecord.Parse([]byte(content))
		if err != nil && !*record {
			t.Fatalf("%s: %v (record it: go test ./integration/ -run TestAPIServerRecorded -record)", f, err)
		}
		if err != nil {
			body = []byte(content) // a new object: everything is the object
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(body, &u.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if ns := u.GetNamespace(); ns != "" {
			namespaces[ns] = true
		}
		objs = append(objs, object{f, v, body, u})
	}
	// Namespace objects first: the namespaces the others name are then
	// created for real, and a Namespace of the same name would exist.
	slices.SortStableFunc(objs, func(a, b object) int {
		return boolOrder(a.obj.GetKind() != "Namespace") - boolOrder(b.obj.GetKind() != "Namespace")
	})
	verdicts := make([]apirecord.Verdict, len(objs))
	for i, o := range objs {
		if o.obj.GetKind() == "Namespace" {
			verdicts[i] = createVerdict(ctx, t, k, o.obj)
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(namespaces)) {
		nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		if _, err := k.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, nsObj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating namespace %s: %v", ns, err)
		}
	}
	changed := 0
	for i, o := range objs {
		got := verdicts[i]
		if o.obj.GetKind() != "Namespace" {
			got = createVerdict(ctx, t, k, o.obj)
		}
		got.Server = version
		name := filepath.Base(o.file)
		switch {
		case *record:
			if !got.Equal(o.verdict) || got.Server != o.verdict.Server {
				if err := os.WriteFile(o.file, append([]byte(apirecord.Format(got)), o.body...), 0o644); err != nil {
					t.Fatal(err)
				}
				changed++
			}
		case !got.Equal(o.verdict):
			t.Errorf("%s: the apiserver (%s) now says %s, recorded (%s): %s", name, version, got, o.verdict.Server, o.verdict)
		}
	}
	if *record {
		t.Logf("recorded %d verdicts (%d changed) from kube-apiserver %s", len(objs), changed, version)
	}
}

func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

// serverVersion is the apiserver's gitVersion.
func serverVersion(t *testing.T, k *kube) string {
	t.Helper()
	b, err := k.raw(t.Context(), http.MethodGet, "/version", nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.GitVersion == "" {
		t.Fatalf("/version: %v: %s", err, b)
	}
	return v.GitVersion
}

// createVerdict creates obj with dryRun=All and fieldValidation=Strict, as
// kubectl apply --dry-run=server would, and returns what the apiserver
// said. An apiVersion and kind its discovery does not list is NotServed,
// as kubectl refuses it before any request.
func createVerdict(ctx context.Context, t *testing.T, k *kube, obj *unstructured.Unstructured) apirecord.Verdict {
	t.Helper()
	gvk := obj.GroupVersionKind()
	resource, namespaced, found := discover(ctx, t, k, gvk)
	if !found {
		return apirecord.Verdict{Reason: "NotServed"}
	}
	r := k.Resource(gvk.GroupVersion().WithResource(resource))
	if namespaced {
		ns := obj.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		r = r.Namespace(ns)
	}
	_, err := r.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	if err == nil {
		return apirecord.Verdict{Valid: true}
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("creating %s %s: %v", gvk, obj.GetName(), err)
	}
	st := se.ErrStatus
	v := apirecord.Verdict{Reason: string(st.Reason)}
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			if m := strictField.FindAllStringSubmatch(c.Message, -1); len(m) > 0 {
				for _, s := range m {
					v.Unknown = append(v.Unknown, s[1])
				}
				continue
			}
			v.Causes = append(v.Causes, string(c.Type)+" "+c.Field)
		}
	}
	if len(v.Causes) == 0 && len(v.Unknown) == 0 {
		for _, s := range strictField.FindAllStringSubmatch(st.Message, -1) {
			v.Unknown = append(v.Unknown, s[1])
		}
	}
	if len(v.Causes) == 0 && len(v.Unknown) == 0 {
		v.Message = strings.Join(strings.Fields(st.Message), " ")
	}
	slices.Sort(v.Causes)
	v.Causes = slices.Compact(v.Causes)
	slices.Sort(v.Unknown)
	v.Unknown = slices.Compact(v.Unknown)
	return v
}

// discover finds the resource that serves gvk in the apiserver's discovery.
func discover(ctx context.Context, t *testing.T, k *kube, gvk schema.GroupVersionKind) (resource string, namespaced, found bool) {
	t.Helper()
	path := "/apis/" + gvk.GroupVersion().String()
	if gvk.Group == "" {
		path = "/api/" + gvk.Version
	}
	b, err := k.raw(ctx, http.MethodGet, path, nil, "", nil)
	// A group version it does not serve is a 404 with a plain-text body.
	if apierrors.IsNotFound(err) || err != nil && strings.Contains(err.Error(), ": 404 Not Found: ") {
		return "", false, false
	}
	if err != nil {
		t.Fatalf("discovery %s: %v", path, err)
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatalf("discovery %s: %v", path, err)
	}
	for _, r := range list.APIResources {
		if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
			return r.Name, r.Namespaced, true
		}
	}
	return "", false, false
}
