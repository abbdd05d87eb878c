package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

const timeout = 30 * time.Second

// TestCRDsEstablished installs the operator's CRDs twice (install, then
// upgrade in place) and checks every one is Established with the expected
// kinds, and keeps Kubernetes' descriptions.
func TestCRDsEstablished(t *testing.T) {
	c := startOperator(t)
	if err := reconciler.InstallCRDs(t.Context(), c, reconciler.EmbeddedCRDs(), time.Minute); err != nil {
		t.Fatalf("re-applying CRDs: %v", err)
	}
	for _, kind := range []string{"daskclusters", "daskworkergroups", "daskjobs", "daskautoscalers"} {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := c.Get(t.Context(), client.ObjectKey{Name: kind + ".kubernetes.dask.org"}, &crd); err != nil {
			t.Fatal(err)
		}
		ok := false
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s not Established: %+v", crd.Name, crd.Status.Conditions)
		}
		managers := []string{}
		for _, m := range crd.ManagedFields {
			managers = append(managers, m.Manager+"/"+string(m.Operation))
		}
		if !slices.Contains(managers, reconciler.FieldOwner+"/Apply") {
			t.Errorf("%s not server-side applied by %s: managers %v", crd.Name, reconciler.FieldOwner, managers)
		}
		// The operator's CRDs keep Kubernetes' descriptions (what `kubectl
		// explain` shows): a field of the embedded PodSpec is documented.
		if kind == "daskclusters" {
			spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			podSpec := spec.Properties["worker"].Properties["spec"]
			if d := podSpec.Properties["containers"].Description; !strings.Contains(d, "container") {
				t.Errorf("%s: spec.worker.spec.containers has description %q, want Kubernetes' own", crd.Name, d)
			}
		}
	}
}

// TestDaskClusterAcceptedUnchanged creates the rich example cluster with
// strict field validation (an unknown, i.e. pruned, field is an error) and
// reads it back: the spec must be exactly what was sent.
func TestDaskClusterAcceptedUnchanged(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)
	for _, file := range []string{"daskcluster.yaml", "daskworkergroup.yaml", "daskjob.yaml", "daskautoscaler.yaml"} {
		t.Run(file, func(t *testing.T) {
			u := readExample(t, file, ns)
			sent := u.DeepCopy()
			if err := c.Create(t.Context(), u, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
				t.Fatalf("apiserver rejected examples/%s: %v", file, err)
			}
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(u.GroupVersionKind())
			if err := c.Get(t.Context(), client.ObjectKeyFromObject(u), got); err != nil {
				t.Fatal(err)
			}
			// Strict validation already refused unknown fields; now every
			// field sent must come back with its value. The apiserver may
			// only add the defaults the schema declares (protocol: TCP,
			// idleTimeout: 0).
			assertContains(t, "spec read back", jsonRound(t, got.Object["spec"]), jsonRound(t, sent.Object["spec"]))
		})
	}
	// cpu: 1 is an int-or-string quantity given as a bare integer.
	var dc daskv1.DaskCluster
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "example"}, &dc); err != nil {
		t.Fatal(err)
	}
	if q := dc.Spec.Scheduler.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]; q.String() != "1" {
		t.Errorf("scheduler cpu request = %s, want 1", q.String())
	}
	if tp := dc.Spec.Scheduler.Service.Ports[0].TargetPort; tp.IntValue() != 8786 {
		t.Errorf("targetPort = %v, want 8786", tp)
	}
}

// TestInvalidDaskClusterRejected sends broken clusters; the apiserver must
// refuse each with a message naming the offending field.
func TestInvalidDaskClusterRejected(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)
	cases := []struct {
		name  string
		edit  func(spec map[string]any)
		field string
	}{
		{"replicas is a string", func(s map[string]any) { s["worker"].(map[string]any)["replicas"] = "many" }, "spec.worker.replicas"},
		{"negative replicas", func(s map[string]any) { s["worker"].(map[string]any)["replicas"] = int64(-1) }, "spec.worker.replicas"},
		{"no scheduler", func(s map[string]any) { delete(s, "scheduler") }, "spec.scheduler"},
		{"scheduler without service", func(s map[string]any) { delete(s["scheduler"].(map[string]any), "service") }, "spec.scheduler.service"},
		{"container without name", func(s map[string]any) {
			ctrs := s["worker"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
			delete(ctrs[0].(map[string]any), "name")
		}, "spec.worker.spec.containers[0].name"},
		{"port is an object", func(s map[string]any) {
			ports := s["scheduler"].(map[string]any)["service"].(map[string]any)["ports"].([]any)
			ports[0].(map[string]any)["port"] = map[string]any{"n": 1}
		}, "spec.scheduler.service.ports[0].port"},
		{"idleTimeout is a bool", func(s map[string]any) { s["idleTimeout"] = true }, "spec.idleTimeout"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := readExample(t, "daskcluster.yaml", ns)
			u.SetName(fmt.Sprintf("bad-%d", i))
			tc.edit(u.Object["spec"].(map[string]any))
			err := c.Create(t.Context(), u)
			if err == nil {
				t.Fatalf("apiserver accepted an invalid DaskCluster")
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want an Invalid error, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error does not name %s: %v", tc.field, err)
			}
			t.Logf("rejected: %v", err)
		})
	}
}

// TestReconcileDaskCluster follows one cluster through the operator:
// children with the user's pod spec intact, injected env and labels, owner
// references, phases, scaling both ways, retirement choice, recreation of
// deleted children, the scale subresource and autoscaler bounds.
func TestReconcileDaskCluster(t *testing.T) {
	c := startOperator(t)
	ctx := t.Context()
	ns, u := createExample(t, c, "daskcluster.yaml")
	var dc daskv1.DaskCluster
	if err := c.Get(ctx, client.ObjectKeyFromObject(u), &dc); err != nil {
		t.Fatal(err)
	}
	userSched := toMap(t, dc.Spec.Scheduler.Spec)
	userWorker := toMap(t, dc.Spec.Worker.Spec)
	userService := toMap(t, dc.Spec.Scheduler.Service)
	key := inNamespace(ns)

	// Scheduler Deployment: the user's pod spec, our labels, our owner.
	var sched appsv1.Deployment
	testenv.Eventually(t, timeout, "scheduler deployment", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, key("example-scheduler"), &sched)
		return err == nil, fmt.Sprint(err), nil
	})
	assertContains(t, "scheduler pod spec", toMap(t, sched.Spec.Template.Spec), userSched)
	assertLabels(t, "scheduler pod", sched.Spec.Template.Labels, map[string]string{
		reconciler.LabelCluster: "example", reconciler.LabelComponent: reconciler.ComponentScheduler, "team": "analytics",
	})
	if got := sched.Spec.Template.Annotations["prometheus.io/scrape"]; got != "true" {
		t.Errorf("scheduler pod annotation prometheus.io/scrape = %q", got)
	}
	assertOwner(t, &sched, "DaskCluster", dc.UID)

	var svc corev1.Service
	testenv.Eventually(t, timeout, "scheduler service", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, key("example-scheduler"), &svc)
		return err == nil, fmt.Sprint(err), nil
	})
	spec := toMap(t, svc.Spec)
	delete(userService, "selector")
	assertContains(t, "scheduler service spec", spec, userService)
	assertLabels(t, "service selector", svc.Spec.Selector, map[string]string{
		reconciler.LabelCluster: "example", reconciler.LabelComponent: reconciler.ComponentScheduler,
	})
	assertOwner(t, &svc, "DaskCluster", dc.UID)

	var wg daskv1.DaskWorkerGroup
	testenv.Eventually(t, timeout, "default worker group", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, key("example-default"), &wg)
		return err == nil, fmt.Sprint(err), nil
	})
	assertOwner(t, &wg, "DaskCluster", dc.UID)

	workers := waitWorkers(t, c, ns, "example-default", 2)
	for _, w := range workers {
		assertOwner(t, &w, "DaskWorkerGroup", wg.UID)
		assertLabels(t, w.Name, w.Spec.Template.Labels, map[string]string{
			reconciler.LabelCluster:     "example",
			reconciler.LabelWorkerGroup: "example-default",
			reconciler.LabelComponent:   reconciler.ComponentWorker,
			"team":                      "analytics",
		})
		if *w.Spec.Replicas != 1 {
			t.Errorf("%s has %d replicas, want 1", w.Name, *w.Spec.Replicas)
		}
		ps := toMap(t, w.Spec.Template.Spec)
		assertContains(t, w.Name+" pod spec", ps, userWorker)
		env := map[string]string{}
		for _, e := range w.Spec.Template.Spec.Containers[0].Env {
			env[e.Name] = e.Value
		}
		wantEnv := map[string]string{
			"EXTRA_PIP_PACKAGES":           "s3fs",
			reconciler.EnvSchedulerAddress: "tcp://example-scheduler." + ns + ".svc:8786",
			reconciler.EnvWorkerName:       w.Name,
		}
		for k, v := range wantEnv {
			if env[k] != v {
				t.Errorf("%s env %s = %q, want %q", w.Name, k, env[k], v)
			}
		}
	}

	// Phases, with Dask's meanings: Running once the scheduler Service is
	// usable (a ClusterIP one at once); the scheduler's availability is a
	// condition. No kubelet runs here, so the test plays its part and
	// writes the scheduler Deployment's status.
	waitPhase(t, c, key("example"), daskv1.PhaseRunning)
	waitEvent(t, c, ns, "example", daskv1.PhaseCreated)
	waitEvent(t, c, ns, "example", daskv1.PhaseRunning)
	waitCondition(t, c, key("example"), daskv1.ConditionSchedulerAvailable, metav1.ConditionFalse)
	markAvailable(t, c, &sched)
	waitCondition(t, c, key("example"), daskv1.ConditionSchedulerAvailable, metav1.ConditionTrue)

	// Scale up through spec, then down through the scale subresource.
	setReplicas(t, c, key("example"), 4)
	workers = waitWorkers(t, c, ns, "example-default", 4)
	if got := names(workers); !slices.Equal(got, []string{"example-default-worker-0", "example-default-worker-1", "example-default-worker-2", "example-default-worker-3"}) {
		t.Errorf("workers after scale-up: %v", got)
	}
	// Workers 0, 1 and 3 are up; 2 is not: scaling to 3 must retire 2.
	for _, w := range workers {
		if w.Name != "example-default-worker-2" {
			markAvailable(t, c, &w)
		}
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		scale := &autoscalingv1.Scale{}
		if err := c.SubResource("scale").Get(ctx, &dc, scale); err != nil {
			return err
		}
		if scale.Spec.Replicas != 4 {
			return fmt.Errorf("scale subresource reports %d replicas, want 4", scale.Spec.Replicas)
		}
		scale.Spec.Replicas = 3
		return c.SubResource("scale").Update(ctx, &dc, client.WithSubResourceBody(scale))
	})
	if err != nil {
		t.Fatalf("scaling through the scale subresource: %v", err)
	}
	workers = waitWorkers(t, c, ns, "example-default", 3)
	if got := names(workers); !slices.Equal(got, []string{"example-default-worker-0", "example-default-worker-1", "example-default-worker-3"}) {
		t.Errorf("scale-down retired the wrong worker; left: %v", got)
	}
	setReplicas(t, c, key("example"), 1)
	workers = waitWorkers(t, c, ns, "example-default", 1)
	if got := names(workers); !slices.Equal(got, []string{"example-default-worker-0"}) {
		t.Errorf("scale-down to 1 left %v, want the oldest ready worker", got)
	}
	testenv.Eventually(t, timeout, "worker group status", func(ctx context.Context) (bool, string, error) {
		var wg daskv1.DaskWorkerGroup
		if err := c.Get(ctx, key("example-default"), &wg); err != nil {
			return false, "", err
		}
		return wg.Status.Replicas == 1 && wg.Status.ReadyReplicas == 1 && wg.Status.Selector != "", fmt.Sprintf("%+v", wg.Status), nil
	})

	// Deleted children come back (new UIDs), still owned.
	oldUIDs := map[string]string{}
	for _, o := range []client.Object{
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "example-scheduler"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "example-scheduler"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "example-default-worker-0"}},
		&daskv1.DaskWorkerGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "example-default"}},
	} {
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
		oldUIDs[fmt.Sprintf("%T/%s", o, o.GetName())] = string(o.GetUID())
		if err := c.Delete(ctx, o); err != nil {
			t.Fatalf("deleting %s: %v", o.GetName(), err)
		}
		fresh := o.DeepCopyObject().(client.Object)
		testenv.Eventually(t, timeout, "recreating "+o.GetName(), func(ctx context.Context) (bool, string, error) {
			err := c.Get(ctx, client.ObjectKeyFromObject(o), fresh)
			if err != nil {
				return false, err.Error(), nil
			}
			return string(fresh.GetUID()) != oldUIDs[fmt.Sprintf("%T/%s", o, o.GetName())], "same UID", nil
		})
		if metav1.GetControllerOf(fresh) == nil {
			t.Errorf("recreated %s has no controller reference", fresh.GetName())
		}
	}

	// Autoscaler bounds: the default group stays within [2, 3], whatever
	// the scheduler (a stand-in) asks for.
	var target atomic.Int32
	target.Store(1)
	standIn := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/adaptive_target" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"workers": %d}`, target.Load())
	})
	schedulerURLs.Store(ns+"/example", standIn.URL)
	t.Cleanup(func() { schedulerURLs.Delete(ns + "/example") })
	if err := c.Get(ctx, key("example-scheduler"), &sched); err != nil {
		t.Fatal(err)
	}
	markAvailable(t, c, &sched)
	as := readExample(t, "daskautoscaler.yaml", ns)
	as.Object["spec"] = map[string]any{"cluster": "example", "minimum": int64(2), "maximum": int64(3)}
	if err := c.Create(ctx, as); err != nil {
		t.Fatal(err)
	}
	waitWorkers(t, c, ns, "example-default", 2) // the scheduler asks for 1
	setReplicas(t, c, key("example"), 10)
	target.Store(10)
	waitWorkers(t, c, ns, "example-default", 3) // the scheduler asks for 10
	testenv.Eventually(t, timeout, "autoscaler status", func(ctx context.Context) (bool, string, error) {
		var a daskv1.DaskAutoscaler
		if err := c.Get(ctx, key("example"), &a); err != nil {
			return false, "", err
		}
		return a.Status.DesiredWorkers == 3, fmt.Sprintf("%+v", a.Status), nil
	})
	// Bounds are enforced while they exist; the cluster's own count returns after.
	time.Sleep(500 * time.Millisecond)
	waitWorkers(t, c, ns, "example-default", 3)
	if err := c.Delete(ctx, as); err != nil {
		t.Fatal(err)
	}
	waitWorkers(t, c, ns, "example-default", 10)
}

// TestAutoscalerValidation: minimum above maximum is refused by the CRD's
// CEL rule, naming the rule's message.
func TestAutoscalerValidation(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)
	as := readExample(t, "daskautoscaler.yaml", ns)
	as.Object["spec"] = map[string]any{"cluster": "example", "minimum": int64(5), "maximum": int64(3)}
	err := c.Create(t.Context(), as)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "minimum must not exceed maximum") {
		t.Fatalf("want Invalid naming the bound, got %v", err)
	}
}

// TestDaskJob: a job makes its cluster and runner Pod; the runner's phase
// drives jobStatus; a finished job deletes its cluster.
func TestDaskJob(t *testing.T) {
	c := startOperator(t)
	ctx := t.Context()
	ns, u := createExample(t, c, "daskjob.yaml")
	var job daskv1.DaskJob
	if err := c.Get(ctx, client.ObjectKeyFromObject(u), &job); err != nil {
		t.Fatal(err)
	}
	key := inNamespace(ns)

	var dc daskv1.DaskCluster
	testenv.Eventually(t, timeout, "job cluster", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, key("example-job"), &dc)
		return err == nil, fmt.Sprint(err), nil
	})
	assertOwner(t, &dc, "DaskJob", job.UID)
	waitWorkers(t, c, ns, "example-job-default", 2)

	var pod corev1.Pod
	testenv.Eventually(t, timeout, "runner pod", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, key("example-job-runner"), &pod)
		return err == nil, fmt.Sprint(err), nil
	})
	assertOwner(t, &pod, "DaskJob", job.UID)
	if pod.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("runner restartPolicy = %s, want OnFailure (the CRD's default, as Dask's)", pod.Spec.RestartPolicy)
	}
	if got := pod.Spec.Containers[0].Env; len(got) != 1 || got[0].Value != "tcp://example-job-scheduler."+ns+".svc:8786" {
		t.Errorf("runner env = %+v", got)
	}
	waitJobStatus(t, c, key("example-job"), daskv1.ClusterCreated)

	setPodPhase(t, c, &pod, corev1.PodRunning)
	waitJobStatus(t, c, key("example-job"), daskv1.JobRunning)
	setPodPhase(t, c, &pod, corev1.PodSucceeded)
	waitJobStatus(t, c, key("example-job"), daskv1.JobSuccessful)
	testenv.Eventually(t, timeout, "finished job's cluster deleted", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, key("example-job"), &daskv1.DaskCluster{})
		return apierrors.IsNotFound(err), fmt.Sprint(err), nil
	})
	if err := c.Get(ctx, key("example-job"), &job); err != nil {
		t.Fatal(err)
	}
	if job.Status.StartTime == nil || job.Status.EndTime == nil || job.Status.JobRunnerPodName != "example-job-runner" {
		t.Errorf("job status incomplete: %+v", job.Status)
	}
}

// TestProbesAndMetrics: the operator serves /healthz, /readyz and
// Prometheus metrics that count its reconciles.
func TestProbesAndMetrics(t *testing.T) {
	startOperator(t)
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _ := httpGet(t, op.probeURL+path); code != http.StatusOK {
			t.Errorf("%s = %d", path, code)
		}
	}
	code, body := httpGet(t, op.metricsURL)
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	for _, want := range []string{`controller_runtime_reconcile_total{controller="daskcluster"`, `controller_runtime_reconcile_total{controller="daskworkergroup"`, "workqueue_depth"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// ---- helpers ----

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitWorkers waits until group has exactly n live worker Deployments and
// returns them sorted by name.
func waitWorkers(t *testing.T, c client.Client, ns, group string, n int) []appsv1.Deployment {
	t.Helper()
	var out []appsv1.Deployment
	testenv.Eventually(t, timeout, fmt.Sprintf("%d workers in %s", n, group), func(ctx context.Context) (bool, string, error) {
		var list appsv1.DeploymentList
		if err := c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{reconciler.LabelWorkerGroup: group}); err != nil {
			return false, "", err
		}
		out = out[:0]
		for _, d := range list.Items {
			if d.DeletionTimestamp.IsZero() {
				out = append(out, d)
			}
		}
		slices.SortFunc(out, func(a, b appsv1.Deployment) int { return strings.Compare(a.Name, b.Name) })
		return len(out) == n, fmt.Sprintf("have %v", names(out)), nil
	})
	return out
}

func names(ds []appsv1.Deployment) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	return out
}

func setReplicas(t *testing.T, c client.Client, key client.ObjectKey, n int32) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"spec":{"worker":{"replicas":%d}}}`, n)
	dc := &daskv1.DaskCluster{}
	dc.Namespace, dc.Name = key.Namespace, key.Name
	if err := c.Patch(t.Context(), dc, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		t.Fatalf("scaling %s to %d: %v", key.Name, n, err)
	}
}

// markAvailable plays the deployment controller and kubelet: it reports one
// available replica on d.
func markAvailable(t *testing.T, c client.Client, d *appsv1.Deployment) {
	t.Helper()
	base := d.DeepCopy()
	d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UpdatedReplicas = 1, 1, 1, 1
	d.Status.ObservedGeneration = d.Generation
	if err := c.Status().Patch(t.Context(), d, client.MergeFrom(base)); err != nil {
		t.Fatalf("marking %s available: %v", d.Name, err)
	}
}

// setPodPhase plays the kubelet for the runner pod.
func setPodPhase(t *testing.T, c client.Client, p *corev1.Pod, phase corev1.PodPhase) {
	t.Helper()
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	base := p.DeepCopy()
	p.Status.Phase = phase
	if err := c.Status().Patch(t.Context(), p, client.MergeFrom(base)); err != nil {
		t.Fatalf("setting %s phase %s: %v", p.Name, phase, err)
	}
}

func waitPhase(t *testing.T, c client.Client, key client.ObjectKey, phase string) {
	t.Helper()
	testenv.Eventually(t, timeout, "phase "+phase, func(ctx context.Context) (bool, string, error) {
		var dc daskv1.DaskCluster
		if err := c.Get(ctx, key, &dc); err != nil {
			return false, "", err
		}
		return dc.Status.Phase == phase, "phase " + dc.Status.Phase, nil
	})
}

// waitCondition waits until the cluster at key has condition typ in status.
func waitCondition(t *testing.T, c client.Client, key client.ObjectKey, typ string, status metav1.ConditionStatus) {
	t.Helper()
	testenv.Eventually(t, timeout, "condition "+typ+"="+string(status), func(ctx context.Context) (bool, string, error) {
		var dc daskv1.DaskCluster
		if err := c.Get(ctx, key, &dc); err != nil {
			return false, "", err
		}
		got := meta.FindStatusCondition(dc.Status.Conditions, typ)
		return got != nil && got.Status == status, fmt.Sprintf("conditions %+v", dc.Status.Conditions), nil
	})
}

func waitJobStatus(t *testing.T, c client.Client, key client.ObjectKey, status string) {
	t.Helper()
	testenv.Eventually(t, timeout, "job status "+status, func(ctx context.Context) (bool, string, error) {
		var j daskv1.DaskJob
		if err := c.Get(ctx, key, &j); err != nil {
			return false, "", err
		}
		return j.Status.JobStatus == status, "jobStatus " + j.Status.JobStatus, nil
	})
}

func waitEvent(t *testing.T, c client.Client, ns, regarding, reason string) {
	t.Helper()
	testenv.Eventually(t, timeout, "event "+reason, func(ctx context.Context) (bool, string, error) {
		var list eventsv1.EventList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, "", err
		}
		var seen []string
		for _, e := range list.Items {
			if e.Regarding.Name == regarding && e.Reason == reason {
				return true, "", nil
			}
			seen = append(seen, e.Regarding.Name+":"+e.Reason)
		}
		return false, fmt.Sprint(seen), nil
	})
}

func assertOwner(t *testing.T, o metav1.Object, kind string, uid any) {
	t.Helper()
	ref := metav1.GetControllerOf(o)
	if ref == nil || ref.Kind != kind || string(ref.UID) != fmt.Sprint(uid) || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("%s: controller reference %+v, want %s %v", o.GetName(), ref, kind, uid)
	}
}

func assertLabels(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: label %s = %q, want %q (all: %v)", what, k, got[k], v, got)
		}
	}
}

// assertContains checks that every field of want is in got with the same
// value: the apiserver may add defaults, but may not drop or change the
// user's fields. Lists must keep their elements in order; got may have more
// (injected env). Scalars compare by their printed form, so the quantity 1
// and "1" are equal.
func assertContains(t *testing.T, what string, got, want any) {
	t.Helper()
	if path, ok := contains(got, want, ""); !ok {
		t.Errorf("%s: user field %s lost or changed\nwant: %s\ngot:  %s", what, path, mustJSON(t, want), mustJSON(t, got))
	}
}

func contains(got, want any, path string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, v := range w {
			if p, ok := contains(g[k], v, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) < len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := contains(g[i], w[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	default:
		return path, fmt.Sprint(got) == fmt.Sprint(want)
	}
}

func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&v)
	if err == nil {
		return m
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	m = map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func jsonRound(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
