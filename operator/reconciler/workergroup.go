package reconciler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// RBAC: one Deployment per worker, deleted when the group scales down.
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskworkergroups,verbs=list;watch
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskworkergroups/status,verbs=patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;delete

// WorkerGroupReconciler turns a DaskWorkerGroup into one single-replica
// Deployment per worker, named <group>-worker-<i>, so that scaling down
// retires chosen workers (not ready first, then the newest) rather than
// whichever pod a ReplicaSet picks.
type WorkerGroupReconciler struct {
	Deps
}

// SetupWithManager registers the controller and its watches with mgr.
func (r *WorkerGroupReconciler) SetupWithManager(mgr ctrl.Manager, opts ControllerOptions) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("daskworkergroup").
		For(&daskv1.DaskWorkerGroup{}).
		Owns(&appsv1.Deployment{}).
		// The scheduler address comes from the cluster's Service spec.
		Watches(&daskv1.DaskCluster{}, handler.EnqueueRequestsFromMapFunc(namingCluster[daskv1.DaskWorkerGroupList](mgr.GetClient(), indexWorkerGroupCluster))).
		WithOptions(opts.controller()).
		Complete(r)
}

// Reconcile converges one worker group's Deployments on spec.worker.replicas.
// A group a user created for an existing cluster is first adopted by it
// (adopt), so that deleting the cluster deletes the group and its workers.
// Status is patched on every way out.
func (r *WorkerGroupReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	var wg daskv1.DaskWorkerGroup
	if err := r.Client.Get(ctx, req.NamespacedName, &wg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !wg.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	var dc *daskv1.DaskCluster
	var got daskv1.DaskCluster
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: wg.Namespace, Name: wg.Spec.Cluster}, &got); err == nil {
		dc = &got
	} else if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	if dc != nil && dc.DeletionTimestamp.IsZero() {
		if _, err := adopt(ctx, &r.Deps, dc, &wg); err != nil {
			if apierrors.IsConflict(err) {
				return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil
			}
			return ctrl.Result{}, err
		}
	}

	orig := wg.DeepCopy()
	defer func() { err = errors.Join(err, patchStatus(ctx, &r.Deps, &wg, orig)) }()
	want := int(max(wg.Spec.Worker.Replicas, 0))
	wg.Status.Selector = selectorString(workerGroupSelector(&wg))
	wg.Status.ObservedGeneration = wg.Generation

	var list appsv1.DeploymentList
	if err := r.Client.List(ctx, &list, client.InNamespace(wg.Namespace), client.MatchingLabels{LabelWorkerGroup: labelValue(wg.Name), LabelComponent: ComponentWorker}); err != nil {
		return ctrl.Result{}, err
	}
	current := map[int]*appsv1.Deployment{}
	// legacy: workers Dask's operator made for this group (adopted; see
	// isLegacyWorker), by name.
	legacy := map[string]*appsv1.Deployment{}
	var retiring []*appsv1.Deployment
	var infos []workerInfo
	for i := range list.Items {
		d := &list.Items[i]
		ref := metav1.GetControllerOfNoCopy(d)
		ours := ref != nil && (ref.UID == wg.UID || r.formerSelf(ref, &wg))
		if !ours || !d.DeletionTimestamp.IsZero() {
			continue
		}
		idx, ok := workerIndex(wg.Name, d.Name)
		old := isLegacyWorker(d)
		if !ok && !old {
			continue
		}
		if _, ok := retiringSince(d); ok {
			retiring = append(retiring, d)
			continue
		}
		if old {
			legacy[d.Name] = d
			infos = append(infos, workerInfo{Name: d.Name, Index: -1, Ready: d.Status.AvailableReplicas > 0, Legacy: true})
			continue
		}
		current[idx] = d
		infos = append(infos, workerInfo{Name: d.Name, Index: idx, Ready: d.Status.AvailableReplicas > 0})
	}
	wg.Status.Replicas = int32(len(current) + len(legacy))

	if excess := len(current) + len(legacy) - want; excess > 0 {
		now := time.Now().UTC().Format(time.RFC3339)
		for _, name := range pickRetirees(infos, excess) {
			d, old := legacy[name]
			idx, _ := workerIndex(wg.Name, name)
			if !old {
				d = current[idx]
			}
			if err := r.markRetiring(ctx, d, now); err != nil {
				if apierrors.IsConflict(err) {
					// Changed since the cache saw it; choose again on fresh state.
					return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil
				}
				r.event(&wg, corev1.EventTypeWarning, "FailedRetireWorker", "ScaleDown", "retiring %s: %v", name, err)
				return ctrl.Result{}, fmt.Errorf("retiring worker %s: %w", name, err)
			}
			retiring = append(retiring, d)
			if old {
				delete(legacy, name)
			} else {
				delete(current, idx)
			}
		}
	}

	if len(retiring) > 0 {
		wait, err := r.retire(ctx, &wg, retiring)
		if err != nil {
			return ctrl.Result{}, err
		}
		res.RequeueAfter = wait
	}

	used := map[int]bool{}
	for idx := range current {
		used[idx] = true
	}
	// A retiring worker's name stays taken until its Deployment is gone,
	// and so does an adopted worker's whose random suffix reads as an index.
	taken := maps.Clone(used)
	for _, d := range slices.Concat(retiring, slices.Collect(maps.Values(legacy))) {
		if idx, ok := workerIndex(wg.Name, d.Name); ok {
			taken[idx] = true
		}
	}
	indices := slices.Sorted(func(yield func(int) bool) {
		for idx := range current {
			if !yield(idx) {
				return
			}
		}
	})
	fresh := freeIndices(taken, want-len(current)-len(legacy))
	addr := SchedulerAddress(wg.Namespace, wg.Spec.Cluster, nil)
	var clusterLabels map[string]string
	if dc != nil {
		addr = SchedulerAddress(wg.Namespace, wg.Spec.Cluster, &dc.Spec.Scheduler.Service)
		clusterLabels = dc.Labels
	}

	var ready int32
	for _, idx := range append(indices, fresh...) {
		d, created, err := ensureWith(ctx, &r.Deps, &wg, workerDeployment(&wg, idx, addr, clusterLabels), copyDeployment, withWorkerDefaults)
		if err != nil {
			r.event(&wg, corev1.EventTypeWarning, "FailedCreateWorker", "ScaleUp", "worker %d: %v", idx, err)
			return ctrl.Result{}, err
		}
		if created && !used[idx] {
			r.event(&wg, corev1.EventTypeNormal, "CreatedWorker", "ScaleUp", "created worker %s", d.Name)
		}
		if d.Status.AvailableReplicas > 0 {
			ready++
		}
	}

	for _, d := range legacy {
		if d.Status.AvailableReplicas > 0 {
			ready++
		}
	}
	wg.Status.Replicas = int32(want)
	wg.Status.ReadyReplicas = ready
	return res, nil
}

// isLegacyWorker reports whether d, a worker Deployment its group controls,
// was made by Dask's operator (named <group>-worker-<10 hex>, without the
// spec hash every worker this operator makes carries). Such workers are
// adopted as they are, when switching from Dask's operator: they count
// towards the group's replicas (so the group does not run twice its
// workers), scale-down retires them before this operator's own, gracefully
// like those, and they are never rewritten.
func isLegacyWorker(d *appsv1.Deployment) bool {
	_, hashed := d.Annotations[AnnotationSpecHash]
	return !hashed
}

// AnnotationRetiring marks a worker Deployment chosen for scale-down with
// the time (RFC 3339) it was chosen. The operator asks the scheduler to
// retire the worker and deletes the Deployment once the scheduler no longer
// lists it, or after SchedulerOptions.RetireTimeout.
const AnnotationRetiring = "kubernetes.dask.org/retiring-since"

// retiringSince reads d's AnnotationRetiring.
func retiringSince(d *appsv1.Deployment) (time.Time, bool) {
	v, ok := d.Annotations[AnnotationRetiring]
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		// Unreadable: retire as if chosen long ago, i.e. without waiting.
		return time.Time{}, true
	}
	return t, true
}

// markRetiring sets d's AnnotationRetiring to now. It updates (the verb the
// operator's role already has for Deployments) with d's resourceVersion: a
// conflict fails the reconcile, which retries on fresh state.
func (r *WorkerGroupReconciler) markRetiring(ctx context.Context, d *appsv1.Deployment, now string) error {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[AnnotationRetiring] = now
	return r.Client.Update(ctx, d, client.FieldOwner(FieldOwner))
}

// retire moves each retiring worker towards deletion: it asks the cluster's
// scheduler which workers it knows, asks it to retire those it still lists
// (POST /api/v1/retire_workers, which returns once their results are copied
// to other workers), and deletes the Deployments the scheduler no longer
// lists, and those it has not retired within RetireTimeout (with a Warning
// event). It returns how soon to look again for the rest.
func (r *WorkerGroupReconciler) retire(ctx context.Context, wg *daskv1.DaskWorkerGroup, retiring []*appsv1.Deployment) (time.Duration, error) {
	opts := r.Scheduler.withDefaults()
	now := time.Now()
	listed := map[string]string{} // worker name -> address
	sc, lastErr := r.schedulerFor(ctx, wg.Namespace, wg.Spec.Cluster)
	var known []SchedulerWorker
	if lastErr == nil {
		lctx, cancel := r.schedulerBudget(ctx, wg.Namespace, wg.Spec.Cluster)
		known, lastErr = sc.Workers(lctx)
		cancel()
	}
	reached := lastErr == nil
	for _, w := range known {
		listed[w.Name] = w.Address
	}
	if reached {
		var addrs []string
		window := opts.RetireTimeout
		for _, d := range retiring {
			if addr, ok := listed[d.Name]; ok {
				addrs = append(addrs, addr)
				since, _ := retiringSince(d)
				window = min(window, since.Add(opts.RetireTimeout).Sub(now))
			}
		}
		if len(addrs) > 0 && window > 0 {
			rctx, cancel := context.WithTimeout(ctx, window)
			retired, err := sc.RetireWorkers(rctx, addrs, window)
			cancel()
			if err != nil {
				lastErr = err
			}
			for _, addr := range retired {
				for name, a := range listed {
					if a == addr {
						delete(listed, name)
					}
				}
			}
		}
	}
	var wait time.Duration
	for _, d := range retiring {
		since, _ := retiringSince(d)
		_, still := listed[d.Name]
		verdict := decideRetire(reached, still, since, now, opts.RetireTimeout)
		if verdict == retireWait {
			wait = time.Second
			continue
		}
		err := r.Client.Delete(ctx, d, client.Preconditions{UID: &d.UID})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			r.event(wg, corev1.EventTypeWarning, "FailedRetireWorker", "ScaleDown", "deleting %s: %v", d.Name, err)
			return 0, fmt.Errorf("deleting worker %s: %w", d.Name, err)
		}
		if verdict == retireDone {
			r.event(wg, corev1.EventTypeNormal, "RetiredWorker", "ScaleDown", "retired worker %s", d.Name)
			continue
		}
		why := "the scheduler still lists it"
		if lastErr != nil {
			why = lastErr.Error()
		}
		r.event(wg, corev1.EventTypeWarning, "RetireTimedOut", "ScaleDown",
			"deleted worker %s without a graceful retirement after %s (%s); results only it held are lost", d.Name, opts.RetireTimeout, why)
	}
	return wait, nil
}
