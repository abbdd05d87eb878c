package reconciler

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

// AutoscalerReconciler reports, for each DaskAutoscaler, the worker count its
// bounds give the named cluster. The bound itself is applied by
// ClusterReconciler, the single writer of the default worker group, which
// watches autoscalers; this keeps two controllers from fighting over one
// field.
type AutoscalerReconciler struct {
	Deps
}

// SetupWithManager registers the controller and its watches with mgr.
func (r *AutoscalerReconciler) SetupWithManager(mgr ctrl.Manager, opts ControllerOptions) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("daskautoscaler").
		For(&DaskAutoscaler{}).
		Watches(&DaskCluster{}, handler.EnqueueRequestsFromMapFunc(namingCluster[DaskAutoscalerList](mgr.GetClient(), indexAutoscalerCluster))).
		WithOptions(opts.controller()).
		Complete(r)
}

// Reconcile records the bounded worker count of one autoscaler's cluster.
func (r *AutoscalerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var a DaskAutoscaler
	if err := r.Client.Get(ctx, req.NamespacedName, &a); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	orig := a.DeepCopy()
	var dc DaskCluster
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: a.Namespace, Name: a.Spec.Cluster}, &dc); err != nil {
		if apierrors.IsNotFound(err) {
			r.event(&a, corev1.EventTypeWarning, "ClusterNotFound", "Scale", "DaskCluster %s not found", a.Spec.Cluster)
			return ctrl.Result{RequeueAfter: time.Minute}, nil
		}
		return ctrl.Result{}, err
	}
	desired := clamp(dc.Spec.Worker.Replicas, a.Spec.Minimum, a.Spec.Maximum)
	if desired != a.Status.DesiredWorkers || a.Status.LastScaleTime == nil {
		now := metav1.Now()
		a.Status.LastScaleTime = &now
		if desired != dc.Spec.Worker.Replicas {
			r.event(&a, corev1.EventTypeNormal, "Bounded", "Scale", "cluster %s asks for %d workers; bounded to %d", dc.Name, dc.Spec.Worker.Replicas, desired)
		}
	}
	a.Status.DesiredWorkers = desired
	a.Status.ObservedGeneration = a.Generation
	return ctrl.Result{}, patchStatus(ctx, &r.Deps, &a, orig, equality.Semantic.DeepEqual(orig.Status, a.Status))
}
