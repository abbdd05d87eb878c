package e2e

// The tests in this file re-express, against the real control plane, what
// dask-kubernetes' own controller tests
// (dask_kubernetes/operator/controller/tests/test_controller.py) assert and
// need no kubelet. Each test names the Dask test functions it stands for.
// The resources are this file's own, with the shapes of Dask's test
// resources (a cluster with labels and annotations on itself and on both
// templates, an additional worker group, a job).
//
// Left out, with why:
//   - test_operator_runs, test_operator_plugins: kopf's runner and its
//     plugin entry points; this operator has neither.
//   - test_recreate_scheduler_pod, test_recreate_worker_pods: a deleted pod
//     comes back through the Deployment and ReplicaSet controllers and a
//     kubelet, none of them this operator's (it makes Deployments, which
//     TestDaskSimpleCluster checks).
//   - test_simplecluster_batched_worker_deployments: Dask's
//     worker-allocation batch settings, which this operator does not have
//     (it creates the missing workers of a group in one reconcile).
//   - the Dask client parts of test_simplecluster and
//     test_scalesimplecluster*: computing on, and waiting for, live workers
//     needs pods; TestScaleRealScheduler and the *RealScheduler tests run
//     real Dask processes for that.
//   - test_object_dask_job: skipped in Dask itself ("Flaky in CI").
//   - test_retire_workers_lifo: a pure function; TestPickRetirees covers
//     this operator's choice (not ready first, then the newest).

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// Metadata Dask's tests put on their resources, and what must not reach
// the children.
var (
	compatLabels      = map[string]string{"test-label": "label-value"}
	compatAnnotations = map[string]string{
		"test-annotation":                                  "annotation-value",
		"kopf.zalando.org/foobar":                          "not for children",
		"kubectl.kubernetes.io":                            "not for children",
		"kubectl.kubernetes.io/last-applied-configuration": "{}",
	}
)

// compatPod is a pod spec with one container and one env entry.
func compatPod(name, env string, ports ...corev1.ContainerPort) corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{
		Name: name, Image: "ghcr.io/dask/dask:latest", Ports: ports,
		Env: []corev1.EnvVar{{Name: env, Value: "hello-world"}},
	}}}
}

// compatCluster is a DaskCluster shaped like Dask's simplecluster.yaml.
func compatCluster(ns, name string) *daskv1.DaskCluster {
	return &daskv1.DaskCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: compatLabels, Annotations: compatAnnotations},
		Spec: daskv1.DaskClusterSpec{
			Worker: daskv1.WorkerSpec{
				Replicas: 2,
				Metadata: daskv1.Metadata{Labels: map[string]string{"worker-sublabel": "label-value"}, Annotations: map[string]string{"worker-subannotation": "annotation-value"}},
				Spec:     compatPod("worker", "WORKER_ENV", corev1.ContainerPort{Name: "http-dashboard", ContainerPort: 8788}),
			},
			Scheduler: daskv1.SchedulerSpec{
				Metadata: daskv1.Metadata{Labels: map[string]string{"scheduler-sublabel": "label-value"}, Annotations: map[string]string{"scheduler-subannotation": "annotation-value"}},
				Spec:     compatPod("scheduler", "SCHEDULER_ENV", corev1.ContainerPort{Name: "tcp-comm", ContainerPort: 8786}, corev1.ContainerPort{Name: "http-dashboard", ContainerPort: 8787}),
				Service: corev1.ServiceSpec{
					Type:     corev1.ServiceTypeClusterIP,
					Selector: map[string]string{reconciler.LabelCluster: name, reconciler.LabelComponent: reconciler.ComponentScheduler},
					Ports: []corev1.ServicePort{
						{Name: "tcp-comm", Port: 8786, TargetPort: intstr.FromString("tcp-comm")},
						{Name: "http-dashboard", Port: 8787, TargetPort: intstr.FromString("http-dashboard")},
					},
				},
			},
		},
	}
}

// wantMeta checks one child's labels and annotations: the resource's own
// and sub's (the template's) inherited, the ignored ones not.
func wantMeta(t *testing.T, what string, labels, annotations map[string]string, sub ...string) {
	t.Helper()
	assertLabels(t, what, labels, compatLabels)
	if annotations["test-annotation"] != "annotation-value" {
		t.Errorf("%s: annotations %v lack test-annotation", what, annotations)
	}
	for k := range annotations {
		if strings.HasPrefix(k, "kopf.zalando.org") || strings.HasPrefix(k, "kubectl.kubernetes.io") {
			t.Errorf("%s: inherited %s", what, k)
		}
	}
	for _, s := range sub {
		if labels[s+"-sublabel"] != "label-value" || annotations[s+"-subannotation"] != "annotation-value" {
			t.Errorf("%s: the %s template's metadata is missing: labels %v, annotations %v", what, s, labels, annotations)
		}
	}
}

// getEventually waits until key can be read into obj.
func getEventually(t *testing.T, c client.Client, key client.ObjectKey, obj client.Object) {
	t.Helper()
	testenv.Eventually(t, timeout, fmt.Sprintf("%T %s", obj, key.Name), func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, key, obj)
		return err == nil, fmt.Sprint(err), nil
	})
}

// TestDaskCustomResources stands for test_customresources, and checks the
// short names Dask's CRDs declare (kubectl get djb, dsk, daskcluster,
// daskworkers) are served.
func TestDaskCustomResources(t *testing.T) {
	startOperator(t)
	dc, err := discovery.NewDiscoveryClientForConfig(restConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	list, err := dc.ServerResourcesForGroupVersion(daskv1.GroupVersion.String())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"daskclusters":     {"daskcluster", "dsk"},
		"daskjobs":         {"djb"},
		"daskworkergroups": {"daskworkers"},
		"daskautoscalers":  nil,
	}
	for _, r := range list.APIResources {
		if names, ok := want[r.Name]; ok {
			for _, n := range names {
				if !slices.Contains(r.ShortNames, n) {
					t.Errorf("%s: short names %v lack %s", r.Name, r.ShortNames, n)
				}
			}
			delete(want, r.Name)
		}
	}
	for name := range want {
		t.Errorf("%s not served", name)
	}
}

// TestDaskSimpleCluster stands for test_simplecluster (all but its Dask
// client) and test_object_dask_cluster: every child of a cluster carries
// the cluster's labels and annotations (not kopf's and kubectl's) and its
// template's, the user's env and Service selector stay, and the injected env
// is not repeated.
func TestDaskSimpleCluster(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)
	key := inNamespace(ns)
	if err := c.Create(t.Context(), compatCluster(ns, "simple")); err != nil {
		t.Fatal(err)
	}
	var sched appsv1.Deployment
	getEventually(t, c, key("simple-scheduler"), &sched)
	wantMeta(t, "scheduler Deployment", sched.Labels, sched.Annotations, "scheduler")
	wantMeta(t, "scheduler pod", sched.Spec.Template.Labels, sched.Spec.Template.Annotations, "scheduler")
	if env := sched.Spec.Template.Spec.Containers[0].Env; env[0].Name != "SCHEDULER_ENV" {
		t.Errorf("scheduler env[0] = %s, want SCHEDULER_ENV", env[0].Name)
	}
	if sched.Spec.Template.Labels[reconciler.LabelIstioInject] != "false" {
		t.Errorf("scheduler pod labels %v lack %s=false", sched.Spec.Template.Labels, reconciler.LabelIstioInject)
	}
	var svc corev1.Service
	getEventually(t, c, key("simple-scheduler"), &svc)
	wantMeta(t, "scheduler Service", svc.Labels, svc.Annotations, "scheduler")
	if want := compatCluster(ns, "simple").Spec.Scheduler.Service.Selector; !maps(svc.Spec.Selector, want) {
		t.Errorf("Service selector = %v, want the user's %v", svc.Spec.Selector, want)
	}

	var wgs daskv1.DaskWorkerGroupList
	testenv.Eventually(t, timeout, "the default worker group", func(ctx context.Context) (bool, string, error) {
		err := c.List(ctx, &wgs, client.InNamespace(ns), client.MatchingLabels{reconciler.LabelComponent: reconciler.ComponentWorkerGroup})
		return err == nil && len(wgs.Items) == 1, fmt.Sprint(err, len(wgs.Items)), nil
	})
	wg := wgs.Items[0]
	wantMeta(t, "default worker group", wg.Labels, wg.Annotations, "worker")

	for _, w := range waitWorkers(t, c, ns, "simple-default", 2) {
		wantMeta(t, w.Name, w.Labels, w.Annotations, "worker")
		wantMeta(t, w.Name+" pod", w.Spec.Template.Labels, w.Spec.Template.Annotations, "worker")
		env := w.Spec.Template.Spec.Containers[0].Env
		if env[0].Name != "WORKER_ENV" {
			t.Errorf("%s env[0] = %s, want WORKER_ENV", w.Name, env[0].Name)
		}
		var envNames []string
		for _, e := range env {
			envNames = append(envNames, e.Name)
		}
		sorted := slices.Clone(envNames)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(envNames) || !slices.Contains(envNames, reconciler.EnvWorkerName) || !slices.Contains(envNames, reconciler.EnvSchedulerAddress) {
			t.Errorf("%s env names %v: want each once, with %s and %s", w.Name, envNames, reconciler.EnvWorkerName, reconciler.EnvSchedulerAddress)
		}
	}
}

// maps reports whether a and b hold the same entries.
func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestDaskScaleCluster stands for test_scalesimplecluster (scaling the
// default DaskWorkerGroup) and test_scalesimplecluster_from_cluster_spec
// (scaling the DaskCluster), without the Dask client: the worker
// Deployments follow, 2 -> 5 -> 3 each way.
func TestDaskScaleCluster(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)
	key := inNamespace(ns)
	if err := c.Create(t.Context(), compatCluster(ns, "simple")); err != nil {
		t.Fatal(err)
	}
	waitWorkers(t, c, ns, "simple-default", 2)
	scale := func(obj client.Object, name string, n int32) {
		t.Helper()
		getEventually(t, c, key(name), obj)
		s := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: n}}
		if err := c.SubResource("scale").Update(t.Context(), obj, client.WithSubResourceBody(s)); err != nil {
			t.Fatalf("scaling %s to %d: %v", name, n, err)
		}
	}
	scale(&daskv1.DaskWorkerGroup{}, "simple-default", 5)
	waitWorkers(t, c, ns, "simple-default", 5)
	scale(&daskv1.DaskWorkerGroup{}, "simple-default", 3)
	waitWorkers(t, c, ns, "simple-default", 3)
	scale(&daskv1.DaskCluster{}, "simple", 5)
	waitWorkers(t, c, ns, "simple-default", 5)
	scale(&daskv1.DaskCluster{}, "simple", 3)
	waitWorkers(t, c, ns, "simple-default", 3)
}

// TestDaskAdditionalWorkerGroupAdopted stands for
// test_object_dask_worker_group, and for daskworkergroup_create's and
// daskautoscaler_create's adoption in Dask's controller: a worker group and
// an autoscaler a user creates for the cluster are adopted, and deleting
// the cluster deletes them and the group's workers (the garbage collector,
// kube-controller-manager's, cascades).
func TestDaskAdditionalWorkerGroupAdopted(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)
	key := inNamespace(ns)
	dc := compatCluster(ns, "simple")
	if err := c.Create(t.Context(), dc); err != nil {
		t.Fatal(err)
	}
	extra := &daskv1.DaskWorkerGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "simple-additional", Namespace: ns},
		Spec: daskv1.DaskWorkerGroupSpec{Cluster: "simple", Worker: daskv1.WorkerSpec{
			Replicas: 1,
			Spec:     compatPod("worker", "WORKER_ENV"),
		}},
	}
	extra.Spec.Worker.Spec.Containers[0].Env = append(extra.Spec.Worker.Spec.Containers[0].Env, corev1.EnvVar{Name: reconciler.EnvWorkerName, Value: "test-worker"})
	as := &daskv1.DaskAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "simple", Namespace: ns},
		Spec:       daskv1.DaskAutoscalerSpec{Cluster: "simple", Minimum: 2, Maximum: 2},
	}
	for _, o := range []client.Object{extra, as} {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}

	for group, name := range map[string]string{"simple-default": "", "simple-additional": "test-worker"} {
		n := 2
		if group == "simple-additional" {
			n = 1
		}
		for _, w := range waitWorkers(t, c, ns, group, n) {
			if w.Labels[reconciler.LabelCluster] != "simple" {
				t.Errorf("%s: label %s = %q", w.Name, reconciler.LabelCluster, w.Labels[reconciler.LabelCluster])
			}
			for _, e := range w.Spec.Template.Spec.Containers[0].Env {
				switch e.Name {
				case reconciler.EnvWorkerName:
					if want := cmpOr(name, w.Name); e.Value != want {
						t.Errorf("%s: %s = %q, want %q", w.Name, e.Name, e.Value, want)
					}
				case reconciler.EnvSchedulerAddress:
					if !strings.Contains(e.Value, "simple-scheduler."+ns) {
						t.Errorf("%s: %s = %q", w.Name, e.Name, e.Value)
					}
				}
			}
		}
	}
	// The cluster's own groups (by label) are the default one only.
	var wgs daskv1.DaskWorkerGroupList
	if err := c.List(t.Context(), &wgs, client.InNamespace(ns), client.MatchingLabels{reconciler.LabelCluster: "simple"}); err != nil || len(wgs.Items) != 1 {
		t.Errorf("worker groups labelled with the cluster: %d (%v), want 1", len(wgs.Items), err)
	}

	if err := c.Get(t.Context(), key("simple"), dc); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{&daskv1.DaskWorkerGroup{}, &daskv1.DaskAutoscaler{}} {
		name := "simple-additional"
		if _, ok := o.(*daskv1.DaskAutoscaler); ok {
			name = "simple"
		}
		testenv.Eventually(t, timeout, "adoption of "+name, func(ctx context.Context) (bool, string, error) {
			if err := c.Get(ctx, key(name), o); err != nil {
				return false, "", err
			}
			for _, r := range o.GetOwnerReferences() {
				if r.UID == dc.UID {
					return true, "", nil
				}
			}
			return false, fmt.Sprintf("owners %+v", o.GetOwnerReferences()), nil
		})
	}

	if err := c.Delete(t.Context(), dc, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, "adopted resources deleted with the cluster", func(ctx context.Context) (bool, string, error) {
		var left []string
		for _, o := range []client.Object{&daskv1.DaskWorkerGroup{}, &daskv1.DaskAutoscaler{}} {
			name := "simple-additional"
			if _, ok := o.(*daskv1.DaskAutoscaler); ok {
				name = "simple"
			}
			if err := c.Get(ctx, key(name), o); !apierrors.IsNotFound(err) {
				left = append(left, fmt.Sprintf("%T %s", o, name))
			}
		}
		var deps appsv1.DeploymentList
		if err := c.List(ctx, &deps, client.InNamespace(ns)); err != nil {
			return false, "", err
		}
		left = append(left, names(deps.Items)...)
		return len(left) == 0, fmt.Sprint(left), nil
	})
}

// cmpOr returns a, or b when a is empty.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestDaskClusterValidatesName stands for test_create_cluster_validates_name:
// a valid name's first phase is Created; a name over 53 characters or with
// dots gets phase Error and an event, and nothing is created.
func TestDaskClusterValidatesName(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)
	scheme, err := reconciler.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	wc, err := client.NewWithWatch(restConfig(t), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, phase string }{
		{"valid-name", daskv1.PhaseCreated},
		{strings.Repeat("a", 54), daskv1.PhaseError},
		{"invalid.chars.in.name", daskv1.PhaseError},
	} {
		t.Run(tc.name[:min(len(tc.name), 16)], func(t *testing.T) {
			w, err := wc.Watch(t.Context(), &daskv1.DaskClusterList{}, client.InNamespace(ns), client.MatchingFields{"metadata.name": tc.name})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if err := c.Create(t.Context(), compatCluster(ns, tc.name)); err != nil {
				t.Fatal(err)
			}
			first := ""
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error {
					t.Fatalf("watch: %+v", ev.Object)
				}
				if dc, ok := ev.Object.(*daskv1.DaskCluster); ok && dc.Status.Phase != "" {
					first = dc.Status.Phase
					break
				}
			}
			if first != tc.phase {
				t.Errorf("first phase %q, want %q", first, tc.phase)
			}
			if tc.phase != daskv1.PhaseError {
				return
			}
			waitEvent(t, c, ns, tc.name, "InvalidName")
			var deps appsv1.DeploymentList
			var svcs corev1.ServiceList
			if err := c.List(t.Context(), &deps, client.InNamespace(ns), client.MatchingLabels{reconciler.LabelCluster: tc.name}); err != nil {
				t.Fatal(err)
			}
			if err := c.List(t.Context(), &svcs, client.InNamespace(ns)); err != nil {
				t.Fatal(err)
			}
			for _, s := range svcs.Items {
				if strings.HasPrefix(s.Name, tc.name[:10]) {
					t.Errorf("Service %s created for an invalid cluster", s.Name)
				}
			}
			if len(deps.Items) > 0 {
				t.Errorf("Deployments %v created for an invalid cluster", names(deps.Items))
			}
		})
	}
}

// compatJob is a DaskJob shaped like Dask's simplejob.yaml, with the
// cluster's metadata on the job itself.
func compatJob(ns, name string) *daskv1.DaskJob {
	dc := compatCluster(ns, name)
	dc.Spec.Scheduler.Service.Selector = nil
	return &daskv1.DaskJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: compatLabels, Annotations: compatAnnotations},
		Spec: daskv1.DaskJobSpec{
			Job: daskv1.JobTemplate{
				Metadata: daskv1.Metadata{Labels: map[string]string{"job-sublabel": "label-value"}, Annotations: map[string]string{"job-subannotation": "annotation-value"}},
				Spec:     compatPod("job", "JOB_ENV"),
			},
			Cluster: daskv1.ClusterTemplate{Spec: dc.Spec},
		},
	}
}

// TestDaskCompatJob stands for test_job and test_failed_job (the kubelet's part,
// the runner pod's phase, is played by the test): status moves through
// ClusterCreated, Running and Successful or Failed with the names and times
// Dask's client reads; the finished job's cluster is deleted; the job's
// labels and annotations reach its cluster, the cluster's children and the
// runner pod, whose restartPolicy defaults to OnFailure.
func TestDaskCompatJob(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)
	key := inNamespace(ns)
	for _, tc := range []struct {
		name   string
		end    corev1.PodPhase
		status string
	}{
		{"simple-job", corev1.PodSucceeded, daskv1.JobSuccessful},
		{"failed-job", corev1.PodFailed, daskv1.JobFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := c.Create(t.Context(), compatJob(ns, tc.name)); err != nil {
				t.Fatal(err)
			}
			var dc daskv1.DaskCluster
			getEventually(t, c, key(tc.name), &dc)
			wantMeta(t, "job's cluster", dc.Labels, dc.Annotations)
			var sched appsv1.Deployment
			getEventually(t, c, key(tc.name+"-scheduler"), &sched)
			wantMeta(t, "job's scheduler pod", sched.Spec.Template.Labels, sched.Spec.Template.Annotations, "scheduler")
			for _, w := range waitWorkers(t, c, ns, tc.name+"-default", 2) {
				wantMeta(t, "job's worker pod", w.Spec.Template.Labels, w.Spec.Template.Annotations, "worker")
			}
			var pod corev1.Pod
			getEventually(t, c, key(tc.name+"-runner"), &pod)
			wantMeta(t, "runner pod", pod.Labels, pod.Annotations, "job")
			if pod.Spec.RestartPolicy != corev1.RestartPolicyOnFailure || pod.Labels[reconciler.LabelIstioInject] != "false" {
				t.Errorf("runner: restartPolicy %s, labels %v", pod.Spec.RestartPolicy, pod.Labels)
			}
			waitJobStatus(t, c, key(tc.name), daskv1.ClusterCreated)
			var job daskv1.DaskJob
			if err := c.Get(t.Context(), key(tc.name), &job); err != nil {
				t.Fatal(err)
			}
			if job.Status.ClusterName != tc.name || job.Status.JobRunnerPodName != tc.name+"-runner" {
				t.Errorf("status = %+v", job.Status)
			}
			setPodPhase(t, c, &pod, corev1.PodRunning)
			waitJobStatus(t, c, key(tc.name), daskv1.JobRunning)
			setPodPhase(t, c, &pod, tc.end)
			waitJobStatus(t, c, key(tc.name), tc.status)
			testenv.Eventually(t, timeout, "finished job's cluster deleted", func(ctx context.Context) (bool, string, error) {
				err := c.Get(ctx, key(tc.name), &daskv1.DaskCluster{})
				return apierrors.IsNotFound(err), fmt.Sprint(err), nil
			})
			if err := c.Get(t.Context(), key(tc.name), &job); err != nil {
				t.Fatal(err)
			}
			s := job.Status
			if s.StartTime == nil || s.EndTime == nil || s.EndTime.Before(s.StartTime) || s.ClusterName != tc.name || s.JobRunnerPodName != tc.name+"-runner" {
				t.Errorf("final status = %+v", s)
			}
		})
	}
}
