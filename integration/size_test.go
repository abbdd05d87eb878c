package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The size guard's thresholds (project/size.go) against the real
// kube-apiserver and its default etcd. What `kubectl apply` does is done
// over the apiserver's REST API, as the comments say (TestFitDescriptionsKubectl runs the
// real kubectl). The thresholds are read from the tool's own messages,
// so the tool and this test cannot drift apart.
//
// -size.search enables TestSizeSearch, which re-measures the limits by
// binary search and prints them; project/size.go's measuredLargestCRD and
// largestCreate below hold its results.
var sizeSearch = flag.Bool("size.search", false, "binary-search the largest CRD the control plane stores and Establishes, and print it")

// margin is what project.MaxSize leaves below the measured largest CRD
// (measuredLargestCRD), and largestCreate the largest padded CRD etcd
// stores at all (both measured by TestSizeSearch).
const (
	margin        = 1 << 10
	largestCreate = 1_572_329
)

// sizeGroup and fixed-width plurals give every padded CRD a 25-character
// name, the shape project/size.go's measurement used.
const sizeGroup = "size.example.com"

var sizeTrial atomic.Int64

// paddedCRD returns a CRD named plural.group whose compact JSON is exactly
// size bytes: a minimal CRD whose root schema's description is padded.
func paddedCRD(t *testing.T, plural, group, kind string, size int) *unstructured.Unstructured {
	t.Helper()
	mk := func(pad int) map[string]any {
		return map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata":   map[string]any{"name": plural + "." + group},
			"spec": map[string]any{
				"group": group,
				"names": map[string]any{"kind": kind, "plural": plural},
				"scope": "Namespaced",
				"versions": []any{map[string]any{
					"name": "v1", "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{
						"type": "object", "description": strings.Repeat("x", pad),
					}},
				}},
			},
		}
	}
	obj := mk(size - compactLen(t, mk(0)))
	if got := compactLen(t, obj); got != size {
		t.Fatalf("padded CRD: %d bytes, want %d", got, size)
	}
	return &unstructured.Unstructured{Object: obj}
}

// nextPadded is paddedCRD with the next 25-character name.
func nextPadded(t *testing.T, size int) *unstructured.Unstructured {
	t.Helper()
	n := sizeTrial.Add(1)
	return paddedCRD(t, fmt.Sprintf("s%07d", n), sizeGroup, fmt.Sprintf("S%07d", n), size)
}

func compactLen(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// withLastApplied does to u what client-side `kubectl apply` does before
// it creates an object (k8s.io/kubectl pkg/cmd/apply and pkg/util/apply.go,
// GetModifiedConfiguration then CreateApplyAnnotation): the object, its
// annotations set to the existing ones without the last-applied one (an
// empty map when there are none), encoded by the unstructured JSON scheme
// (json.Encoder: compact, newline-terminated) becomes the value of the
// kubectl.kubernetes.io/last-applied-configuration annotation. It returns
// the annotations' total size (keys and values), what the apiserver limits.
func withLastApplied(t *testing.T, u *unstructured.Unstructured) int {
	t.Helper()
	const key = "kubectl.kubernetes.io/last-applied-configuration"
	annots := u.GetAnnotations()
	if annots == nil {
		annots = map[string]string{}
	}
	delete(annots, key)
	u.SetAnnotations(annots)
	var buf bytes.Buffer
	if err := unstructured.UnstructuredJSONScheme.Encode(u, &buf); err != nil {
		t.Fatal(err)
	}
	annots[key] = buf.String()
	u.SetAnnotations(annots)
	total := 0
	for k, v := range annots {
		total += len(k) + len(v)
	}
	return total
}

// waitEstablished polls until the CRD name is Established.
func waitEstablished(t *testing.T, crds resource, name string) *unstructured.Unstructured {
	t.Helper()
	var crd *unstructured.Unstructured
	eventually(t, name+" Established", func(ctx context.Context) (bool, string, error) {
		var err error
		if crd, err = crds.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, err.Error(), nil
		}
		conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		return established(crd), fmt.Sprint(conds), nil
	})
	return crd
}

// established reports whether crd's Established condition is True.
func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// removeAtEnd deletes the CRD u when the test ends, so that megabyte-sized
// CRDs do not weigh on the tests after it (a CRD stored at etcd's very limit
// may not take the deletion timestamp; the control plane goes with the
// test binary anyway).
func removeAtEnd(t *testing.T, crds resource, u *unstructured.Unstructured) {
	t.Cleanup(func() { _ = crds.Delete(context.WithoutCancel(t.Context()), u.GetName(), metav1.DeleteOptions{}) })
}

// sizeClient is the CRDs of the control plane.
func sizeClient(t *testing.T) resource {
	t.Helper()
	return kubeAPI(t).Resource(crdGVR)
}

// toolBuild compiles, with `k8s-crd-resolver build --no-validate`, a
// template named plural.sizeGroup whose root description is padded until
// the compiled CRD's compact JSON is size bytes. It returns the compiled
// CRD (nil when the build failed), the build's output and exit code.
func toolBuild(t *testing.T, bin, plural string, size int, args ...string) (*unstructured.Unstructured, string, int) {
	t.Helper()
	dir := t.TempDir()
	build := func(pad int, args ...string) (*unstructured.Unstructured, string, int) {
		tpl := fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[1]s.%[2]s}
spec:
  group: %[2]s
  names: {kind: K%[1]s, plural: %[1]s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, description: %[3]s}
`, plural, sizeGroup, strings.Repeat("x", pad))
		if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "templates", "crd.yaml"), []byte(tpl), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), filepath.Join(bin, "k8s-crd-resolver"), append([]string{"build", "--no-validate"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		if code != 0 {
			return nil, string(out), code
		}
		b, err := os.ReadFile(filepath.Join(dir, "dist", "crd.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(b, &u.Object); err != nil {
			t.Fatal(err)
		}
		return u, string(out), 0
	}
	u, out, code := build(1)
	if code != 0 {
		t.Fatalf("build: exit %d\n%s", code, out)
	}
	u, out, code = build(1+size-compactLen(t, u.Object), args...)
	if u != nil {
		if got := compactLen(t, u.Object); got != size {
			t.Fatalf("padded to %d bytes of JSON, want %d", got, size)
		}
	}
	return u, out, code
}

// toolThresholds reads the size guard's thresholds from the tool's own
// messages: the largest JSON client-side apply can create (the warning)
// and the hard limit (the error).
func toolThresholds(t *testing.T, bin string) (warn, maxSize int) {
	t.Helper()
	number := func(out, pattern string) int {
		m := regexp.MustCompile(pattern).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %q in the build's output:\n%s", pattern, out)
		}
		n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	_, out, code := toolBuild(t, bin, "probes", 300_000)
	if code != 0 {
		t.Fatalf("build of 300,000 bytes: exit %d\n%s", code, out)
	}
	warn = number(out, `a CRD without annotations may have ([0-9,]+) bytes`)
	_, out, code = toolBuild(t, bin, "probes", 1_600_000)
	if code != 2 {
		t.Fatalf("build of 1,600,000 bytes: exit %d, want 2\n%s", code, out)
	}
	maxSize = number(out, `compiled CRD too large: .* more than the ([0-9,]+) bytes`)
	return warn, maxSize
}

// TestSizeClientSideApply: a CRD of exactly the tool's warning threshold
// compiles without the warning, and client-side apply (as kubectl does it)
// creates it on the real apiserver, its annotations exactly at the
// apiserver's 262,144 bytes; one byte more gets the warning, and the
// apiserver refuses it.
func TestSizeClientSideApply(t *testing.T) {
	c := sizeClient(t)
	bin := binDir
	warn, _ := toolThresholds(t, bin)

	u, out, code := toolBuild(t, bin, "fitsjust", warn)
	if code != 0 || strings.Contains(out, "last-applied-configuration") {
		t.Fatalf("%d bytes: exit %d, want no size warning:\n%s", warn, code, out)
	}
	if total := withLastApplied(t, u); total != 262_144 {
		t.Errorf("%d bytes of JSON: annotations of %d bytes, want exactly 262,144", warn, total)
	}
	if err := create(t, c, u, "kubectl-client-side-apply"); err != nil {
		t.Fatalf("%d bytes of JSON, created as client-side apply does: %v", warn, err)
	}
	removeAtEnd(t, c, u)
	waitEstablished(t, c, u.GetName())

	u, out, code = toolBuild(t, bin, "overjust", warn+1)
	if code != 0 || !strings.Contains(out, "warning: templates/crd.yaml: CRD overjust.size.example.com is") {
		t.Fatalf("%d bytes: exit %d, want the size warning:\n%s", warn+1, code, out)
	}
	withLastApplied(t, u)
	err := create(t, c, u, "kubectl-client-side-apply")
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "metadata.annotations: Too long: may not be more than 262144 bytes") {
		t.Fatalf("%d bytes of JSON, created as client-side apply does: %v; want metadata.annotations too long", warn+1, err)
	}
}

// TestSizeHardLimit: the tool's hard limit compiles and a CRD of that
// size is stored and Established, also with the longest names a CRD can
// have (the 1 KiB margin); one byte more fails the build. The measured
// limit itself (hard limit + margin) is Established; one byte more is
// stored, but the status the apiserver must write then exceeds etcd's
// request limit, so it never is.
func TestSizeHardLimit(t *testing.T) {
	c := sizeClient(t)
	bin := binDir
	_, maxSize := toolThresholds(t, bin)

	u, out, code := toolBuild(t, bin, "hardlimit", maxSize)
	if code != 0 {
		t.Fatalf("%d bytes: exit %d\n%s", maxSize, code, out)
	}
	// Server-side apply, as the operator and `kubectl apply --server-side` do.
	apply(t, c, u, "size-e2e")
	removeAtEnd(t, c, u)
	waitEstablished(t, c, u.GetName())
	if _, out, code := toolBuild(t, bin, "overlimit", maxSize+1); code != 2 || !strings.Contains(out, "compiled CRD too large") {
		t.Fatalf("%d bytes: exit %d, want 2 and too large:\n%s", maxSize+1, code, out)
	}

	// The longest names: a 63-character plural (and singular), a 59-character
	// kind (its listKind adds "List"), in a
	// group that makes the name 253 characters.
	plural := "l" + strings.Repeat("o", 61) + "g"
	group := strings.Repeat("g", 63) + "." + strings.Repeat("r", 63) + "." + strings.Repeat("o", 58) + ".up"
	long := paddedCRD(t, plural, group, "L"+strings.Repeat("o", 57)+"g", maxSize) // listKind: at most 63
	if n := len(long.GetName()); n != 253 {
		t.Fatalf("name of %d characters", n)
	}
	if err := create(t, c, long, "a-field-manager-with-a-longer-name-than-most"); err != nil {
		t.Fatalf("%d bytes with the longest names: %v", maxSize, err)
	}
	removeAtEnd(t, c, long)
	waitEstablished(t, c, long.GetName())

	// The measured limit (project/size.go's measuredLargestCRD) is
	// Established. The largest create etcd takes is stored, but the status
	// the apiserver must then write no longer fits: it is never
	// Established. One byte more is refused at create.
	fits := nextPadded(t, maxSize+margin)
	stuck := nextPadded(t, largestCreate)
	for _, u := range []*unstructured.Unstructured{stuck, fits} {
		if err := create(t, c, u, "size-e2e"); err != nil {
			t.Fatalf("creating %d bytes: %v", compactLen(t, u.Object), err)
		}
		removeAtEnd(t, c, u)
	}
	got := waitEstablished(t, c, fits.GetName())
	crd, err := c.Get(t.Context(), stuck.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if established(crd) {
		t.Fatalf("%d bytes: Established, want never", largestCreate)
	}
	// What the apiserver would write (the status it gave fits, with these
	// names) is refused by etcd: the reason it never is Established.
	status, _, _ := unstructured.NestedMap(got.Object, "status")
	names, _, _ := unstructured.NestedMap(crd.Object, "spec", "names")
	status["acceptedNames"] = names
	if err := unstructured.SetNestedMap(crd.Object, status, "status"); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateStatus(t.Context(), crd, metav1.UpdateOptions{})
	if err == nil || !strings.Contains(err.Error(), "etcdserver: request is too large") {
		t.Fatalf("%d bytes: writing the status the apiserver writes: %v; want etcdserver: request is too large", largestCreate, err)
	}
	err = create(t, c, nextPadded(t, largestCreate+1), "size-e2e")
	if err == nil || !strings.Contains(err.Error(), "etcdserver: request is too large") {
		t.Fatalf("creating %d bytes: %v; want etcdserver: request is too large", largestCreate+1, err)
	}
}

// TestSizeSearch (-size.search) re-measures the largest padded CRD the
// control plane stores at all, and the largest it stores and Establishes.
func TestSizeSearch(t *testing.T) {
	if !*sizeSearch {
		t.Skip("measures only with -size.search")
	}
	c := sizeClient(t)
	created := bisect(t, func(n int) bool {
		u := nextPadded(t, n)
		err := create(t, c, u, "size-e2e")
		if err == nil {
			_ = c.Delete(t.Context(), u.GetName(), metav1.DeleteOptions{})
		} else if !strings.Contains(err.Error(), "etcdserver: request is too large") && !strings.Contains(err.Error(), "trying to send message larger than max") {
			t.Fatalf("creating %d bytes: %v", n, err)
		}
		return err == nil
	})
	t.Logf("largest CRD the control plane stores: %d bytes of compact JSON", created)
	stable := bisect(t, func(n int) bool {
		u := nextPadded(t, n)
		if err := create(t, c, u, "size-e2e"); err != nil {
			return false
		}
		defer func() { _ = c.Delete(t.Context(), u.GetName(), metav1.DeleteOptions{}) }()
		// A small probe created after it: once the probe is Established,
		// the apiserver has handled u too.
		probe := nextPadded(t, 1000)
		if err := create(t, c, probe, "size-e2e"); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = c.Delete(t.Context(), probe.GetName(), metav1.DeleteOptions{}) }()
		waitEstablished(t, c, probe.GetName())
		crd, err := c.Get(t.Context(), u.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return established(crd)
	})
	t.Logf("largest CRD the control plane stores and Establishes: %d bytes of compact JSON", stable)
}

// bisect returns the largest n in [1 MiB, 2 MiB) for which ok holds, ok
// being true up to some n and false above it.
func bisect(t *testing.T, ok func(int) bool) int {
	t.Helper()
	lo, hi := 1<<20, 2<<20
	if !ok(lo) || ok(hi) {
		t.Fatalf("the limit is not between %d and %d bytes", lo, hi)
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// TestSizeDaskWithDescriptions: the Dask CRDs compiled with Kubernetes'
// descriptions (`resolve --no-config` without -r: in the project, resolve
// compiles as the first set, which strips them for the Helm chart's sake) are above what client-side apply can create (the
// apiserver refuses that) and install with server-side apply, as the
// operator does it, Established.
func TestSizeDaskWithDescriptions(t *testing.T) {
	c := sizeClient(t)
	var crds []*unstructured.Unstructured
	for _, name := range []string{"daskautoscaler", "daskcluster", "daskjob", "daskworkergroup"} {
		crds = append(crds, compileTemplate(t, "resolve", "--no-config", "--k8s-version", "1.37", "templates/"+name+".yaml"))
	}
	const podDescription = "List of containers belonging to the pod."
	var largest *unstructured.Unstructured
	for _, u := range crds {
		b, err := json.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes of compact JSON", u.GetName(), len(b))
		if u.GetName() != "daskautoscalers.kubernetes.dask.org" && !bytes.Contains(b, []byte(podDescription)) {
			t.Errorf("%s carries no Kubernetes descriptions (%q)", u.GetName(), podDescription)
		}
		if largest == nil || len(b) > compactLen(t, largest.Object) {
			largest = u
		}
	}
	// Server-side apply, forced, as the operator installs its CRDs.
	for _, u := range crds {
		apply(t, c, u, "dask-operator")
	}
	for _, u := range crds {
		waitEstablished(t, c, u.GetName())
	}
	// Client-side apply of the largest: refused (a dry run, since it exists).
	u := largest.DeepCopy()
	withLastApplied(t, u)
	_, err := c.Create(t.Context(), u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "metadata.annotations: Too long") {
		t.Errorf("%s, client-side apply: %v; want metadata.annotations too long", u.GetName(), err)
	}
}

// create creates the CRD u as field manager manager.
func create(t *testing.T, crds resource, u *unstructured.Unstructured, manager string) error {
	t.Helper()
	_, err := crds.Create(t.Context(), u, metav1.CreateOptions{FieldManager: manager})
	return err
}

// apply server-side-applies the CRD u as field manager manager, forced.
func apply(t *testing.T, crds resource, u *unstructured.Unstructured, manager string) {
	t.Helper()
	if _, err := crds.Apply(t.Context(), u.GetName(), u, metav1.ApplyOptions{FieldManager: manager, Force: true}); err != nil {
		t.Fatalf("%s, server-side apply: %v", u.GetName(), err)
	}
}
