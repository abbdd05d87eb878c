package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var sizeSearch = flag.Bool("size.search", false, "binary-search the largest CRD the control plane accepts and print it")

var trial atomic.Int64

// paddedCRD returns a CRD whose compact JSON is exactly size bytes: a
// minimal CRD whose root schema's description is padded with 'x'.
func paddedCRD(t *testing.T, size int) *unstructured.Unstructured {
	t.Helper()
	n := trial.Add(1)
	plural := fmt.Sprintf("s%07d", n)
	group := "size.example.com"
	mk := func(pad int) map[string]any {
		return map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata":   map[string]any{"name": plural + "." + group},
			"spec": map[string]any{
				"group": group,
				"names": map[string]any{"kind": "S" + plural[1:], "plural": plural},
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
	base := compactLen(t, mk(0))
	if size < base {
		t.Fatalf("a padded CRD is at least %d bytes", base)
	}
	obj := mk(size - base)
	if got := compactLen(t, obj); got != size {
		t.Fatalf("padded CRD: %d bytes, want %d", got, size)
	}
	return &unstructured.Unstructured{Object: obj}
}

func compactLen(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// createAndWait creates u and reports whether the apiserver accepted it
// and whether it became Established; it deletes it afterwards.
func createAndWait(t *testing.T, c client.Client, u *unstructured.Unstructured) (created, established bool, err error) {
	t.Helper()
	ctx := t.Context()
	if err := c.Create(ctx, u, client.FieldOwner("size-e2e")); err != nil {
		return false, false, err
	}
	defer func() { _ = c.Delete(context.Background(), u) }()
	var last string
	perr := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := c.Get(ctx, client.ObjectKey{Name: u.GetName()}, &crd); err != nil {
			last = err.Error()
			return false, nil
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		last = fmt.Sprint(crd.Status.Conditions)
		return false, nil
	})
	if perr != nil {
		return true, false, fmt.Errorf("%w (last: %s)", perr, last)
	}
	return true, true, nil
}

func TestSizeSearch(t *testing.T) {
	if !*sizeSearch {
		t.Skip("-size.search not given")
	}
	c := startOperator(t)
	search := func(what string, ok func(int) bool) int {
		lo, hi := 1<<20, 2<<20 // lo accepted, hi refused
		if !ok(lo) || ok(hi) {
			t.Fatalf("%s: bounds wrong", what)
		}
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if ok(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo
	}
	var lastErr bytes.Buffer
	created := search("create", func(n int) bool {
		u := paddedCRD(t, n)
		err := c.Create(t.Context(), u, client.FieldOwner("size-e2e"))
		if err == nil {
			_ = c.Delete(t.Context(), u)
		} else {
			lastErr.Reset()
			lastErr.WriteString(err.Error()[:min(300, len(err.Error()))])
		}
		return err == nil
	})
	t.Logf("largest accepted create: %d bytes of compact JSON; next refused with: %s", created, lastErr.String())
	est := search("established", func(n int) bool {
		_, ok, err := createAndWait(t, c, paddedCRD(t, n))
		if err != nil {
			lastErr.Reset()
			lastErr.WriteString(err.Error()[:min(300, len(err.Error()))])
		}
		return ok
	})
	t.Logf("largest Established: %d bytes of compact JSON; next: %s", est, lastErr.String())
}
