package e2e

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// TestFailureEvents: what the operator cannot do is reported as Warning
// events on the object concerned. A worker Deployment name already taken by
// an object another controller owns is not stolen, and an autoscaler naming
// a missing cluster says so.
func TestFailureEvents(t *testing.T) {
	c := startOperator(t)
	ctx := t.Context()
	ns := newNamespace(t, c)

	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "someone-else"}}
	if err := c.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	sel := map[string]string{"app": "taken"}
	taken := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: reconciler.WorkerName("grp", 0),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: new(true)}},
		},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		},
	}
	if err := c.Create(ctx, taken); err != nil {
		t.Fatal(err)
	}
	wg := &daskv1.DaskWorkerGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "grp"},
		Spec: daskv1.DaskWorkerGroupSpec{Cluster: "absent", Worker: daskv1.WorkerSpec{
			Replicas: 1,
			Spec:     corev1.PodSpec{Containers: []corev1.Container{{Name: "worker", Image: "ghcr.io/dask/dask:2024.12.1-py3.12"}}},
		}},
	}
	if err := c.Create(ctx, wg); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, c, ns, "grp", "FailedCreateWorker")
	var d appsv1.Deployment
	if err := c.Get(ctx, inNamespace(ns)(taken.Name), &d); err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(&d); ref == nil || ref.UID != owner.UID {
		t.Errorf("the operator took over a Deployment another controller owns: %+v", ref)
	}

	as := &daskv1.DaskAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lonely"},
		Spec:       daskv1.DaskAutoscalerSpec{Cluster: "absent", Minimum: 1, Maximum: 2},
	}
	if err := c.Create(ctx, as); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, c, ns, "lonely", "ClusterNotFound")
}
