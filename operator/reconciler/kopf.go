package reconciler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// This file lets go of what Dask's operator, built on kopf, leaves on the
// resources it handled, once it is gone.

// kopfFinalizerPrefix starts the finalizer kopf (the framework of Dask's
// operator) puts on each object with a timer or daemon (in Dask's operator:
// DaskCluster's idle check and DaskAutoscaler's adapt timer),
// kopf.zalando.org/KopfFinalizerMarker, and removes once it has handled
// the object's deletion. This operator puts no finalizer of its own.
const kopfFinalizerPrefix = "kopf.zalando.org/"

// kopfFinalizers returns obj's finalizers that kopf put there.
func kopfFinalizers(obj client.Object) []string {
	var out []string
	for _, f := range obj.GetFinalizers() {
		if strings.HasPrefix(f, kopfFinalizerPrefix) {
			out = append(out, f)
		}
	}
	return out
}

// releaseKopf handles a deleted obj (DeletionTimestamp set): if kopf's
// finalizer is on it, it is removed grace after the deletion, with an event
// saying why, by write (an update or patch, whichever verb the operator's
// role has for the kind), which carries obj's resourceVersion: a conflict
// retries on fresh state. Other finalizers are left alone.
func releaseKopf(ctx context.Context, d *Deps, obj client.Object, write func(context.Context, client.Object) error) (ctrl.Result, error) {
	kopf := kopfFinalizers(obj)
	if len(kopf) == 0 {
		return ctrl.Result{}, nil
	}
	deletedAt := obj.GetDeletionTimestamp().Time
	grace := d.kopfGrace()
	remove, wait := decideKopfRelease(deletedAt, time.Now(), grace)
	if !remove {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	obj.SetFinalizers(slices.DeleteFunc(obj.GetFinalizers(), func(f string) bool { return slices.Contains(kopf, f) }))
	if err := write(ctx, obj); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil
		}
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("removing kopf's finalizer from %s: %w", obj.GetName(), err)
	}
	d.event(obj, corev1.EventTypeNormal, "RemovedKopfFinalizer", "Delete",
		"removed %s: deleted more than %s ago and no kopf operator (Dask's) released it, so none handles this object any more; without the removal its deletion would never finish",
		strings.Join(kopf, ", "), grace)
	return ctrl.Result{}, nil
}

// kopfGrace is KopfFinalizerGrace, or its default.
func (d *Deps) kopfGrace() time.Duration {
	if d.KopfFinalizerGrace > 0 {
		return d.KopfFinalizerGrace
	}
	return DefaultKopfFinalizerGrace
}

// DefaultKopfFinalizerGrace is how long after an object's deletion kopf's
// finalizer may stay before the operator removes it.
const DefaultKopfFinalizerGrace = time.Minute
