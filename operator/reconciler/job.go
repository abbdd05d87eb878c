package reconciler

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// RBAC: a DaskJob creates its DaskCluster and deletes it once finished, and
// creates its runner Pod.
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskjobs,verbs=list;watch
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskjobs/status,verbs=patch
// +kubebuilder:rbac:groups=kubernetes.dask.org,resources=daskclusters,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=list;watch;create

// JobReconciler turns a DaskJob into a DaskCluster (named like the job) and
// a runner Pod, both controlled by the job. status.jobStatus follows the
// runner: ClusterCreated while it is pending, Running, then Successful or
// Failed; a finished job deletes its cluster.
type JobReconciler struct {
	Deps
}

// SetupWithManager registers the controller and its watches with mgr.
func (r *JobReconciler) SetupWithManager(mgr ctrl.Manager, opts ControllerOptions) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("daskjob").
		For(&daskv1.DaskJob{}).
		Owns(&daskv1.DaskCluster{}).
		Owns(&corev1.Pod{}).
		WithOptions(opts.controller()).
		Complete(r)
}

// Reconcile drives one DaskJob. Status is patched on every way out.
func (r *JobReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	var job daskv1.DaskJob
	if err := r.Client.Get(ctx, req.NamespacedName, &job); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !job.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	orig := job.DeepCopy()
	defer func() { err = errors.Join(err, patchStatus(ctx, &r.Deps, &job, orig)) }()
	done := job.Status.JobStatus == daskv1.JobSuccessful || job.Status.JobStatus == daskv1.JobFailed
	if done {
		return ctrl.Result{}, r.deleteCluster(ctx, &job)
	}

	if _, _, err := ensure(ctx, &r.Deps, &job, jobCluster(&job), func(existing, desired *daskv1.DaskCluster) { existing.Spec = desired.Spec }); err != nil {
		r.event(&job, corev1.EventTypeWarning, "FailedCreateCluster", "Reconcile", "cluster: %v", err)
		return ctrl.Result{}, err
	}
	job.Status.ClusterName = job.Name
	if job.Status.JobStatus == "" || job.Status.JobStatus == daskv1.JobCreated {
		job.Status.JobStatus = daskv1.ClusterCreated
	}

	// Pods are immutable in the parts we set: create once, never update.
	pod := runnerPod(&job)
	var runner corev1.Pod
	err = r.Client.Get(ctx, client.ObjectKeyFromObject(pod), &runner)
	switch {
	case apierrors.IsNotFound(err):
		if err := controllerutil.SetControllerReference(&job, pod, r.Scheme); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Client.Create(ctx, pod, client.FieldOwner(FieldOwner)); err != nil && !apierrors.IsAlreadyExists(err) {
			r.event(&job, corev1.EventTypeWarning, "FailedCreateRunner", "Reconcile", "runner pod: %v", err)
			return ctrl.Result{}, fmt.Errorf("creating runner pod: %w", err)
		}
		r.event(&job, corev1.EventTypeNormal, "CreatedRunner", "Reconcile", "created runner pod %s", pod.Name)
		runner = *pod
	case err != nil:
		return ctrl.Result{}, err
	}
	job.Status.JobRunnerPodName = runner.Name

	now := metav1.Now()
	switch runner.Status.Phase {
	case corev1.PodRunning:
		job.Status.JobStatus = daskv1.JobRunning
		if job.Status.StartTime == nil {
			job.Status.StartTime = &now
		}
	case corev1.PodSucceeded, corev1.PodFailed:
		job.Status.JobStatus = daskv1.JobSuccessful
		eventType := corev1.EventTypeNormal
		if runner.Status.Phase == corev1.PodFailed {
			job.Status.JobStatus = daskv1.JobFailed
			eventType = corev1.EventTypeWarning
		}
		if job.Status.StartTime == nil {
			job.Status.StartTime = &now
		}
		job.Status.EndTime = &now
		r.event(&job, eventType, job.Status.JobStatus, "Reconcile", "runner pod %s %s", runner.Name, runner.Status.Phase)
	}
	job.Status.ObservedGeneration = job.Generation
	if err := patchStatus(ctx, &r.Deps, &job, orig); err != nil {
		return ctrl.Result{}, err
	}
	orig = job.DeepCopy()
	if job.Status.JobStatus == daskv1.JobSuccessful || job.Status.JobStatus == daskv1.JobFailed {
		return ctrl.Result{}, r.deleteCluster(ctx, &job)
	}
	return ctrl.Result{}, nil
}

// deleteCluster removes a finished job's cluster, if it still has one.
func (r *JobReconciler) deleteCluster(ctx context.Context, job *daskv1.DaskJob) error {
	var dc daskv1.DaskCluster
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: job.Name}, &dc)
	if apierrors.IsNotFound(err) || (err == nil && (!metav1.IsControlledBy(&dc, job) || !dc.DeletionTimestamp.IsZero())) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := r.Client.Delete(ctx, &dc, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting cluster of finished job: %w", err)
	}
	return nil
}
