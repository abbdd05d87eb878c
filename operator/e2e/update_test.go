package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// TestUpdatesAndIdempotence: a reconcile that has nothing to change writes
// nothing (children keep their resourceVersions), and a change to the
// cluster's pod or service specs reaches every child, keeping what the
// apiserver allocated (the Service's cluster IP).
func TestUpdatesAndIdempotence(t *testing.T) {
	c := startOperator(t)
	ctx := t.Context()
	ns, _ := createExample(t, c, "daskcluster.yaml")
	key := inNamespace(ns)
	waitWorkers(t, c, ns, "example-default", 2)
	waitPhase(t, c, key("example"), daskv1.PhaseRunning)
	time.Sleep(time.Second) // let status writes settle

	versions := func() map[string]string {
		out := map[string]string{}
		var deps appsv1.DeploymentList
		if err := c.List(ctx, &deps, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, d := range deps.Items {
			out["deployment/"+d.Name] = d.ResourceVersion
		}
		var svc corev1.Service
		if err := c.Get(ctx, key("example-scheduler"), &svc); err != nil {
			t.Fatal(err)
		}
		out["service/"+svc.Name] = svc.ResourceVersion
		var wg daskv1.DaskWorkerGroup
		if err := c.Get(ctx, key("example-default"), &wg); err != nil {
			t.Fatal(err)
		}
		out["workergroup/"+wg.Name] = wg.ResourceVersion
		return out
	}
	before := versions()

	// An annotation on the cluster that children do not inherit (kubectl's)
	// triggers reconciles that must change nothing.
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}}}`))
	if err := c.Patch(ctx, &daskv1.DaskCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "example"}}, patch); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if after := versions(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("a no-op reconcile wrote children:\nbefore %v\nafter  %v", before, after)
	}

	var svc corev1.Service
	if err := c.Get(ctx, key("example-scheduler"), &svc); err != nil {
		t.Fatal(err)
	}
	clusterIP := svc.Spec.ClusterIP

	// New worker image, new scheduler image, an extra service port.
	spec := []byte(`{"spec":{
		"worker":{"spec":{"containers":[{"name":"worker","image":"ghcr.io/dask/dask:2025.1.0"}]}},
		"scheduler":{"spec":{"containers":[{"name":"scheduler","image":"ghcr.io/dask/dask:2025.1.0"}]},
		             "service":{"ports":[{"name":"tcp-comm","port":8786,"targetPort":8786},{"name":"extra","port":9999,"targetPort":9999}]}}}}`)
	if err := c.Patch(ctx, &daskv1.DaskCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "example"}}, client.RawPatch("application/merge-patch+json", spec)); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, "new images everywhere", func(ctx context.Context) (bool, string, error) {
		var deps appsv1.DeploymentList
		if err := c.List(ctx, &deps, client.InNamespace(ns)); err != nil {
			return false, "", err
		}
		stale := []string{}
		for _, d := range deps.Items {
			if img := d.Spec.Template.Spec.Containers[0].Image; img != "ghcr.io/dask/dask:2025.1.0" {
				stale = append(stale, d.Name+"="+img)
			}
		}
		return len(stale) == 0 && len(deps.Items) == 3, fmt.Sprint(stale), nil
	})
	testenv.Eventually(t, timeout, "service port added", func(ctx context.Context) (bool, string, error) {
		if err := c.Get(ctx, key("example-scheduler"), &svc); err != nil {
			return false, "", err
		}
		return len(svc.Spec.Ports) == 2 && svc.Spec.Ports[1].Port == 9999, fmt.Sprint(svc.Spec.Ports), nil
	})
	if svc.Spec.ClusterIP != clusterIP {
		t.Errorf("cluster IP changed from %s to %s", clusterIP, svc.Spec.ClusterIP)
	}
	workers := waitWorkers(t, c, ns, "example-default", 2)
	for _, w := range workers {
		env := map[string]string{}
		for _, e := range w.Spec.Template.Spec.Containers[0].Env {
			env[e.Name] = e.Value
		}
		if env[reconciler.EnvWorkerName] != w.Name || env[reconciler.EnvSchedulerAddress] == "" {
			t.Errorf("%s lost its injected env after the update: %v", w.Name, env)
		}
	}
}
