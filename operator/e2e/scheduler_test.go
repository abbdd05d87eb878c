package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// smallCluster is a DaskCluster with one scheduler and one worker container
// and the Service ports of dask-kubernetes' examples.
func smallCluster(ns, name string, workers int32, schedulerEnv ...corev1.EnvVar) *daskv1.DaskCluster {
	return &daskv1.DaskCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: daskv1.DaskClusterSpec{
			Scheduler: daskv1.SchedulerSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "scheduler", Image: "ghcr.io/dask/dask:2024.12.1-py3.12", Args: []string{"dask-scheduler"}, Env: schedulerEnv,
				}}},
				Service: corev1.ServiceSpec{Ports: []corev1.ServicePort{
					{Name: "tcp-comm", Port: 8786, Protocol: corev1.ProtocolTCP},
					{Name: "http-dashboard", Port: 8787, Protocol: corev1.ProtocolTCP},
				}},
			},
			Worker: daskv1.WorkerSpec{Replicas: workers, Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "worker", Image: "ghcr.io/dask/dask:2024.12.1-py3.12", Args: []string{"dask-worker", "--name", "$(DASK_WORKER_NAME)"},
			}}}},
		},
	}
}

// waitListed waits until the scheduler lists exactly names.
func waitListed(t *testing.T, s *daskScheduler, names ...string) {
	t.Helper()
	slices.Sort(names)
	testenv.Eventually(t, 2*timeout, fmt.Sprintf("scheduler listing %v", names), func(ctx context.Context) (bool, string, error) {
		ws, err := s.workers(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		var got []string
		for n := range ws {
			got = append(got, n)
		}
		slices.Sort(got)
		return slices.Equal(got, names), fmt.Sprint(got), nil
	})
}

// eventReasons lists the reasons of the events about regarding in ns.
func eventReasons(t *testing.T, c client.Client, ns, regarding string) []string {
	t.Helper()
	var list eventsv1.EventList
	if err := c.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Name == regarding {
			out = append(out, e.Reason)
		}
	}
	return out
}

// TestAdaptiveScaleWithRealScheduler runs a real Dask scheduler and real
// workers for a DaskCluster with a DaskAutoscaler [1, 3]: a client's work
// makes the scheduler ask for more workers and the operator scales the
// default group up to the maximum; once the work is done it scales down,
// and every removed worker was retired by the scheduler (its results moved
// to the remaining worker: nothing recomputed) before its Deployment went.
// Then, with the scheduler stopped, scale-down of another group falls back
// to deleting after the retire timeout, with a Warning event.
func TestAdaptiveScaleWithRealScheduler(t *testing.T) {
	py := daskPython(t)
	c := startOperator(t)
	ctx := t.Context()
	ns := newNamespace(t, c)
	key := inNamespace(ns)
	if err := c.Create(ctx, smallCluster(ns, "adapt", 1)); err != nil {
		t.Fatal(err)
	}
	sched := startScheduler(t, c, py, ns, "adapt")

	// The operator turned the scheduler's HTTP API on: the process started
	// with the Deployment's env serves it.
	var sd appsv1.Deployment
	if err := c.Get(ctx, key(reconciler.SchedulerName("adapt")), &sd); err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, e := range sd.Spec.Template.Spec.Containers[0].Env {
		if e.Name == reconciler.EnvSchedulerHTTPRoutes {
			routes = append(routes, e.Value)
		}
	}
	if !slices.Equal(routes, []string{reconciler.DefaultSchedulerHTTPRoutes}) {
		t.Errorf("scheduler container %s = %v, want the default routes plus the API", reconciler.EnvSchedulerHTTPRoutes, routes)
	}
	if code, body := get(ctx, sched.http+"/api/v1/adaptive_target"); code != http.StatusOK {
		t.Fatalf("the scheduler does not serve its HTTP API: HTTP %d %s", code, body)
	}

	k := startKubelet(t, c, py, ns, sched)
	waitListed(t, sched, "adapt-default-worker-0")

	as := &daskv1.DaskAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "adapt"},
		Spec:       daskv1.DaskAutoscalerSpec{Cluster: "adapt", Minimum: 1, Maximum: 3},
	}
	if err := c.Create(ctx, as); err != nil {
		t.Fatal(err)
	}

	// Work: 30 one-second tasks on one single-threaded worker.
	cl := startClient(t, py, sched)
	cl.do(t, "submit 30 1")
	waitWorkers(t, c, ns, "adapt-default", 3)
	waitListed(t, sched, "adapt-default-worker-0", "adapt-default-worker-1", "adapt-default-worker-2")
	testenv.Eventually(t, timeout, "autoscaler status", func(ctx context.Context) (bool, string, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(as), as); err != nil {
			return false, "", err
		}
		st := as.Status
		return st.DesiredWorkers == 3 && st.SchedulerTarget != nil && st.SchedulerTargetTime != nil && st.LastScaleTime != nil, fmt.Sprintf("%+v", st), nil
	})
	// retire_workers moves results, not running tasks (distributed reruns
	// those elsewhere), so the test holds the group at 3 until the work is
	// done: then every result sits in a worker's memory, and each rerun
	// would be a result lost with its worker.
	setBounds(t, c, as, 3, 3)
	cl.do(t, "wait")
	setBounds(t, c, as, 1, 3)

	// Done: the target drops, the cool-down passes, two workers retire.
	workers := waitWorkers(t, c, ns, "adapt-default", 1)
	if got := names(workers); !slices.Equal(got, []string{"adapt-default-worker-0"}) {
		t.Errorf("scale-down kept %v, want the oldest worker", got)
	}
	testenv.Eventually(t, timeout, "retired workers stopped", func(context.Context) (bool, string, error) {
		return len(k.deleted()) == 2, fmt.Sprint(k.deleted()), nil
	})
	if most := k.most("adapt-default"); most != 3 {
		t.Errorf("the group peaked at %d workers, want the maximum, 3", most)
	}
	var deleted []string
	for _, g := range k.deleted() {
		deleted = append(deleted, g.name)
		if g.listed {
			t.Errorf("%s's Deployment was deleted while the scheduler still listed the worker: not retired first", g.name)
		}
	}
	slices.Sort(deleted)
	if !slices.Equal(deleted, []string{"adapt-default-worker-1", "adapt-default-worker-2"}) {
		t.Errorf("deleted %v, want workers 1 and 2 (the newest)", deleted)
	}
	res := cl.do(t, "gather")
	if res["values_ok"] != true || fmt.Sprint(res["reruns"]) != "[]" || res["ran"] != float64(30) {
		t.Errorf("results after scale-down: %v; want all 30 values, each task run once (none lost with its worker)", res)
	}
	ev := cl.do(t, "events")
	retired := fmt.Sprint(ev["retired"])
	for _, name := range deleted {
		if !strings.Contains(retired, name) {
			t.Errorf("the scheduler's event log has no retirement of %s; retired: %s", name, retired)
		}
	}
	waitEvent(t, c, ns, "adapt-default", "RetiredWorker")
	waitEvent(t, c, ns, "adapt", "Scaled")
	if r := eventReasons(t, c, ns, "adapt-default"); slices.Contains(r, "RetireTimedOut") {
		t.Errorf("a worker of the default group was deleted without retirement; events: %v", r)
	}

	// The scheduler stops; scale-down of a second group falls back.
	extra := &daskv1.DaskWorkerGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "adapt-extra"},
		Spec: daskv1.DaskWorkerGroupSpec{Cluster: "adapt", Worker: daskv1.WorkerSpec{
			Replicas: 2, Spec: smallCluster(ns, "x", 0).Spec.Worker.Spec,
		}},
	}
	if err := c.Create(ctx, extra); err != nil {
		t.Fatal(err)
	}
	waitListed(t, sched, "adapt-default-worker-0", "adapt-extra-worker-0", "adapt-extra-worker-1")
	k.pause()
	sched.stop()
	start := time.Now()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(extra), extra); err != nil {
			return err
		}
		extra.Spec.Worker.Replicas = 0
		return c.Update(ctx, extra)
	})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(t, c, ns, "adapt-extra", "RetireTimedOut")
	waitWorkers(t, c, ns, "adapt-extra", 0)
	// The retire-since annotation has whole seconds, hence the second off.
	if waited := time.Since(start); waited < retireTimeout-time.Second {
		t.Errorf("the fallback deleted the workers after %s, before the retire timeout (%s)", waited, retireTimeout)
	}
}

// setBounds sets a's minimum and maximum.
func setBounds(t *testing.T, c client.Client, a *daskv1.DaskAutoscaler, lo, hi int32) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(a), a); err != nil {
			return err
		}
		a.Spec.Minimum, a.Spec.Maximum = lo, hi
		return c.Update(t.Context(), a)
	})
	if err != nil {
		t.Fatalf("setting the bounds of %s: %v", a.Name, err)
	}
}

// TestIdleTimeoutWithRealScheduler: a cluster whose real scheduler is kept
// busy outlives its idleTimeout; once the work stops it is deleted, after
// an IdleTimeout event. The Debian scheduler (2022.12) has no check_idle,
// so this runs the task-count fallback.
func TestIdleTimeoutWithRealScheduler(t *testing.T) {
	py := daskPython(t)
	c := startOperator(t)
	ctx := t.Context()
	ns := newNamespace(t, c)
	dc := smallCluster(ns, "idle", 1)
	if err := c.Create(ctx, dc); err != nil {
		t.Fatal(err)
	}
	sched := startScheduler(t, c, py, ns, "idle")
	startKubelet(t, c, py, ns, sched)
	waitListed(t, sched, "idle-default-worker-0")
	cl := startClient(t, py, sched)

	// The timeout is set only now: setting up took longer than it.
	const idle = 3
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(dc), dc); err != nil {
			return err
		}
		dc.Spec.IdleTimeout = idle
		return c.Update(ctx, dc)
	})
	if err != nil {
		t.Fatal(err)
	}
	cl.do(t, fmt.Sprintf("busy %d", 3*idle))
	if err := c.Get(ctx, client.ObjectKeyFromObject(dc), dc); err != nil || !dc.DeletionTimestamp.IsZero() {
		t.Fatalf("a busy cluster was deleted for idleness (err %v, status %+v)", err, dc.Status)
	}
	if d := dc.Status.IdleDetection; d != daskv1.IdleTaskCounts && d != daskv1.IdleCheckIdle {
		t.Errorf("status.idleDetection = %q, want %s (or %s on a newer distributed)", d, daskv1.IdleTaskCounts, daskv1.IdleCheckIdle)
	}
	testenv.Eventually(t, 2*timeout, "idle cluster deleted", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(dc), dc)
		return apierrors.IsNotFound(err), fmt.Sprintf("%v %+v", err, dc.Status), nil
	})
	waitEvent(t, c, ns, "idle", "IdleTimeout")
}

// TestIdleTimeoutUnsupported: a user who sets the scheduler's HTTP routes
// keeps them; when they serve neither check_idle nor the task counts, the
// status and a Warning event say idle timeout is unsupported, and the
// cluster stays.
func TestIdleTimeoutUnsupported(t *testing.T) {
	py := daskPython(t)
	c := startOperator(t)
	ctx := t.Context()
	ns := newNamespace(t, c)
	user := `["distributed.http.health"]`
	dc := smallCluster(ns, "bare", 0, corev1.EnvVar{Name: reconciler.EnvSchedulerHTTPRoutes, Value: user})
	dc.Spec.IdleTimeout = 1
	if err := c.Create(ctx, dc); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, c, py, ns, "bare")
	var sd appsv1.Deployment
	if err := c.Get(ctx, inNamespace(ns)(reconciler.SchedulerName("bare")), &sd); err != nil {
		t.Fatal(err)
	}
	if env := sd.Spec.Template.Spec.Containers[0].Env; len(env) != 1 || env[0].Value != user {
		t.Errorf("the user's %s was not kept as the only entry: %v", reconciler.EnvSchedulerHTTPRoutes, env)
	}
	waitEvent(t, c, ns, "bare", "IdleTimeoutUnsupported")
	testenv.Eventually(t, timeout, "status.idleDetection", func(ctx context.Context) (bool, string, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(dc), dc); err != nil {
			return false, "", err
		}
		return dc.Status.IdleDetection == daskv1.IdleUnsupported, fmt.Sprintf("%+v", dc.Status), nil
	})
	if !dc.DeletionTimestamp.IsZero() {
		t.Error("a cluster whose idleness cannot be checked was deleted")
	}
}
