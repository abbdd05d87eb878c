package reconciler

import (
	"context"
	"errors"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// RBAC: a DaskAutoscaler is adopted by the cluster it names (patch), and
// kopf's finalizer is removed from a deleted one (patch).
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskautoscalers,verbs=list;watch;patch
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskautoscalers/status,verbs=patch
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskclusters,verbs=list;watch

// AutoscalerReconciler chooses, for each DaskAutoscaler, the worker count of
// the named cluster's default worker group, as Dask's controller does: every
// AutoscalePeriod it asks the scheduler for its adaptive target (GET
// /api/v1/adaptive_target) and decides from the group's replicas as they
// stand (decideScale): up at once, down by at most a quarter per decision
// and only after the cool-down. It records the choice in
// status.desiredWorkers; ClusterReconciler, the single writer of the default
// worker group, applies it, which keeps two controllers from fighting over
// one field. A round whose scheduler cannot be asked changes nothing.
type AutoscalerReconciler struct {
	Deps

	// unreachable remembers, per autoscaler, when it last warned that its
	// scheduler could not be reached (decideWarn); in memory only, so a
	// restarted operator warns once more.
	unreachable warnMemory
}

// unreachableWarnEvery is how often, at most, one autoscaler records a
// SchedulerUnreachable event while its scheduler stays away.
const unreachableWarnEvery = 5 * time.Minute

// warnMemory holds when each object last got a rate-limited warning. The
// zero value is ready; it is safe for concurrent use.
type warnMemory struct {
	mu   sync.Mutex
	last map[client.ObjectKey]warned
}

// warned is one object's last warning, tied to the object's UID so that a
// re-created object of the same name warns afresh.
type warned struct {
	uid types.UID
	at  time.Time
}

// due reports whether key (of uid) may warn at now, and if so records it.
func (m *warnMemory) due(key client.ObjectKey, uid types.UID, now time.Time, every time.Duration) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var last time.Time
	if w, ok := m.last[key]; ok && w.uid == uid {
		last = w.at
	}
	if !decideWarn(last, now, every) {
		return false
	}
	if m.last == nil {
		m.last = map[client.ObjectKey]warned{}
	}
	m.last[key] = warned{uid: uid, at: now}
	return true
}

// forget drops key's record: the condition it warned about is over.
func (m *warnMemory) forget(key client.ObjectKey) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.last, key)
}

// SetupWithManager registers the controller and its watches with mgr.
func (r *AutoscalerReconciler) SetupWithManager(mgr ctrl.Manager, opts ControllerOptions) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("daskautoscaler").
		For(&daskv1.DaskAutoscaler{}).
		Watches(&daskv1.DaskCluster{}, handler.EnqueueRequestsFromMapFunc(namingCluster[daskv1.DaskAutoscalerList](mgr.GetClient(), indexAutoscalerCluster))).
		WithOptions(opts.controller()).
		Complete(r)
}

// errSchedulerNotRunning: the cluster's scheduler Deployment has no
// available replica yet, so the autoscaler does not ask it.
var errSchedulerNotRunning = errors.New("scheduler not running")

// Reconcile polls one autoscaler's scheduler and records its decision. An
// autoscaler is first adopted by the cluster it names (adopt), so that
// deleting the cluster deletes it too. Status is patched on every way out.
// A round without a default worker group or without the scheduler's answer
// changes no count: a scheduler still starting is skipped quietly, one that
// cannot be reached with a SchedulerUnreachable event at most every
// unreachableWarnEvery.
func (r *AutoscalerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	var a daskv1.DaskAutoscaler
	if err := r.Client.Get(ctx, req.NamespacedName, &a); err != nil {
		if apierrors.IsNotFound(err) {
			r.unreachable.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !a.DeletionTimestamp.IsZero() {
		base := a.DeepCopy()
		return releaseKopf(ctx, &r.Deps, &a, func(ctx context.Context, o client.Object) error {
			return r.Client.Patch(ctx, o, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldOwner))
		})
	}
	opts := r.Scheduler.withDefaults()
	var dc daskv1.DaskCluster
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
	a.Status.ObservedGeneration = a.Generation
	// Every way out below polls again after a period: a failure is
	// reported, not returned, and the next poll is the retry.
	next := ctrl.Result{RequeueAfter: opts.AutoscalePeriod}

	var wg daskv1.DaskWorkerGroup
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: dc.Namespace, Name: DefaultWorkerGroupName(dc.Name)}, &wg); err != nil {
		if apierrors.IsNotFound(err) {
			// The cluster reconciler has not made it yet: nothing to scale.
			return next, nil
		}
		return ctrl.Result{}, err
	}
	now := metav1.Now()
	var target int32
	err = errSchedulerNotRunning
	if meta.IsStatusConditionTrue(dc.Status.Conditions, daskv1.ConditionSchedulerAvailable) {
		var sc *SchedulerClient
		if sc, err = r.schedulerFor(ctx, dc.Namespace, dc.Name); err == nil {
			sctx, cancel := r.schedulerBudget(ctx, dc.Namespace, dc.Name)
			target, err = sc.AdaptiveTarget(sctx)
			cancel()
		}
	}
	if err != nil {
		// Skip the round, as Dask's controller does: without the
		// scheduler's word no count is better than the one standing.
		if !errors.Is(err, errSchedulerNotRunning) && r.unreachable.due(req.NamespacedName, a.UID, now.Time, unreachableWarnEvery) {
			r.event(&a, corev1.EventTypeWarning, "SchedulerUnreachable", "Scale", "asking the scheduler of %s for its adaptive target: %v; worker count left at %d until it answers", dc.Name, err, wg.Spec.Worker.Replicas)
		}
		return next, nil
	}
	r.unreachable.forget(req.NamespacedName)
	if a.Status.SchedulerTarget == nil || *a.Status.SchedulerTarget != target {
		a.Status.SchedulerTarget = new(target)
		a.Status.SchedulerTargetTime = &now
	}
	var last time.Time
	if a.Status.LastScaleTime != nil {
		last = a.Status.LastScaleTime.Time
	}
	// The group's replicas as they stand: before the autoscaler's first
	// change, the group's own; after it, its last choice within the
	// current bounds, which is what the cluster reconciler holds the group
	// at. (The group read from the cache may not show a choice applied yet,
	// and deciding from that would undo it.)
	current := wg.Spec.Worker.Replicas
	if a.Status.LastScaleTime != nil {
		current = clamp(a.Status.DesiredWorkers, a.Spec.Minimum, a.Spec.Maximum)
	}
	desired, why := decideScale(scaleInput{
		Current: current, Target: target,
		Minimum: a.Spec.Minimum, Maximum: a.Spec.Maximum,
		LastScale: last, Now: now.Time, CoolDown: opts.AutoscaleCoolDown,
	})
	if desired != current {
		a.Status.LastScaleTime = &metav1.MicroTime{Time: now.Time}
		a.Status.DesiredWorkers = desired
		// Written at once, and only if the autoscaler is still as read: a
		// reconcile on a cache that does not show the last change yet
		// would take that change again and restart its cool-down.
		if err := patchStatusFrom(ctx, &r.Deps, &a, orig, true); err != nil {
			a.Status = orig.Status // the deferred patch writes nothing
			if apierrors.IsConflict(errors.Unwrap(err)) {
				return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil
			}
			return ctrl.Result{}, err
		}
		orig = a.DeepCopy()
		r.event(&a, corev1.EventTypeNormal, "Scaled", "Scale", "%s: %d -> %d workers (scheduler target %d, bounds [%d, %d])", why, current, desired, target, a.Spec.Minimum, a.Spec.Maximum)
	}
	if a.Status.LastScaleTime != nil {
		// Also when bounds moved the count without a change of choice, so
		// that a raised maximum does not bring back a count chosen before.
		a.Status.DesiredWorkers = desired
	}
	return next, nil
}
