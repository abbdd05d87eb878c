package reconciler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// Field indexes: DaskAutoscalers and DaskWorkerGroups by spec.cluster.
const (
	indexAutoscalerCluster  = "spec.cluster"
	indexWorkerGroupCluster = "spec.cluster"
)

// RBAC (make generate writes the roles from these markers; the operator
// module's TestDeploy checks them against an audit log of a real run). A
// DaskCluster finished by its idle timeout is deleted; update removes kopf's
// finalizer from a deleted one. get re-reads a child after a write conflict
// (ensure); children are created and updated, never patched, but an adopted
// DaskWorkerGroup gets its owner reference by a patch (adopt).
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskclusters,verbs=get;list;watch;update;delete
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskclusters/status,verbs=patch
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskworkergroups,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskautoscalers,verbs=list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update
// Events go through events.k8s.io; a repeated one becomes a series (patch).
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// ClusterReconciler turns a DaskCluster into a scheduler Deployment, a
// scheduler Service and a default DaskWorkerGroup, all controlled by the
// cluster, and reports status.phase Created -> Pending -> Running (or Error
// for a name its children cannot carry), with Dask's meanings. It is the
// only writer of the default worker group's replicas: the cluster's
// spec.worker.replicas, or the choice of a DaskAutoscaler naming the
// cluster, clamped to its bounds (workerReplicas).
type ClusterReconciler struct {
	Deps

	// polls holds, per cluster, the last task counts of its scheduler, for
	// the idle-timeout fallback (decideIdleFromCounts). It lives in memory
	// only: after a restart the idle clock starts again, which delays a
	// deletion and never hastens one.
	mu    sync.Mutex
	polls map[client.ObjectKey]countsPoll
}

// countsPoll is one cluster's last task-count poll.
type countsPoll struct {
	uid    types.UID
	counts SchedulerCounts
}

// SetupWithManager registers the controller and its watches with mgr.
func (r *ClusterReconciler) SetupWithManager(mgr ctrl.Manager, opts ControllerOptions) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("daskcluster").
		For(&daskv1.DaskCluster{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Owns(&daskv1.DaskWorkerGroup{}).
		Watches(&daskv1.DaskAutoscaler{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			a := o.(*daskv1.DaskAutoscaler)
			return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: a.Namespace, Name: a.Spec.Cluster}}}
		})).
		WithOptions(opts.controller()).
		Complete(r)
}

// Reconcile brings one DaskCluster's children to their desired state. Its
// status is patched on every way out (patchStatus, deferred), so phase and
// counts are current exactly when something went wrong.
func (r *ClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	var dc daskv1.DaskCluster
	if err := r.Client.Get(ctx, req.NamespacedName, &dc); err != nil {
		if apierrors.IsNotFound(err) {
			r.swapPoll(req.NamespacedName, "", nil)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !dc.DeletionTimestamp.IsZero() {
		return releaseKopf(ctx, &r.Deps, &dc, func(ctx context.Context, o client.Object) error {
			return r.Client.Update(ctx, o, client.FieldOwner(FieldOwner))
		})
	}
	orig := dc.DeepCopy()
	defer func() {
		if orig.Status.Phase != dc.Status.Phase {
			r.event(&dc, corev1.EventTypeNormal, dc.Status.Phase, "Reconcile", "cluster is %s", dc.Status.Phase)
		}
		err = errors.Join(err, patchStatus(ctx, &r.Deps, &dc, orig))
	}()

	if verr := validateClusterName(dc.Name); verr != nil {
		// Names never change: nothing is created, and nothing retried.
		if dc.Status.Phase != daskv1.PhaseError {
			r.event(&dc, corev1.EventTypeWarning, "InvalidName", "Validate", "%v", verr)
		}
		dc.Status.Phase = daskv1.PhaseError
		return ctrl.Result{}, nil
	}
	if dc.Status.Phase == "" {
		// Accepted: Dask's clients wait for the operator to say so before
		// anything else.
		dc.Status.Phase = daskv1.PhaseCreated
		r.event(&dc, corev1.EventTypeNormal, dc.Status.Phase, "Reconcile", "cluster is %s", dc.Status.Phase)
		if err := patchStatus(ctx, &r.Deps, &dc, orig); err != nil {
			return ctrl.Result{}, err
		}
		orig = dc.DeepCopy()
	}

	sched, _, err := ensureWith(ctx, &r.Deps, &dc, schedulerDeployment(&dc), copyDeployment, withSchedulerAPI)
	if err != nil {
		r.event(&dc, corev1.EventTypeWarning, "FailedCreateScheduler", "Reconcile", "scheduler deployment: %v", err)
		return ctrl.Result{}, err
	}
	setCondition(&dc, daskv1.ConditionSchedulerAvailable, sched.Status.AvailableReplicas > 0, "DeploymentAvailable", "DeploymentUnavailable",
		"the scheduler Deployment has an available replica", "the scheduler Deployment has no available replica yet")
	svc, _, err := ensure(ctx, &r.Deps, &dc, schedulerService(&dc), copyService)
	if err != nil {
		r.event(&dc, corev1.EventTypeWarning, "FailedCreateService", "Reconcile", "scheduler service: %v", err)
		return ctrl.Result{}, err
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName && !hasCondition(orig, daskv1.ConditionSchedulerAvailable) {
		r.event(&dc, corev1.EventTypeWarning, "ExternalNameService", "Reconcile", "%v: scale-down is not graceful, and autoscaling and idle timeout do not work", ErrExternalName)
	}
	replicas, err := r.workerReplicas(ctx, &dc)
	if err != nil {
		return ctrl.Result{}, err
	}
	wg, _, err := ensure(ctx, &r.Deps, &dc, defaultWorkerGroup(&dc, replicas), copyWorkerGroup)
	if err != nil {
		r.event(&dc, corev1.EventTypeWarning, "FailedCreateWorkerGroup", "Reconcile", "default worker group: %v", err)
		return ctrl.Result{}, err
	}

	dc.Status.Phase = daskv1.PhasePending
	if serviceUsable(svc) {
		dc.Status.Phase = daskv1.PhaseRunning
	}
	dc.Status.Workers = wg.Status.Replicas
	dc.Status.ReadyWorkers = wg.Status.ReadyReplicas
	dc.Status.SchedulerAddress = SchedulerAddress(dc.Namespace, dc.Name, &dc.Spec.Scheduler.Service)
	dc.Status.ObservedGeneration = dc.Generation
	if dc.Spec.IdleTimeout > 0 {
		// A scheduler that is not available yet is not asked (and its
		// cluster not judged).
		if meta.IsStatusConditionTrue(dc.Status.Conditions, daskv1.ConditionSchedulerAvailable) {
			deleted, err := r.checkIdle(ctx, &dc)
			if deleted || err != nil {
				return ctrl.Result{}, err
			}
		}
		res.RequeueAfter = r.Scheduler.withDefaults().IdleCheckPeriod
	} else {
		dc.Status.IdleSince, dc.Status.IdleDetection = nil, ""
		r.swapPoll(req.NamespacedName, "", nil)
	}
	return res, nil
}

// serviceUsable reports whether clients can reach the scheduler through
// svc, as Dask's operator judges it for phase Running: any Service the
// apiserver has allocated, except a LoadBalancer without an ingress yet.
func serviceUsable(svc *corev1.Service) bool {
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		return len(svc.Status.LoadBalancer.Ingress) > 0
	}
	return svc.ResourceVersion != ""
}

// setCondition sets condition typ of dc's status to ok, with the reason and
// message of that state; an unchanged condition keeps its transition time
// (so a steady cluster's status does not change).
func setCondition(dc *daskv1.DaskCluster, typ string, ok bool, reasonTrue, reasonFalse, msgTrue, msgFalse string) {
	c := metav1.Condition{Type: typ, Status: metav1.ConditionFalse, Reason: reasonFalse, Message: msgFalse, ObservedGeneration: dc.Generation}
	if ok {
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, reasonTrue, msgTrue
	}
	meta.SetStatusCondition(&dc.Status.Conditions, c)
}

// hasCondition reports whether dc's status has condition typ at all.
func hasCondition(dc *daskv1.DaskCluster, typ string) bool {
	return meta.FindStatusCondition(dc.Status.Conditions, typ) != nil
}

// checkIdle asks dc's scheduler whether it is idle, records the answer in
// dc's status, and deletes dc (after an event) once it has been idle for
// longer than spec.idleTimeout. It uses the scheduler's check_idle where it
// exists, else the task-count fallback (IdleTaskCounts), else reports
// IdleUnsupported. An unreachable scheduler changes nothing: only a
// scheduler that says it is idle gets its cluster deleted.
func (r *ClusterReconciler) checkIdle(ctx context.Context, dc *daskv1.DaskCluster) (deleted bool, err error) {
	key := client.ObjectKeyFromObject(dc)
	sc, err := r.schedulerFor(ctx, dc.Namespace, dc.Name)
	if err != nil {
		// Unreachable (or refused): nothing changes.
		r.swapPoll(key, "", nil)
		return false, nil
	}
	ctx, cancel := r.schedulerBudget(ctx, dc.Namespace, dc.Name)
	defer cancel()
	// Status times have whole seconds; so do the decisions.
	now := time.Now().Truncate(time.Second)
	since, err := sc.IdleSince(ctx)
	switch {
	case err == nil:
		dc.Status.IdleDetection = daskv1.IdleCheckIdle
		r.swapPoll(key, "", nil)
	case errors.Is(err, ErrNotServed):
		counts, cerr := sc.Counts(ctx)
		switch {
		case cerr == nil:
			dc.Status.IdleDetection = daskv1.IdleTaskCounts
			var recorded *time.Time
			if dc.Status.IdleSince != nil {
				recorded = &dc.Status.IdleSince.Time
			}
			since = decideIdleFromCounts(idleInput{Counts: counts, Previous: r.swapPoll(key, dc.UID, &counts), IdleSince: recorded, Now: now})
		case errors.Is(cerr, ErrNotServed):
			if dc.Status.IdleDetection != daskv1.IdleUnsupported {
				r.event(dc, corev1.EventTypeWarning, "IdleTimeoutUnsupported", "IdleCheck",
					"spec.idleTimeout is ignored: the scheduler serves neither /api/v1/check_idle nor /json/counts.json (add distributed.http.scheduler.api or distributed.http.scheduler.json to %s)", EnvSchedulerHTTPRoutes)
			}
			dc.Status.IdleDetection, dc.Status.IdleSince = daskv1.IdleUnsupported, nil
			r.swapPoll(key, "", nil)
			return false, nil
		default:
			r.swapPoll(key, "", nil)
			return false, nil
		}
	default:
		r.swapPoll(key, "", nil)
		return false, nil
	}
	if since == nil {
		dc.Status.IdleSince = nil
	} else {
		t := metav1.NewTime(since.Truncate(time.Second))
		dc.Status.IdleSince = &t
	}
	timeout := time.Duration(dc.Spec.IdleTimeout) * time.Second
	if !idleExpired(since, now, timeout) {
		return false, nil
	}
	r.event(dc, corev1.EventTypeNormal, "IdleTimeout", "Delete", "scheduler idle since %s, longer than idleTimeout (%ds): deleting the cluster", since.UTC().Format(time.RFC3339), dc.Spec.IdleTimeout)
	if err := r.Client.Delete(ctx, dc, client.Preconditions{UID: &dc.UID}); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("deleting idle cluster %s: %w", dc.Name, err)
	}
	r.swapPoll(key, "", nil)
	return true, nil
}

// swapPoll records counts as key's last poll (forgets it when counts is
// nil) and returns the poll before, if it was of the same object.
func (r *ClusterReconciler) swapPoll(key client.ObjectKey, uid types.UID, counts *SchedulerCounts) *SchedulerCounts {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev, ok := r.polls[key]
	if counts == nil {
		delete(r.polls, key)
	} else {
		if r.polls == nil {
			r.polls = map[client.ObjectKey]countsPoll{}
		}
		r.polls[key] = countsPoll{uid: uid, counts: *counts}
	}
	if !ok || prev.uid != uid {
		return nil
	}
	return &prev.counts
}

// workerReplicas is the default worker group's size: the cluster's request,
// or, when a DaskAutoscaler names the cluster and has changed the count, the
// first one's (by name) choice (status.desiredWorkers), clamped to its
// bounds.
func (r *ClusterReconciler) workerReplicas(ctx context.Context, dc *daskv1.DaskCluster) (int32, error) {
	var list daskv1.DaskAutoscalerList
	if err := r.Client.List(ctx, &list, client.InNamespace(dc.Namespace), client.MatchingFields{indexAutoscalerCluster: dc.Name}); err != nil {
		if apierrors.IsNotFound(err) {
			return dc.Spec.Worker.Replicas, nil
		}
		return 0, err
	}
	if len(list.Items) == 0 {
		return dc.Spec.Worker.Replicas, nil
	}
	slices.SortFunc(list.Items, func(a, b daskv1.DaskAutoscaler) int { return strings.Compare(a.Name, b.Name) })
	a := list.Items[0]
	if len(list.Items) > 1 {
		r.event(dc, corev1.EventTypeWarning, "MultipleAutoscalers", "Scale", "%d autoscalers name this cluster; using %s", len(list.Items), a.Name)
	}
	if a.Status.LastScaleTime != nil {
		// The autoscaler's choice, within its current bounds (they may have
		// changed since it chose).
		return clamp(a.Status.DesiredWorkers, a.Spec.Minimum, a.Spec.Maximum), nil
	}
	// Until the autoscaler first changes the count (which needs its
	// scheduler's answer), the group stays as the cluster asks, as with
	// Dask's controller: a scheduler that never answers changes nothing.
	return dc.Spec.Worker.Replicas, nil
}

// copyDeployment moves the operator-owned parts of desired into existing;
// the selector is immutable and stays as created.
func copyDeployment(existing, desired *appsv1.Deployment) {
	existing.Spec.Replicas = desired.Spec.Replicas
	existing.Spec.Template = desired.Spec.Template
}

// copyService moves desired's spec into existing, keeping what the
// apiserver allocated (cluster IPs, IP families, node ports) unless the user
// asked for specific values.
func copyService(existing, desired *corev1.Service) {
	spec := desired.Spec.DeepCopy()
	if spec.ClusterIP == "" {
		spec.ClusterIP = existing.Spec.ClusterIP
		spec.ClusterIPs = existing.Spec.ClusterIPs
	}
	if len(spec.IPFamilies) == 0 {
		spec.IPFamilies = existing.Spec.IPFamilies
	}
	if spec.IPFamilyPolicy == nil {
		spec.IPFamilyPolicy = existing.Spec.IPFamilyPolicy
	}
	for i := range spec.Ports {
		if spec.Ports[i].NodePort != 0 {
			continue
		}
		for _, old := range existing.Spec.Ports {
			if old.Port == spec.Ports[i].Port && cmp.Or(old.Protocol, corev1.ProtocolTCP) == cmp.Or(spec.Ports[i].Protocol, corev1.ProtocolTCP) {
				spec.Ports[i].NodePort = old.NodePort
			}
		}
	}
	existing.Spec = *spec
}

// copyWorkerGroup moves desired's spec into existing.
func copyWorkerGroup(existing, desired *daskv1.DaskWorkerGroup) {
	existing.Spec = desired.Spec
}

// namingCluster maps a DaskCluster to requests for the objects of list type
// L in its namespace whose field index names the cluster.
func namingCluster[L any, PL interface {
	*L
	client.ObjectList
}](c client.Reader, index string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		list := PL(new(L))
		if err := c.List(ctx, list, client.InNamespace(o.GetNamespace()), client.MatchingFields{index: o.GetName()}); err != nil {
			return nil
		}
		var reqs []reconcile.Request
		_ = meta.EachListItem(list, func(item runtime.Object) error {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(item.(client.Object))})
			return nil
		})
		return reqs
	}
}
