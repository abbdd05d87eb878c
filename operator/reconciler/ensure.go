package reconciler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// AnnotationSpecHash records, on every child, a hash of the content the
// operator last wrote. A child whose hash matches is left alone, so a
// reconcile that changes nothing makes no writes.
const AnnotationSpecHash = "kubernetes.dask.org/spec-hash"

// FieldOwner is the field manager name of every write the operator makes.
const FieldOwner = "dask-operator"

// Deps are what every reconciler needs. Client reads through the informer
// cache; APIReader reads the apiserver directly and is used to re-read an
// object after a write conflict (the cache may lag behind).
type Deps struct {
	Client    client.Client
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  events.EventRecorder
	// Scheduler says how to reach the Dask schedulers; zero fields take
	// SchedulerOptions' defaults.
	Scheduler SchedulerOptions
	// Slow, shared by the reconcilers, holds schedulers cooling off after
	// using up a CallBudget; nil remembers none.
	Slow *SlowSchedulers
	// KopfFinalizerGrace is how long after a deletion kopf's finalizer, left
	// by Dask's operator, may stay before it is removed (releaseKopf);
	// zero means DefaultKopfFinalizerGrace.
	KopfFinalizerGrace time.Duration
}

// ErrExternalName marks a scheduler Service of type ExternalName: its DNS
// name is a CNAME the cluster's creator chooses, so the operator, which
// runs with its own network position, does not talk to it.
var ErrExternalName = errors.New("the scheduler Service is of type ExternalName; the operator only reaches schedulers through a ClusterIP, NodePort, LoadBalancer or headless Service")

// errNoSchedulerService: the scheduler Service is not (yet) in the cache.
var errNoSchedulerService = errors.New("the scheduler Service does not exist yet")

// schedulerFor returns a client of the HTTP API of the scheduler of cluster
// in namespace. It reads the cluster's scheduler Service (through the
// cache) and refuses an ExternalName one (ErrExternalName). The address is
// SchedulerOptions.URL's when set, else the Service's cluster IP (never a
// DNS name the cluster's creator could point elsewhere), or, for a headless
// Service, its in-cluster DNS name, which resolves to its pods.
func (d *Deps) schedulerFor(ctx context.Context, namespace, cluster string) (*SchedulerClient, error) {
	var svc corev1.Service
	if err := d.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: SchedulerName(cluster)}, &svc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, errNoSchedulerService
		}
		return nil, err
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil, ErrExternalName
	}
	if d.Slow.slow(namespace+"/"+cluster, time.Now()) {
		return nil, errSchedulerSlow
	}
	o := d.Scheduler.withDefaults()
	url := ""
	if o.URL != nil {
		url = o.URL(namespace, cluster)
	}
	if url == "" {
		url = schedulerServiceURL(&svc)
	}
	return &SchedulerClient{BaseURL: url, Timeout: o.Timeout}, nil
}

// schedulerBudget bounds all scheduler calls of one reconcile of cluster
// in namespace (except a retirement, bounded by its own window), so that a
// slow scheduler holds a reconcile worker for at most CallBudget. The
// returned func ends the budget; a budget that ran out marks the scheduler
// slow (see slowSchedulers).
func (d *Deps) schedulerBudget(ctx context.Context, namespace, cluster string) (context.Context, func()) {
	ctx, cancel := context.WithTimeout(ctx, d.Scheduler.withDefaults().CallBudget)
	return ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			d.Slow.mark(namespace+"/"+cluster, time.Now().Add(d.Scheduler.withDefaults().SlowCoolOff))
		}
		cancel()
	}
}

// errSchedulerSlow: the scheduler used up a whole CallBudget recently and
// is not asked again until its cool-off ends.
var errSchedulerSlow = errors.New("the scheduler ran out of its time budget recently; not asked again before its cool-off ends")

// SlowSchedulers remembers schedulers whose calls used up a whole
// CallBudget, so that a stalling (or hostile) scheduler is not asked again
// for SchedulerOptions.SlowCoolOff: it then holds one reconcile worker for
// one budget per cool-off, and other clusters' reconciles go on. The zero
// value is ready; a nil *SlowSchedulers remembers nothing. It is safe for
// concurrent use.
type SlowSchedulers struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func (s *SlowSchedulers) mark(key string, until time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.until == nil {
		s.until = map[string]time.Time{}
	}
	s.until[key] = until
}

// slow reports whether key is cooling off at now, forgetting it after.
func (s *SlowSchedulers) slow(key string, now time.Time) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.until[key]
	if ok && !now.Before(t) {
		delete(s.until, key)
		return false
	}
	return ok
}

// reader returns the direct reader, falling back to the cached client.
func (d *Deps) reader() client.Reader {
	if d.APIReader != nil {
		return d.APIReader
	}
	return d.Client
}

// event records an event when a recorder is configured.
func (d *Deps) event(obj runtime.Object, eventType, reason, action, note string, args ...any) {
	if d.Recorder != nil {
		d.Recorder.Eventf(obj, nil, eventType, reason, action, note, args...)
	}
}

// specHash hashes obj's desired content (everything the operator sets).
func specHash(obj client.Object) (string, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", obj.GetName(), err)
	}
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 36), nil
}

// newLike returns a new zero object of obj's concrete type.
func newLike[T client.Object](obj T) T {
	return reflect.New(reflect.TypeOf(obj).Elem()).Interface().(T)
}

// ensure makes the child desired exist, controlled by owner. A missing child
// is created; an existing one whose hash differs from desired's is updated
// by copy (which moves desired's content into the existing object, keeping
// fields the apiserver allocated), retrying on conflicts. It reports whether
// it wrote, and returns the object as last seen.
func ensure[T client.Object](ctx context.Context, d *Deps, owner client.Object, desired T, copy func(existing, desired T)) (T, bool, error) {
	return ensureWith(ctx, d, owner, desired, copy, nil)
}

// ensureWith is ensure with unhashed, when not nil, applied to desired after
// its hash is taken: what it adds is written whenever the child is, but a
// child that differs only by it is left alone (so adding a default to the
// operator does not restart every running child).
func ensureWith[T client.Object](ctx context.Context, d *Deps, owner client.Object, desired T, copy func(existing, desired T), unhashed func(T)) (T, bool, error) {
	hash, err := specHash(desired)
	if err != nil {
		return desired, false, err
	}
	if unhashed != nil {
		unhashed(desired)
	}
	ann := desired.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[AnnotationSpecHash] = hash
	desired.SetAnnotations(ann)
	if err := controllerutil.SetControllerReference(owner, desired, d.Scheme); err != nil {
		return desired, false, err
	}

	existing := newLike(desired)
	err = d.Client.Get(ctx, client.ObjectKeyFromObject(desired), existing)
	switch {
	case apierrors.IsNotFound(err):
		if err := d.Client.Create(ctx, desired, client.FieldOwner(FieldOwner)); err != nil {
			if apierrors.IsAlreadyExists(err) {
				// The cache lags our own earlier create; the watch event brings us back.
				return desired, false, nil
			}
			return desired, false, fmt.Errorf("creating %T %s: %w", desired, desired.GetName(), err)
		}
		return desired, true, nil
	case err != nil:
		return desired, false, err
	}
	if existing.GetAnnotations()[AnnotationSpecHash] == hash && metav1.IsControlledBy(existing, owner) {
		return existing, false, nil
	}
	if other := metav1.GetControllerOfNoCopy(existing); other != nil && other.UID != owner.GetUID() && !d.formerSelf(other, owner) {
		return existing, false, fmt.Errorf("%T %s is controlled by %s %s, not by %s", existing, existing.GetName(), other.Kind, other.Name, owner.GetName())
	}

	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d.dropFormerSelf(existing, owner)
		copy(existing, desired)
		existing.SetLabels(merged(existing.GetLabels(), desired.GetLabels()))
		existing.SetAnnotations(merged(existing.GetAnnotations(), desired.GetAnnotations()))
		if err := controllerutil.SetControllerReference(owner, existing, d.Scheme); err != nil {
			return err
		}
		err := d.Client.Update(ctx, existing, client.FieldOwner(FieldOwner))
		if apierrors.IsConflict(err) {
			if gerr := d.reader().Get(ctx, client.ObjectKeyFromObject(desired), existing); gerr != nil {
				return gerr
			}
		}
		return err
	})
	if err != nil {
		return existing, false, fmt.Errorf("updating %T %s: %w", desired, desired.GetName(), err)
	}
	return existing, true, nil
}

// patchStatus writes obj's status when it differs from orig's: a merge
// patch of the status subresource holding only the status fields that
// changed (no resourceVersion, so no conflicts). It decides by itself
// whether anything changed, so every path out of a reconcile can call it
// (deferred); an object deleted meanwhile is no error.
func patchStatus(ctx context.Context, d *Deps, obj, orig client.Object) error {
	return patchStatusFrom(ctx, d, obj, orig, false)
}

// patchStatusFrom is patchStatus; locked makes the patch carry orig's
// resourceVersion, so that it fails with a conflict when obj changed since
// orig was read (a decision taken on a stale cache is not written).
func patchStatusFrom(ctx context.Context, d *Deps, obj, orig client.Object, locked bool) error {
	data, err := client.MergeFrom(orig).Data(obj)
	if err != nil {
		return fmt.Errorf("diffing the status of %s: %w", obj.GetName(), err)
	}
	var diff map[string]json.RawMessage
	if err := json.Unmarshal(data, &diff); err != nil {
		return fmt.Errorf("diffing the status of %s: %w", obj.GetName(), err)
	}
	st, ok := diff["status"]
	if !ok {
		return nil
	}
	body := map[string]any{"status": st}
	if locked {
		body["metadata"] = map[string]string{"resourceVersion": orig.GetResourceVersion()}
	}
	patch, err := json.Marshal(body)
	if err != nil {
		return err
	}
	if err := d.Client.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch), client.FieldOwner(FieldOwner)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("patching status of %s: %w", obj.GetName(), err)
	}
	return nil
}

// adopt makes owner an owner of obj (a DaskWorkerGroup or DaskAutoscaler a
// user created for an existing cluster), so that deleting the cluster
// deletes obj too, as Dask's operator does. obj gets a controller reference
// when nothing controls it yet, else a plain owner reference. The merge
// patch carries obj's resourceVersion: a concurrent change conflicts, and
// the caller retries on fresh state. It reports whether it wrote.
func adopt(ctx context.Context, d *Deps, owner, obj client.Object) (bool, error) {
	for _, r := range obj.GetOwnerReferences() {
		if r.UID == owner.GetUID() {
			return false, nil
		}
	}
	orig := obj.DeepCopyObject().(client.Object)
	d.dropFormerSelf(obj, owner)
	var err error
	if metav1.GetControllerOfNoCopy(obj) == nil {
		err = controllerutil.SetControllerReference(owner, obj, d.Scheme)
	} else {
		err = controllerutil.SetOwnerReference(owner, obj, d.Scheme)
	}
	if err != nil {
		return false, err
	}
	if err := d.Client.Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldOwner)); err != nil {
		return false, fmt.Errorf("adopting %s into cluster %s: %w", obj.GetName(), owner.GetName(), err)
	}
	return true, nil
}

// formerSelf reports whether ref names an earlier incarnation of owner: the
// same kind and name with another UID. Names are unique, so that object is
// gone; its children await garbage collection, and the new owner adopts
// them instead of failing (or racing the collector) forever.
func (d *Deps) formerSelf(ref *metav1.OwnerReference, owner client.Object) bool {
	gvk, err := apiutil.GVKForObject(owner, d.Scheme)
	if err != nil {
		return false
	}
	return ref.Kind == gvk.Kind && ref.Name == owner.GetName() && ref.UID != owner.GetUID() &&
		ref.APIVersion == gvk.GroupVersion().String()
}

// dropFormerSelf removes owner references to earlier incarnations of owner.
func (d *Deps) dropFormerSelf(obj, owner client.Object) {
	refs := obj.GetOwnerReferences()
	kept := refs[:0:0]
	for _, r := range refs {
		if !d.formerSelf(&r, owner) {
			kept = append(kept, r)
		}
	}
	if len(kept) != len(refs) {
		obj.SetOwnerReferences(kept)
	}
}
