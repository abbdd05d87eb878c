package reconciler

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// This file runs the reconcilers against controller-runtime's fake client:
// the paths the e2e suite covers against a real apiserver (conflicts,
// adoption, retirement, idle deletion, metadata), in milliseconds and
// under -short. A stand-in scheduler (httptest) answers the HTTP API.

// fakeEnv is one fake apiserver with the operator's indexes and a recorder.
type fakeEnv struct {
	t      *testing.T
	c      client.WithWatch
	deps   Deps
	events *events.FakeRecorder
	uid    atomic.Int64
}

// newFakeEnv returns a fake client holding objs, whose creates get UIDs
// (as the apiserver gives them), with funcs intercepting its calls.
func newFakeEnv(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) *fakeEnv {
	t.Helper()
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	e := &fakeEnv{t: t, events: events.NewFakeRecorder(100)}
	create := funcs.Create
	funcs.Create = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if obj.GetUID() == "" {
			obj.SetUID(types.UID(fmt.Sprintf("uid-%d", e.uid.Add(1))))
		}
		if create != nil {
			return create(ctx, c, obj, opts...)
		}
		return c.Create(ctx, obj, opts...)
	}
	for _, o := range objs {
		if o.GetUID() == "" {
			o.SetUID(types.UID(fmt.Sprintf("uid-%d", e.uid.Add(1))))
		}
	}
	e.c = fake.NewClientBuilder().
		WithScheme(scheme).
		WithObjects(objs...).
		WithStatusSubresource(&daskv1.DaskCluster{}, &daskv1.DaskWorkerGroup{}, &daskv1.DaskJob{}, &daskv1.DaskAutoscaler{}, &appsv1.Deployment{}, &corev1.Service{}, &corev1.Pod{}).
		WithIndex(&daskv1.DaskAutoscaler{}, indexAutoscalerCluster, func(o client.Object) []string { return []string{o.(*daskv1.DaskAutoscaler).Spec.Cluster} }).
		WithIndex(&daskv1.DaskWorkerGroup{}, indexWorkerGroupCluster, func(o client.Object) []string { return []string{o.(*daskv1.DaskWorkerGroup).Spec.Cluster} }).
		WithInterceptorFuncs(funcs).
		Build()
	e.deps = Deps{Client: e.c, Scheme: scheme, Recorder: e.events}
	return e
}

// reconcile runs r once for the object named name and fails on an error.
func (e *fakeEnv) reconcile(r interface {
	Reconcile(context.Context, ctrl.Request) (ctrl.Result, error)
}, name string) ctrl.Result {
	e.t.Helper()
	res, err := r.Reconcile(e.t.Context(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: name}})
	if err != nil {
		e.t.Fatalf("Reconcile %s: %v", name, err)
	}
	return res
}

// get reads name into obj and fails when it is missing.
func (e *fakeEnv) get(name string, obj client.Object) {
	e.t.Helper()
	if err := e.c.Get(e.t.Context(), client.ObjectKey{Namespace: "ns", Name: name}, obj); err != nil {
		e.t.Fatalf("get %T %s: %v", obj, name, err)
	}
}

// drained returns the events recorded so far.
func (e *fakeEnv) drained() []string {
	var out []string
	for {
		select {
		case ev := <-e.events.Events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// testCluster is a DaskCluster shaped like Dask's simplecluster example:
// the resource's own labels and annotations (including ones children must
// not inherit), and labels on both templates.
func testCluster(name string) *daskv1.DaskCluster {
	pod := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "ghcr.io/dask/dask:latest", Env: []corev1.EnvVar{{Name: "USER_ENV", Value: "1"}}}}}
	return &daskv1.DaskCluster{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", Generation: 1,
			Labels: map[string]string{"test-label": "label-value"},
			Annotations: map[string]string{
				"test-annotation": "annotation-value",
				"kopf.zalando.org/last-handled-configuration":      "{}",
				"kubectl.kubernetes.io/last-applied-configuration": "{}",
			},
		},
		Spec: daskv1.DaskClusterSpec{
			Scheduler: daskv1.SchedulerSpec{
				Metadata: daskv1.Metadata{Labels: map[string]string{"scheduler-sublabel": "s"}, Annotations: map[string]string{"test-annotation": "scheduler-wins"}},
				Spec:     pod,
				Service:  corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: []corev1.ServicePort{{Name: "tcp-comm", Port: 8786}, {Name: "http-dashboard", Port: 8787}}},
			},
			Worker: daskv1.WorkerSpec{Replicas: 2, Metadata: daskv1.Metadata{Labels: map[string]string{"worker-sublabel": "w"}}, Spec: pod},
		},
	}
}

// wantInherited fails unless md carries the resource's label and
// annotation and none of the ignored annotations.
func wantInherited(t *testing.T, what string, labels, annotations map[string]string, annotation string) {
	t.Helper()
	if labels["test-label"] != "label-value" {
		t.Errorf("%s: labels %v lack test-label", what, labels)
	}
	if annotations["test-annotation"] != annotation {
		t.Errorf("%s: annotation test-annotation = %q, want %q", what, annotations["test-annotation"], annotation)
	}
	for k := range annotations {
		if strings.HasPrefix(k, "kopf.zalando.org") || strings.HasPrefix(k, "kubectl.kubernetes.io") {
			t.Errorf("%s: inherited ignored annotation %s", what, k)
		}
	}
}

func TestFakeClusterPropagatesMetadata(t *testing.T) {
	e := newFakeEnv(t, interceptor.Funcs{}, testCluster("simple"))
	cr := &ClusterReconciler{Deps: e.deps}
	e.reconcile(cr, "simple")

	var sched appsv1.Deployment
	e.get("simple-scheduler", &sched)
	wantInherited(t, "scheduler Deployment", sched.Labels, sched.Annotations, "scheduler-wins")
	wantInherited(t, "scheduler pod", sched.Spec.Template.Labels, sched.Spec.Template.Annotations, "scheduler-wins")
	if sched.Spec.Template.Labels["scheduler-sublabel"] != "s" || sched.Spec.Template.Labels[LabelIstioInject] != "false" {
		t.Errorf("scheduler pod labels = %v", sched.Spec.Template.Labels)
	}
	var svc corev1.Service
	e.get("simple-scheduler", &svc)
	wantInherited(t, "scheduler Service", svc.Labels, svc.Annotations, "scheduler-wins")
	var wg daskv1.DaskWorkerGroup
	e.get("simple-default", &wg)
	wantInherited(t, "default worker group", wg.Labels, wg.Annotations, "annotation-value")
	if wg.Labels["worker-sublabel"] != "w" || wg.Labels[LabelComponent] != ComponentWorkerGroup {
		t.Errorf("worker group labels = %v", wg.Labels)
	}

	cr, wr := &ClusterReconciler{Deps: e.deps}, &WorkerGroupReconciler{Deps: e.deps}
	e.reconcile(wr, "simple-default")
	var w appsv1.Deployment
	e.get("simple-default-worker-0", &w)
	wantInherited(t, "worker Deployment", w.Labels, w.Annotations, "annotation-value")
	wantInherited(t, "worker pod", w.Spec.Template.Labels, w.Spec.Template.Annotations, "annotation-value")
	if l := w.Spec.Template.Labels; l["worker-sublabel"] != "w" || l[LabelComponent] != ComponentWorker || l[LabelIstioInject] != "false" {
		t.Errorf("worker pod labels = %v", l)
	}
	if _, ok := w.Annotations[AnnotationSpecHash]; !ok || w.Annotations[AnnotationSpecHash] == wg.Annotations[AnnotationSpecHash] {
		t.Errorf("worker Deployment's spec hash must be its own: %v", w.Annotations)
	}

	// A steady state writes nothing more.
	writes := 0
	e2 := e.c
	counting := interceptor.NewClient(e2, interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			writes++
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			writes++
			return c.Patch(ctx, obj, p, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			writes++
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
	})
	d := e.deps
	d.Client = counting
	e.reconcile(cr, "simple") // takes in the group's status
	writes = 0
	e.reconcile(&ClusterReconciler{Deps: d}, "simple")
	e.reconcile(&WorkerGroupReconciler{Deps: d}, "simple-default")
	e.reconcile(&ClusterReconciler{Deps: d}, "simple")
	if writes != 0 {
		t.Errorf("steady reconciles wrote %d times, want 0", writes)
	}
}

func TestFakeJobPropagatesMetadata(t *testing.T) {
	dc := testCluster("job")
	job := &daskv1.DaskJob{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "ns", Labels: dc.Labels, Annotations: dc.Annotations},
		Spec: daskv1.DaskJobSpec{
			Job: daskv1.JobTemplate{
				Metadata: daskv1.Metadata{Labels: map[string]string{"runner-sublabel": "r"}},
				Spec:     corev1.PodSpec{Containers: []corev1.Container{{Name: "job", Image: "x"}}},
			},
			Cluster: daskv1.ClusterTemplate{Metadata: daskv1.Metadata{Labels: map[string]string{"cluster-sublabel": "c"}}, Spec: dc.Spec},
		},
	}
	never := job.DeepCopy()
	never.Name = "never"
	never.Spec.Job.Spec.RestartPolicy = corev1.RestartPolicyNever
	e := newFakeEnv(t, interceptor.Funcs{}, job, never)
	jr := &JobReconciler{Deps: e.deps}
	e.reconcile(jr, "job")
	e.reconcile(jr, "never")

	var got daskv1.DaskCluster
	e.get("job", &got)
	wantInherited(t, "job's cluster", got.Labels, got.Annotations, "annotation-value")
	if got.Labels["cluster-sublabel"] != "c" {
		t.Errorf("job's cluster labels = %v", got.Labels)
	}
	var pod corev1.Pod
	e.get("job-runner", &pod)
	wantInherited(t, "runner pod", pod.Labels, pod.Annotations, "annotation-value")
	if pod.Labels["runner-sublabel"] != "r" || pod.Labels[LabelIstioInject] != "false" || pod.Labels[LabelComponent] != ComponentJobRunner {
		t.Errorf("runner pod labels = %v", pod.Labels)
	}
	if pod.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("runner restartPolicy = %s, want OnFailure (the CRD's default, for objects stored before it)", pod.Spec.RestartPolicy)
	}
	e.get("never-runner", &pod)
	if pod.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("the user's restartPolicy Never became %s", pod.Spec.RestartPolicy)
	}
	var j daskv1.DaskJob
	e.get("job", &j)
	if j.Status.JobStatus != daskv1.ClusterCreated || j.Status.ClusterName != "job" || j.Status.JobRunnerPodName != "job-runner" {
		t.Errorf("job status = %+v", j.Status)
	}

	// The cluster built from the job hands the job's metadata on.
	e.reconcile(&ClusterReconciler{Deps: e.deps}, "job")
	var sched appsv1.Deployment
	e.get("job-scheduler", &sched)
	wantInherited(t, "job's scheduler pod", sched.Spec.Template.Labels, sched.Spec.Template.Annotations, "scheduler-wins")
	if _, ok := sched.Annotations[AnnotationSpecHash]; !ok || sched.Annotations[AnnotationSpecHash] == got.Annotations[AnnotationSpecHash] {
		t.Errorf("the cluster's spec hash leaked into its scheduler: %v", sched.Annotations)
	}
}

func TestFakeClusterInvalidName(t *testing.T) {
	for _, name := range []string{strings.Repeat("a", maxClusterName+1), "invalid.chars.in.name"} {
		t.Run(name[:min(len(name), 12)], func(t *testing.T) {
			e := newFakeEnv(t, interceptor.Funcs{}, testCluster(name))
			e.reconcile(&ClusterReconciler{Deps: e.deps}, name)
			var dc daskv1.DaskCluster
			e.get(name, &dc)
			if dc.Status.Phase != daskv1.PhaseError {
				t.Errorf("phase = %q, want Error", dc.Status.Phase)
			}
			var ds appsv1.DeploymentList
			var ss corev1.ServiceList
			var ws daskv1.DaskWorkerGroupList
			for _, l := range []client.ObjectList{&ds, &ss, &ws} {
				if err := e.c.List(t.Context(), l); err != nil {
					t.Fatal(err)
				}
			}
			if len(ds.Items)+len(ss.Items)+len(ws.Items) != 0 {
				t.Errorf("created %d Deployments, %d Services, %d worker groups for an invalid name", len(ds.Items), len(ss.Items), len(ws.Items))
			}
			evs := e.drained()
			if len(evs) == 0 || !strings.Contains(evs[0], "InvalidName") {
				t.Errorf("events = %v, want InvalidName", evs)
			}
			e.reconcile(&ClusterReconciler{Deps: e.deps}, name)
			if evs := e.drained(); len(evs) != 0 {
				t.Errorf("a second reconcile repeated events: %v", evs)
			}
		})
	}
	if err := validateClusterName(strings.Repeat("a", maxClusterName)); err != nil {
		t.Errorf("a %d-character name is valid for Dask: %v", maxClusterName, err)
	}
}

func TestFakeClusterPhases(t *testing.T) {
	lb := testCluster("lb")
	lb.Spec.Scheduler.Service.Type = corev1.ServiceTypeLoadBalancer
	var phases []string
	funcs := interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
		if dc, ok := obj.(*daskv1.DaskCluster); ok {
			phases = append(phases, dc.Status.Phase)
		}
		return c.SubResource(sub).Patch(ctx, obj, p, opts...)
	}}
	e := newFakeEnv(t, funcs, testCluster("simple"), lb)
	cr := &ClusterReconciler{Deps: e.deps}
	e.reconcile(cr, "simple")
	if want := []string{daskv1.PhaseCreated, daskv1.PhaseRunning}; fmt.Sprint(phases) != fmt.Sprint(want) {
		t.Errorf("ClusterIP cluster: phases written %v, want %v", phases, want)
	}
	var dc daskv1.DaskCluster
	e.get("simple", &dc)
	if c := meta.FindStatusCondition(dc.Status.Conditions, daskv1.ConditionSchedulerAvailable); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("SchedulerAvailable = %+v, want False", c)
	}

	phases = nil
	e.reconcile(cr, "lb")
	e.get("lb", &dc)
	if dc.Status.Phase != daskv1.PhasePending {
		t.Errorf("LoadBalancer without ingress: phase %s, want Pending", dc.Status.Phase)
	}
	var svc corev1.Service
	e.get("lb-scheduler", &svc)
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	if err := e.c.Status().Update(t.Context(), &svc); err != nil {
		t.Fatal(err)
	}
	var sched appsv1.Deployment
	e.get("lb-scheduler", &sched)
	sched.Status.AvailableReplicas = 1
	if err := e.c.Status().Update(t.Context(), &sched); err != nil {
		t.Fatal(err)
	}
	e.reconcile(cr, "lb")
	e.get("lb", &dc)
	if dc.Status.Phase != daskv1.PhaseRunning || !meta.IsStatusConditionTrue(dc.Status.Conditions, daskv1.ConditionSchedulerAvailable) {
		t.Errorf("LoadBalancer with ingress and available scheduler: phase %s, conditions %+v", dc.Status.Phase, dc.Status.Conditions)
	}
}

// TestFakeStatusOnError: a reconcile that fails half-way still writes the
// status it knows (phase, the scheduler's condition).
func TestFakeStatusOnError(t *testing.T) {
	funcs := interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if _, ok := obj.(*daskv1.DaskWorkerGroup); ok {
			return apierrors.NewForbidden(schema.GroupResource{Resource: "daskworkergroups"}, obj.GetName(), fmt.Errorf("quota"))
		}
		return c.Create(ctx, obj, opts...)
	}}
	e := newFakeEnv(t, funcs, testCluster("simple"))
	_, err := (&ClusterReconciler{Deps: e.deps}).Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "simple"}})
	if err == nil {
		t.Fatal("want the worker group's error")
	}
	var dc daskv1.DaskCluster
	e.get("simple", &dc)
	if dc.Status.Phase != daskv1.PhaseCreated || meta.FindStatusCondition(dc.Status.Conditions, daskv1.ConditionSchedulerAvailable) == nil {
		t.Errorf("status after a failed reconcile = %+v", dc.Status)
	}
}

// TestFakeUpdateConflict: an update that conflicts is retried on a fresh
// read, and lands.
func TestFakeUpdateConflict(t *testing.T) {
	conflicts := 0
	funcs := interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
		if _, ok := obj.(*appsv1.Deployment); ok && conflicts < 2 {
			conflicts++
			return apierrors.NewConflict(schema.GroupResource{Resource: "deployments"}, obj.GetName(), fmt.Errorf("stale"))
		}
		return c.Update(ctx, obj, opts...)
	}}
	e := newFakeEnv(t, funcs, testCluster("simple"))
	cr := &ClusterReconciler{Deps: e.deps}
	e.reconcile(cr, "simple")
	var dc daskv1.DaskCluster
	e.get("simple", &dc)
	dc.Spec.Scheduler.Spec.Containers[0].Image = "ghcr.io/dask/dask:2026.1.0"
	if err := e.c.Update(t.Context(), &dc); err != nil {
		t.Fatal(err)
	}
	e.reconcile(cr, "simple")
	var sched appsv1.Deployment
	e.get("simple-scheduler", &sched)
	if conflicts != 2 || sched.Spec.Template.Spec.Containers[0].Image != "ghcr.io/dask/dask:2026.1.0" {
		t.Errorf("after %d conflicts the scheduler image is %s", conflicts, sched.Spec.Template.Spec.Containers[0].Image)
	}
}

func TestFakeAdoption(t *testing.T) {
	extra := &daskv1.DaskWorkerGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "extra", Namespace: "ns"},
		Spec:       daskv1.DaskWorkerGroupSpec{Cluster: "simple", Worker: testCluster("simple").Spec.Worker},
	}
	as := &daskv1.DaskAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "as", Namespace: "ns"}, Spec: daskv1.DaskAutoscalerSpec{Cluster: "simple", Minimum: 1, Maximum: 3}}
	orphan := &daskv1.DaskWorkerGroup{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "ns"}, Spec: daskv1.DaskWorkerGroupSpec{Cluster: "absent", Worker: daskv1.WorkerSpec{Replicas: 1}}}
	e := newFakeEnv(t, interceptor.Funcs{}, testCluster("simple"), extra, as, orphan)
	e.reconcile(&ClusterReconciler{Deps: e.deps}, "simple")
	e.reconcile(&WorkerGroupReconciler{Deps: e.deps}, "extra")
	e.reconcile(&AutoscalerReconciler{Deps: e.deps}, "as")
	e.reconcile(&WorkerGroupReconciler{Deps: e.deps}, "orphan")

	var dc daskv1.DaskCluster
	e.get("simple", &dc)
	var wg daskv1.DaskWorkerGroup
	e.get("extra", &wg)
	if !metav1.IsControlledBy(&wg, &dc) {
		t.Errorf("extra worker group's owners = %+v, want the cluster", wg.OwnerReferences)
	}
	var a daskv1.DaskAutoscaler
	e.get("as", &a)
	if !metav1.IsControlledBy(&a, &dc) {
		t.Errorf("autoscaler's owners = %+v, want the cluster", a.OwnerReferences)
	}
	e.get("orphan", &wg)
	if len(wg.OwnerReferences) != 0 {
		t.Errorf("a group naming no existing cluster got owners %+v", wg.OwnerReferences)
	}
	// Its workers are created anyway, with the address of the cluster to come.
	var w appsv1.Deployment
	e.get("orphan-worker-0", &w)

	// Adoption is once: a second reconcile writes no owner again.
	e.get("extra", &wg)
	rv := wg.ResourceVersion
	e.reconcile(&WorkerGroupReconciler{Deps: e.deps}, "extra")
	e.get("extra", &wg)
	if wg.ResourceVersion != rv {
		t.Errorf("a second reconcile rewrote the adopted group")
	}
	// A group something else controls keeps that controller, and gets the
	// cluster as a plain owner.
	other := &daskv1.DaskWorkerGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "gitops", Namespace: "ns", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "app", UID: "cm-uid", Controller: new(true)}}},
		Spec:       daskv1.DaskWorkerGroupSpec{Cluster: "simple"},
	}
	if err := e.c.Create(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	e.reconcile(&WorkerGroupReconciler{Deps: e.deps}, "gitops")
	e.get("gitops", &wg)
	if len(wg.OwnerReferences) != 2 || metav1.GetControllerOf(&wg).UID != "cm-uid" {
		t.Errorf("owners = %+v", wg.OwnerReferences)
	}
}

// standIn is a stand-in scheduler: it lists workers, retires them on
// request, and says since when it is idle.
type standIn struct {
	workers   map[string]string // name -> address
	idleSince float64
	target    atomic.Int32 // the adaptive target
	retired   atomic.Int32
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api/v1/get_workers":
		var parts []string
		for name, addr := range s.workers {
			parts = append(parts, fmt.Sprintf(`{"name": %q, "address": %q}`, name, addr))
		}
		fmt.Fprintf(w, `{"workers": [%s]}`, strings.Join(parts, ","))
	case "/api/v1/retire_workers":
		var req struct{ Workers []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var parts []string
		for name, addr := range s.workers {
			if slices.Contains(req.Workers, addr) {
				parts = append(parts, fmt.Sprintf(`%q: {"name": %q}`, addr, name))
				delete(s.workers, name)
				s.retired.Add(1)
			}
		}
		fmt.Fprintf(w, `{%s}`, strings.Join(parts, ","))
	case "/api/v1/check_idle":
		fmt.Fprintf(w, `{"idle_since": %f}`, s.idleSince)
	case "/api/v1/adaptive_target":
		fmt.Fprintf(w, `{"workers": %d}`, s.target.Load())
	default:
		http.NotFound(w, r)
	}
}

func TestFakeRetirement(t *testing.T) {
	dc := testCluster("simple")
	dc.Spec.Worker.Replicas = 3
	e := newFakeEnv(t, interceptor.Funcs{}, dc)
	s := &standIn{workers: map[string]string{}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	e.deps.Scheduler = SchedulerOptions{URL: func(string, string) string { return srv.URL }, RetireTimeout: time.Hour}
	cr, wr := &ClusterReconciler{Deps: e.deps}, &WorkerGroupReconciler{Deps: e.deps}
	e.reconcile(cr, "simple")
	e.reconcile(wr, "simple-default")
	for i := range 3 {
		name := WorkerName("simple-default", i)
		s.workers[name] = fmt.Sprintf("tcp://10.0.0.%d:1234", i)
	}

	var got daskv1.DaskCluster
	e.get("simple", &got)
	got.Spec.Worker.Replicas = 1
	if err := e.c.Update(t.Context(), &got); err != nil {
		t.Fatal(err)
	}
	e.reconcile(cr, "simple")
	e.reconcile(wr, "simple-default")
	var list appsv1.DeploymentList
	if err := e.c.List(t.Context(), &list, client.MatchingLabels{LabelWorkerGroup: "simple-default"}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range list.Items {
		names = append(names, d.Name)
	}
	// The highest indices went, through the scheduler, in one reconcile.
	if fmt.Sprint(names) != "[simple-default-worker-0]" || s.retired.Load() != 2 {
		t.Errorf("workers left %v after %d retired, want [simple-default-worker-0] after 2", names, s.retired.Load())
	}
	var wg daskv1.DaskWorkerGroup
	e.get("simple-default", &wg)
	if wg.Status.Replicas != 1 {
		t.Errorf("status.replicas = %d, want 1", wg.Status.Replicas)
	}
}

func TestFakeIdleDeletion(t *testing.T) {
	dc := testCluster("idle")
	dc.Spec.IdleTimeout = 60
	e := newFakeEnv(t, interceptor.Funcs{}, dc)
	s := &standIn{idleSince: float64(time.Now().Add(-time.Hour).Unix())}
	srv := httptest.NewServer(s)
	defer srv.Close()
	e.deps.Scheduler = SchedulerOptions{URL: func(string, string) string { return srv.URL }}
	cr := &ClusterReconciler{Deps: e.deps}
	// Reconciled before the scheduler is available (not asked), then after.
	e.availableScheduler(cr, "idle")
	e.reconcile(cr, "idle") // asked: idle for an hour, past 60s
	var got daskv1.DaskCluster
	err := e.c.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "idle"}, &got)
	if !apierrors.IsNotFound(err) {
		t.Errorf("idle cluster still there (%v): %+v", err, got.Status)
	}
}

// TestFakeExternalNameRefused: the operator does not follow a scheduler
// Service of type ExternalName, whatever its target.
func TestFakeExternalNameRefused(t *testing.T) {
	dc := testCluster("ext")
	dc.Spec.Scheduler.Service = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "metadata.google.internal"}
	e := newFakeEnv(t, interceptor.Funcs{}, dc)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	e.deps.Scheduler = SchedulerOptions{URL: func(string, string) string { return srv.URL }}
	e.reconcile(&ClusterReconciler{Deps: e.deps}, "ext")
	if _, err := e.deps.schedulerFor(t.Context(), "ns", "ext"); err != ErrExternalName {
		t.Errorf("schedulerFor = %v, want ErrExternalName", err)
	}
	evs := fmt.Sprint(e.drained())
	if !strings.Contains(evs, "ExternalNameService") {
		t.Errorf("events %s lack ExternalNameService", evs)
	}
	if hits.Load() != 0 {
		t.Errorf("the stand-in was asked %d times", hits.Load())
	}
}

// TestFakeSlowSchedulerCoolsOff: a scheduler that uses up a whole call
// budget is not asked again during its cool-off, so it holds a reconcile
// worker once, not on every poll; another cluster's scheduler is still
// asked.
func TestFakeSlowSchedulerCoolsOff(t *testing.T) {
	var slowHits, fastHits atomic.Int32
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slowHits.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fastHits.Add(1)
		_, _ = w.Write([]byte(`{"workers": 2}`))
	}))
	defer fast.Close()

	var objs []client.Object
	for _, name := range []string{"slow", "fast"} {
		dc := testCluster(name)
		objs = append(objs, dc, &daskv1.DaskAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: daskv1.DaskAutoscalerSpec{Cluster: name, Minimum: 1, Maximum: 3}})
	}
	e := newFakeEnv(t, interceptor.Funcs{}, objs...)
	e.deps.Slow = &SlowSchedulers{}
	e.deps.Scheduler = SchedulerOptions{
		URL: func(_, cluster string) string {
			if cluster == "slow" {
				return slow.URL
			}
			return fast.URL
		},
		// Short, so the test is quick; nothing here depends on how short.
		Timeout: 20 * time.Millisecond, CallBudget: 50 * time.Millisecond, SlowCoolOff: time.Hour,
	}
	cr, ar := &ClusterReconciler{Deps: e.deps}, &AutoscalerReconciler{Deps: e.deps}
	for _, name := range []string{"slow", "fast"} {
		e.availableScheduler(cr, name)
	}
	for range 3 {
		e.reconcile(ar, "slow")
		e.reconcile(ar, "fast")
	}
	if n := slowHits.Load(); n == 0 || n > 3 {
		t.Errorf("the slow scheduler was asked %d times, want its first call's attempts only (1 to 3)", n)
	}
	if n := fastHits.Load(); n != 3 {
		t.Errorf("the fast scheduler was asked %d times, want 3", n)
	}
	var a daskv1.DaskAutoscaler
	e.get("fast", &a)
	if a.Status.SchedulerTarget == nil || *a.Status.SchedulerTarget != 2 {
		t.Errorf("fast autoscaler status = %+v", a.Status)
	}
}

// availableScheduler reconciles cluster name with cr, reports its scheduler
// Deployment available (no kubelet runs here), and reconciles it again.
func (e *fakeEnv) availableScheduler(cr *ClusterReconciler, name string) {
	e.t.Helper()
	e.reconcile(cr, name)
	var sched appsv1.Deployment
	e.get(SchedulerName(name), &sched)
	sched.Status.AvailableReplicas = 1
	if err := e.c.Status().Update(e.t.Context(), &sched); err != nil {
		e.t.Fatal(err)
	}
	e.reconcile(cr, name)
}

// groupReplicas returns the spec.worker.replicas of worker group name.
func (e *fakeEnv) groupReplicas(name string) int32 {
	e.t.Helper()
	var wg daskv1.DaskWorkerGroup
	e.get(name, &wg)
	return wg.Spec.Worker.Replicas
}

// TestFakeAutoscalerPacing: an idle group of 4 with adapt(1, 4) loses one
// worker per decision, not three at once; a decision inside the cool-down
// changes nothing; and each decision starts from the group's replicas as
// they stand, not from the cluster's spec.worker.replicas.
func TestFakeAutoscalerPacing(t *testing.T) {
	dc := testCluster("pace")
	dc.Spec.Worker.Replicas = 4
	as := &daskv1.DaskAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "pace", Namespace: "ns"}, Spec: daskv1.DaskAutoscalerSpec{Cluster: "pace", Minimum: 1, Maximum: 4}}
	e := newFakeEnv(t, interceptor.Funcs{}, dc, as)
	s := &standIn{} // idle: its adaptive target is 0
	srv := httptest.NewServer(s)
	defer srv.Close()
	// A cool-down no test run outlives: the test moves the last change
	// back in time instead of waiting.
	e.deps.Scheduler = SchedulerOptions{URL: func(string, string) string { return srv.URL }, AutoscaleCoolDown: time.Hour}
	cr, ar := &ClusterReconciler{Deps: e.deps}, &AutoscalerReconciler{Deps: e.deps}
	e.availableScheduler(cr, "pace")

	// coolDownOver moves the autoscaler's last change an hour and a
	// second back.
	coolDownOver := func() {
		var a daskv1.DaskAutoscaler
		e.get("pace", &a)
		a.Status.LastScaleTime = &metav1.MicroTime{Time: a.Status.LastScaleTime.Add(-time.Hour - time.Second)}
		if err := e.c.Status().Update(t.Context(), &a); err != nil {
			t.Fatal(err)
		}
	}
	var path []int32
	for step := range 3 {
		if step > 0 {
			// Inside the cool-down: the same count.
			e.reconcile(ar, "pace")
			e.reconcile(cr, "pace")
			if got := e.groupReplicas("pace-default"); got != path[len(path)-1] {
				t.Fatalf("inside the cool-down the group went %d -> %d", path[len(path)-1], got)
			}
			coolDownOver()
		}
		e.reconcile(ar, "pace")
		e.reconcile(cr, "pace")
		path = append(path, e.groupReplicas("pace-default"))
	}
	coolDownOver()
	e.reconcile(ar, "pace")
	e.reconcile(cr, "pace")
	path = append(path, e.groupReplicas("pace-default"))
	if !slices.Equal(path, []int32{3, 2, 1, 1}) {
		t.Errorf("an idle group of 4 went %v, want [3 2 1 1]: one worker per decision, down to the minimum", path)
	}
	if evs := fmt.Sprint(e.drained()); strings.Count(evs, "Scaled") != 3 {
		t.Errorf("events %s, want three Scaled", evs)
	}

	// A new autoscaler for a cluster that asks for 4 workers, whose group
	// was scaled directly to 3 (kubectl scale) and not yet set back: its
	// first decision starts from the group's 3 (one of 3 goes: 2), not
	// from the cluster's 4 (3).
	if err := e.c.Delete(t.Context(), as); err != nil {
		t.Fatal(err)
	}
	var wg daskv1.DaskWorkerGroup
	e.get("pace-default", &wg)
	wg.Spec.Worker.Replicas = 3
	if err := e.c.Update(t.Context(), &wg); err != nil {
		t.Fatal(err)
	}
	fresh := &daskv1.DaskAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "pace-2", Namespace: "ns"}, Spec: daskv1.DaskAutoscalerSpec{Cluster: "pace", Minimum: 1, Maximum: 4}}
	if err := e.c.Create(t.Context(), fresh); err != nil {
		t.Fatal(err)
	}
	e.reconcile(ar, "pace-2")
	var a daskv1.DaskAutoscaler
	e.get("pace-2", &a)
	if a.Status.DesiredWorkers != 2 {
		t.Errorf("from a group of 3, idle, the autoscaler chose %d, want 2", a.Status.DesiredWorkers)
	}
}

// TestFakeAutoscalerSkipsUnreachable: a round whose scheduler cannot be
// reached changes nothing (neither the autoscaler's choice nor the group,
// even when the cluster asks for more than the maximum) and says why in
// one event, not one per poll; once the scheduler answers, the count moves.
func TestFakeAutoscalerSkipsUnreachable(t *testing.T) {
	dc := testCluster("away")
	dc.Spec.Worker.Replicas = 5
	as := &daskv1.DaskAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "away", Namespace: "ns"}, Spec: daskv1.DaskAutoscalerSpec{Cluster: "away", Minimum: 1, Maximum: 3}}
	e := newFakeEnv(t, interceptor.Funcs{}, dc, as)
	s := &standIn{}
	s.target.Store(2)
	srv := httptest.NewServer(s)
	defer srv.Close()
	closed := closedURL(t)
	up := true
	e.deps.Scheduler = SchedulerOptions{URL: func(string, string) string {
		if up {
			return srv.URL
		}
		return closed
	}}
	cr, ar := &ClusterReconciler{Deps: e.deps}, &AutoscalerReconciler{Deps: e.deps}
	up = false
	e.availableScheduler(cr, "away")
	e.drained()
	for range 5 {
		e.reconcile(ar, "away")
		e.reconcile(cr, "away")
	}
	var a daskv1.DaskAutoscaler
	e.get("away", &a)
	if a.Status.LastScaleTime != nil || a.Status.DesiredWorkers != 0 || a.Status.SchedulerTarget != nil {
		t.Errorf("a round without the scheduler wrote status %+v", a.Status)
	}
	if got := e.groupReplicas("away-default"); got != 5 {
		t.Errorf("without the scheduler's word the group went 5 -> %d", got)
	}
	evs := e.drained()
	if n := strings.Count(fmt.Sprint(evs), "SchedulerUnreachable"); n != 1 {
		t.Errorf("%d SchedulerUnreachable events in five rounds, want 1: %v", n, evs)
	}
	up = true
	e.reconcile(ar, "away")
	e.reconcile(cr, "away")
	if got := e.groupReplicas("away-default"); got != 3 {
		t.Errorf("with the scheduler back the group of 5 is %d, want the maximum, 3", got)
	}
	// A new outage warns at once.
	up = false
	e.reconcile(ar, "away")
	if n := strings.Count(fmt.Sprint(e.drained()), "SchedulerUnreachable"); n != 1 {
		t.Errorf("a second outage recorded %d SchedulerUnreachable events, want 1", n)
	}
}

// closedURL returns the URL of a local port that was listening and no
// longer is: connecting to it is refused.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u
}

// kopfMarker is the finalizer kopf puts on objects with timers.
const kopfMarker = "kopf.zalando.org/KopfFinalizerMarker"

// TestFakeKopfFinalizerReleased: a DaskCluster and a DaskAutoscaler that
// Dask's operator (kopf) gave its finalizer, deleted after it was gone,
// keep it during the grace, lose it after (with an event), and so are
// deleted; another controller's finalizer stays.
func TestFakeKopfFinalizerReleased(t *testing.T) {
	long := metav1.NewTime(time.Now().Add(-2 * time.Hour))
	recent := metav1.NewTime(time.Now())
	gone := testCluster("gone")
	gone.Finalizers, gone.DeletionTimestamp = []string{kopfMarker}, &long
	shared := testCluster("shared")
	shared.Finalizers, shared.DeletionTimestamp = []string{kopfMarker, "example.com/backup"}, &long
	fresh := testCluster("fresh")
	fresh.Finalizers, fresh.DeletionTimestamp = []string{kopfMarker}, &recent
	as := &daskv1.DaskAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "gone", Namespace: "ns", Finalizers: []string{kopfMarker}, DeletionTimestamp: &long}, Spec: daskv1.DaskAutoscalerSpec{Cluster: "gone", Minimum: 1, Maximum: 2}}
	e := newFakeEnv(t, interceptor.Funcs{}, gone, shared, fresh, as)
	e.deps.KopfFinalizerGrace = time.Hour
	cr, ar := &ClusterReconciler{Deps: e.deps}, &AutoscalerReconciler{Deps: e.deps}

	e.reconcile(cr, "gone")
	e.reconcile(ar, "gone")
	for _, obj := range []client.Object{&daskv1.DaskCluster{}, &daskv1.DaskAutoscaler{}} {
		if err := e.c.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "gone"}, obj); !apierrors.IsNotFound(err) {
			t.Errorf("%T gone still there (%v), finalizers %v", obj, err, obj.GetFinalizers())
		}
	}
	e.reconcile(cr, "shared")
	var dc daskv1.DaskCluster
	e.get("shared", &dc)
	if !slices.Equal(dc.Finalizers, []string{"example.com/backup"}) {
		t.Errorf("finalizers left %v, want only example.com/backup", dc.Finalizers)
	}
	res := e.reconcile(cr, "fresh")
	e.get("fresh", &dc)
	if !slices.Equal(dc.Finalizers, []string{kopfMarker}) || res.RequeueAfter <= 0 || res.RequeueAfter > time.Hour {
		t.Errorf("inside the grace: finalizers %v, requeue after %s; want kopf's kept and a look again within the hour", dc.Finalizers, res.RequeueAfter)
	}
	if evs := fmt.Sprint(e.drained()); strings.Count(evs, "RemovedKopfFinalizer") != 3 {
		t.Errorf("events %s, want three RemovedKopfFinalizer", evs)
	}
}

// daskWorker is a worker Deployment as Dask's operator makes them for
// group wg: a random name, its labels, a controller reference to the
// group, no spec hash; available when ready.
func daskWorker(wg *daskv1.DaskWorkerGroup, suffix string, ready bool) *appsv1.Deployment {
	name := wg.Name + "-worker-" + suffix
	labels := map[string]string{LabelCluster: wg.Spec.Cluster, LabelWorkerGroup: wg.Name, LabelComponent: ComponentWorker}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: wg.Namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: daskv1.GroupVersion.String(), Kind: "DaskWorkerGroup", Name: wg.Name, UID: wg.UID, Controller: new(true), BlockOwnerDeletion: new(true)}},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: wg.Spec.Worker.Spec},
		},
	}
	if ready {
		d.Status.Replicas, d.Status.AvailableReplicas = 1, 1
	}
	return d
}

// TestFakeDaskWorkersAdopted: the two workers Dask's operator made for a
// group of 2 are adopted, not doubled: no worker of this operator's is
// made; scaling to 3 adds one; scaling to 1 retires Dask's two (through
// the scheduler) and keeps this operator's.
func TestFakeDaskWorkersAdopted(t *testing.T) {
	dc := testCluster("switch")
	dc.UID = "dc-uid"
	wg := defaultWorkerGroup(dc, 2)
	wg.UID = "wg-uid"
	wg.OwnerReferences = []metav1.OwnerReference{{APIVersion: daskv1.GroupVersion.String(), Kind: "DaskCluster", Name: dc.Name, UID: dc.UID, Controller: new(true), BlockOwnerDeletion: new(true)}}
	d1, d2 := daskWorker(wg, "4f1c2a9b0e", true), daskWorker(wg, "0b77de3a1c", true)
	e := newFakeEnv(t, interceptor.Funcs{}, dc, wg, d1, d2)
	s := &standIn{workers: map[string]string{d1.Name: "tcp://10.0.0.1:1234", d2.Name: "tcp://10.0.0.2:1234"}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	e.deps.Scheduler = SchedulerOptions{URL: func(string, string) string { return srv.URL }, RetireTimeout: time.Hour}
	cr, wr := &ClusterReconciler{Deps: e.deps}, &WorkerGroupReconciler{Deps: e.deps}

	workers := func() []string {
		var list appsv1.DeploymentList
		if err := e.c.List(t.Context(), &list, client.MatchingLabels{LabelWorkerGroup: wg.Name}); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range list.Items {
			out = append(out, d.Name)
		}
		slices.Sort(out)
		return out
	}
	// The cluster is the single writer of its default group's replicas.
	scale := func(n int32) {
		var got daskv1.DaskCluster
		e.get(dc.Name, &got)
		got.Spec.Worker.Replicas = n
		if err := e.c.Update(t.Context(), &got); err != nil {
			t.Fatal(err)
		}
		e.reconcile(cr, dc.Name)
	}

	e.reconcile(cr, dc.Name)
	e.reconcile(wr, wg.Name)
	if got, want := workers(), []string{d2.Name, d1.Name}; !slices.Equal(got, want) {
		t.Errorf("after the switch the group has %v, want Dask's two only", got)
	}
	var got daskv1.DaskWorkerGroup
	e.get(wg.Name, &got)
	if got.Status.Replicas != 2 || got.Status.ReadyReplicas != 2 {
		t.Errorf("status = %+v, want 2 replicas, 2 ready", got.Status)
	}

	scale(3)
	e.reconcile(wr, wg.Name)
	if got, want := workers(), []string{WorkerName(wg.Name, 0), d2.Name, d1.Name}; !slices.Equal(got, want) {
		t.Errorf("scaled to 3: %v, want Dask's two and one of this operator's", got)
	}

	// Once this operator's worker is up, scale-down takes Dask's first.
	var w0 appsv1.Deployment
	e.get(WorkerName(wg.Name, 0), &w0)
	w0.Status.Replicas, w0.Status.AvailableReplicas = 1, 1
	if err := e.c.Status().Update(t.Context(), &w0); err != nil {
		t.Fatal(err)
	}
	scale(1)
	e.reconcile(wr, wg.Name)
	if got, want := workers(), []string{WorkerName(wg.Name, 0)}; !slices.Equal(got, want) || s.retired.Load() != 2 {
		t.Errorf("scaled to 1: %v after %d retired by the scheduler, want %v after 2", got, s.retired.Load(), want)
	}
}

// TestFakeStaleDecisionNotWritten: a scale decision taken on an autoscaler
// that changed since it was read (the apiserver answers the locked status
// patch with a conflict) is not written, records no Scaled event, and is
// taken again on fresh state.
func TestFakeStaleDecisionNotWritten(t *testing.T) {
	dc := testCluster("stale")
	dc.Spec.Worker.Replicas = 4
	as := &daskv1.DaskAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "stale", Namespace: "ns"}, Spec: daskv1.DaskAutoscalerSpec{Cluster: "stale", Minimum: 1, Maximum: 4}}
	var conflicts atomic.Int32
	e := newFakeEnv(t, interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if _, ok := obj.(*daskv1.DaskAutoscaler); ok && conflicts.Add(1) == 1 {
				return apierrors.NewConflict(schema.GroupResource{Group: daskv1.GroupVersion.Group, Resource: "daskautoscalers"}, obj.GetName(), fmt.Errorf("changed"))
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	}, dc, as)
	s := &standIn{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	e.deps.Scheduler = SchedulerOptions{URL: func(string, string) string { return srv.URL }, AutoscaleCoolDown: time.Hour}
	cr, ar := &ClusterReconciler{Deps: e.deps}, &AutoscalerReconciler{Deps: e.deps}
	e.availableScheduler(cr, "stale")
	e.drained()

	res := e.reconcile(ar, "stale")
	var a daskv1.DaskAutoscaler
	e.get("stale", &a)
	if a.Status.LastScaleTime != nil || res.RequeueAfter <= 0 {
		t.Errorf("after a conflict: status %+v, requeue after %s; want nothing written and a retry", a.Status, res.RequeueAfter)
	}
	if evs := fmt.Sprint(e.drained()); strings.Contains(evs, "Scaled") {
		t.Errorf("a decision that was not written recorded %s", evs)
	}
	e.reconcile(ar, "stale")
	e.get("stale", &a)
	if a.Status.LastScaleTime == nil || a.Status.DesiredWorkers != 3 {
		t.Errorf("the retry wrote %+v, want 3 workers", a.Status)
	}
}
