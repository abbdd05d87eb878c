package e2e

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

var loadClusters = flag.Int("load.clusters", 0, "TestLoad: create this many DaskClusters (e.g. 200) and report convergence time and memory; 0 skips")

// TestLoad creates -load.clusters DaskClusters at once and waits until every
// one has its scheduler Deployment and Service, its default worker group and
// one worker Deployment, and phase Running (Dask's meaning: the scheduler
// Service is usable). The reconciler runs as its own
// process (the k8s-crd-resolver-reconcile companion, limited to the test's
// namespace), so the memory logged is the reconciler's alone. Run it alone:
//
//	go test ./e2e -run TestLoad -load.clusters 200 -v
func TestLoad(t *testing.T) {
	n := *loadClusters
	if n == 0 {
		t.Skip("load run disabled; enable with -load.clusters 200")
	}
	if op.client != nil {
		t.Fatal("the in-process operator is running and would share the work; run TestLoad alone (-run TestLoad)")
	}
	c := directClient(t, restConfig(t))
	ctx := t.Context()
	ns := newNamespace(t, c)
	proc := startCompanion(t, buildBinaries(t), writeKubeconfig(t, c), "--namespace", ns, "--concurrency", "4")
	before := procMem(t, proc.pid)

	start := time.Now()
	jobs := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range 8 {
		wg.Go(func() {
			for i := range jobs {
				if err := c.Create(ctx, loadCluster(ns, i)); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("creating clusters: %v", err)
	}
	created := time.Since(start)

	testenv.Eventually(t, 10*time.Minute, fmt.Sprintf("%d clusters converged", n), func(ctx context.Context) (bool, string, error) {
		var dcs daskv1.DaskClusterList
		if err := c.List(ctx, &dcs, client.InNamespace(ns)); err != nil {
			return false, "", err
		}
		phased := 0
		for _, dc := range dcs.Items {
			if dc.Status.Phase == daskv1.PhaseRunning && dc.Status.Workers == 1 {
				phased++
			}
		}
		var deps appsv1.DeploymentList
		if err := c.List(ctx, &deps, client.InNamespace(ns)); err != nil {
			return false, "", err
		}
		workers, scheds := 0, 0
		for _, d := range deps.Items {
			switch d.Labels[reconciler.LabelComponent] {
			case reconciler.ComponentWorker:
				workers++
			case reconciler.ComponentScheduler:
				scheds++
			}
		}
		var svcs corev1.ServiceList
		if err := c.List(ctx, &svcs, client.InNamespace(ns)); err != nil {
			return false, "", err
		}
		msg := fmt.Sprintf("%d/%d clusters Running with 1 worker, %d schedulers, %d services, %d workers", phased, n, scheds, len(svcs.Items), workers)
		return phased == n && workers == n && scheds == n && len(svcs.Items) == n, msg, nil
	})
	converged := time.Since(start)
	after := procMem(t, proc.pid)

	t.Logf("load: %d DaskClusters created in %v; converged (scheduler Deployment+Service, worker group, 1 worker each, phase Running) in %v",
		n, created.Round(time.Millisecond), converged.Round(time.Millisecond))
	t.Logf("load: reconciler process RSS %s before, %s at convergence, peak %s", mib(before.RSS), mib(after.RSS), mib(after.HWM))
	t.Logf("load: reconciles %s", reconcileCounts(t, proc.metricsURL))
	writes := requestCounts(t, proc.metricsURL)
	t.Logf("load: the reconciler's writes %v: %.1f per cluster", writes, float64(writes["POST"]+writes["PUT"]+writes["PATCH"]+writes["DELETE"])/float64(n))
}

// requestCounts sums client-go's rest_client_requests_total per method: the
// reconciler's requests to the apiserver (events included).
func requestCounts(t *testing.T, metricsURL string) map[string]int {
	_, body := httpGet(t, metricsURL)
	out := map[string]int{}
	for line := range strings.Lines(body) {
		rest, ok := strings.CutPrefix(line, "rest_client_requests_total{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		for kv := range strings.SplitSeq(labels, ",") {
			if k, v, _ := strings.Cut(kv, "="); k == "method" {
				var f float64
				_, _ = fmt.Sscanf(strings.TrimSpace(value), "%g", &f)
				out[strings.Trim(v, `"`)] += int(f)
			}
		}
	}
	return out
}

// loadCluster is a small DaskCluster with one worker.
func loadCluster(ns string, i int) *daskv1.DaskCluster {
	ctr := func(name string) corev1.Container {
		return corev1.Container{Name: name, Image: "ghcr.io/dask/dask:2024.12.1-py3.12", Args: []string{"dask-" + name}}
	}
	return &daskv1.DaskCluster{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("load-%03d", i), Namespace: ns},
		Spec: daskv1.DaskClusterSpec{
			Scheduler: daskv1.SchedulerSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("scheduler")}},
				Service: corev1.ServiceSpec{Ports: []corev1.ServicePort{
					{Name: "tcp-comm", Port: 8786, TargetPort: intstr.FromInt32(8786)},
				}},
			},
			Worker: daskv1.WorkerSpec{Replicas: 1, Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("worker")}}},
		},
	}
}

// memStats is a process's resident memory now and at its peak.
type memStats struct{ RSS, HWM uint64 }

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// procMem reads VmRSS and VmHWM of process pid.
func procMem(t *testing.T, pid int) memStats {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the reconciler's memory: %v", err)
	}
	defer f.Close()
	var out memStats
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), ":")
		var kb uint64
		_, _ = fmt.Sscanf(strings.TrimSpace(value), "%d", &kb)
		switch name {
		case "VmRSS":
			out.RSS = kb << 10
		case "VmHWM":
			out.HWM = kb << 10
		}
	}
	return out
}

// reconcileCounts sums controller_runtime_reconcile_total per controller.
func reconcileCounts(t *testing.T, metricsURL string) string {
	_, body := httpGet(t, metricsURL)
	counts := map[string]float64{}
	var order []string
	for line := range strings.Lines(body) {
		if !strings.HasPrefix(line, "controller_runtime_reconcile_total{") {
			continue
		}
		labels, value, ok := strings.Cut(strings.TrimPrefix(line, "controller_runtime_reconcile_total{"), "} ")
		if !ok {
			continue
		}
		var ctrlName, result string
		for kv := range strings.SplitSeq(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "controller":
				ctrlName = strings.Trim(v, `"`)
			case "result":
				result = strings.Trim(v, `"`)
			}
		}
		var f float64
		_, _ = fmt.Sscanf(strings.TrimSpace(value), "%g", &f)
		key := ctrlName + "/" + result
		if _, seen := counts[key]; !seen {
			order = append(order, key)
		}
		counts[key] += f
	}
	var parts []string
	for _, k := range order {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%g", k, counts[k]))
		}
	}
	return strings.Join(parts, " ")
}
