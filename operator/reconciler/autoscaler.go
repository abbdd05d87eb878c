package reconciler

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

// AutoscalerReconciler chooses, for each DaskAutoscaler, the worker count of
// the named cluster's default worker group: every AutoscalePeriod it asks
// the scheduler for its adaptive target (GET /api/v1/adaptive_target),
// clamps it to [minimum, maximum], holds scale-down during the cool-down
// (decideScale), and records the choice in status.desiredWorkers. Until the
// scheduler first answers, the choice is the cluster's spec.worker.replicas
// clamped to the bounds. ClusterReconciler, the single writer of the
// default worker group, applies status.desiredWorkers; this keeps two
// controllers from fighting over one field.
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

// errSchedulerNotRunning: the cluster's scheduler Deployment has no
// available replica yet, so the autoscaler does not ask it.
var errSchedulerNotRunning = errors.New("scheduler not running")

// Reconcile polls one autoscaler's scheduler and records its decision. An
// autoscaler is first adopted by the cluster it names (adopt), so that
// deleting the cluster deletes it too. Status is patched on every way out.
func (r *AutoscalerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	var a DaskAutoscaler
	if err := r.Client.Get(ctx, req.NamespacedName, &a); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !a.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	opts := r.Scheduler.withDefaults()
	var dc DaskCluster
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: a.Namespace, Name: a.Spec.Cluster}, &dc); err != nil {
		if apierrors.IsNotFound(err) {
			r.event(&a, corev1.EventTypeWarning, "ClusterNotFound", "Scale", "DaskCluster %s not found", a.Spec.Cluster)
			return ctrl.Result{RequeueAfter: time.Minute}, nil
		}
		return ctrl.Result{}, err
	}
	if !dc.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if _, err := adopt(ctx, &r.Deps, &dc, &a); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil
		}
		return ctrl.Result{}, err
	}
	orig := a.DeepCopy()
	defer func() { err = errors.Join(err, patchStatus(ctx, &r.Deps, &a, orig)) }()
	now := metav1.Now()
	current := clamp(dc.Spec.Worker.Replicas, a.Spec.Minimum, a.Spec.Maximum)
	if a.Status.LastScaleTime != nil {
		current = a.Status.DesiredWorkers
	}
	desired := current
	var target int32
	err = errSchedulerNotRunning
	if meta.IsStatusConditionTrue(dc.Status.Conditions, ConditionSchedulerAvailable) {
		var sc *SchedulerClient
		if sc, err = r.schedulerFor(ctx, dc.Namespace, dc.Name); err == nil {
			sctx, cancel := r.schedulerBudget(ctx, dc.Namespace, dc.Name)
			target, err = sc.AdaptiveTarget(sctx)
			cancel()
		}
	}
	switch {
	case err != nil:
		// A scheduler still starting is not worth a warning.
		if !errors.Is(err, errSchedulerNotRunning) {
			r.event(&a, corev1.EventTypeWarning, "SchedulerUnreachable", "Scale", "asking the scheduler of %s for its adaptive target: %v", dc.Name, err)
		}
		if a.Status.SchedulerTarget == nil {
			// No target yet: bound the cluster's own request.
			desired = clamp(dc.Spec.Worker.Replicas, a.Spec.Minimum, a.Spec.Maximum)
		} else {
			// Keep the last choice, within the current bounds.
			desired = clamp(current, a.Spec.Minimum, a.Spec.Maximum)
		}
	default:
		if a.Status.SchedulerTarget == nil || *a.Status.SchedulerTarget != target {
			a.Status.SchedulerTarget = new(target)
			a.Status.SchedulerTargetTime = &now
		}
		var last time.Time
		if a.Status.LastScaleTime != nil {
			last = a.Status.LastScaleTime.Time
		}
		var why string
		desired, why = decideScale(scaleInput{
			Current: current, Target: target,
			Minimum: a.Spec.Minimum, Maximum: a.Spec.Maximum,
			LastScale: last, Now: now.Time, CoolDown: opts.AutoscaleCoolDown,
		})
		if desired != current {
			r.event(&a, corev1.EventTypeNormal, "Scaled", "Scale", "%s: %d -> %d workers (scheduler target %d, bounds [%d, %d])", why, current, desired, target, a.Spec.Minimum, a.Spec.Maximum)
		}
	}
	if desired != a.Status.DesiredWorkers || a.Status.LastScaleTime == nil {
		a.Status.LastScaleTime = &now
		if err != nil && desired != dc.Spec.Worker.Replicas {
			r.event(&a, corev1.EventTypeNormal, "Bounded", "Scale", "cluster %s asks for %d workers; bounded to %d", dc.Name, dc.Spec.Worker.Replicas, desired)
		}
	}
	a.Status.DesiredWorkers = desired
	a.Status.ObservedGeneration = a.Generation
	// A scheduler's failure is reported (above), not returned: the next
	// poll is the retry.
	return ctrl.Result{RequeueAfter: opts.AutoscalePeriod}, nil
}
