package reconciler

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

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
		For(&DaskWorkerGroup{}).
		Owns(&appsv1.Deployment{}).
		// The scheduler address comes from the cluster's Service spec.
		Watches(&DaskCluster{}, handler.EnqueueRequestsFromMapFunc(namingCluster[DaskWorkerGroupList](mgr.GetClient(), indexWorkerGroupCluster))).
		WithOptions(opts.controller()).
		Complete(r)
}

// Reconcile converges one worker group's Deployments on spec.worker.replicas.
func (r *WorkerGroupReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var wg DaskWorkerGroup
	if err := r.Client.Get(ctx, req.NamespacedName, &wg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !wg.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	orig := wg.DeepCopy()
	want := int(max(wg.Spec.Worker.Replicas, 0))

	var list appsv1.DeploymentList
	if err := r.Client.List(ctx, &list, client.InNamespace(wg.Namespace), client.MatchingLabels{LabelWorkerGroup: wg.Name, LabelComponent: ComponentWorker}); err != nil {
		return ctrl.Result{}, err
	}
	current := map[int]*appsv1.Deployment{}
	var infos []workerInfo
	for i := range list.Items {
		d := &list.Items[i]
		idx, ok := workerIndex(wg.Name, d.Name)
		ref := metav1.GetControllerOfNoCopy(d)
		ours := ref != nil && (ref.UID == wg.UID || r.formerSelf(ref, &wg))
		if !ok || !ours || !d.DeletionTimestamp.IsZero() {
			continue
		}
		current[idx] = d
		infos = append(infos, workerInfo{Name: d.Name, Index: idx, Ready: d.Status.AvailableReplicas > 0})
	}

	if excess := len(current) - want; excess > 0 {
		for _, name := range pickRetirees(infos, excess) {
			idx, _ := workerIndex(wg.Name, name)
			d := current[idx]
			err := r.Client.Delete(ctx, d, client.Preconditions{UID: &d.UID})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				r.event(&wg, corev1.EventTypeWarning, "FailedRetireWorker", "ScaleDown", "retiring %s: %v", name, err)
				return ctrl.Result{}, fmt.Errorf("retiring worker %s: %w", name, err)
			}
			r.event(&wg, corev1.EventTypeNormal, "RetiredWorker", "ScaleDown", "retired worker %s", name)
			delete(current, idx)
		}
	}

	used := map[int]bool{}
	for idx := range current {
		used[idx] = true
	}
	indices := slices.Sorted(func(yield func(int) bool) {
		for idx := range current {
			if !yield(idx) {
				return
			}
		}
	})
	fresh := freeIndices(used, want-len(current))
	addr := r.schedulerAddress(ctx, &wg)

	var ready int32
	for _, idx := range append(indices, fresh...) {
		d, created, err := ensure(ctx, &r.Deps, &wg, workerDeployment(&wg, idx, addr), copyDeployment)
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

	wg.Status.Replicas = int32(want)
	wg.Status.ReadyReplicas = ready
	wg.Status.Selector = selectorString(workerGroupSelector(&wg))
	wg.Status.ObservedGeneration = wg.Generation
	return ctrl.Result{}, patchStatus(ctx, &r.Deps, &wg, orig, equality.Semantic.DeepEqual(orig.Status, wg.Status))
}

// schedulerAddress is the address of the group's cluster scheduler, using
// the cluster's Service spec when the cluster exists.
func (r *WorkerGroupReconciler) schedulerAddress(ctx context.Context, wg *DaskWorkerGroup) string {
	var dc DaskCluster
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: wg.Namespace, Name: wg.Spec.Cluster}, &dc); err != nil {
		return SchedulerAddress(wg.Namespace, wg.Spec.Cluster, nil)
	}
	return SchedulerAddress(wg.Namespace, wg.Spec.Cluster, &dc.Spec.Scheduler.Service)
}
