package e2e

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/reconciler"
)

var loadClusters = flag.Int("load.clusters", 0, "TestLoad: create this many DaskClusters (e.g. 200) and report convergence time and memory; 0 skips")

// TestLoad creates -load.clusters DaskClusters at once and waits until every
// one has its scheduler Deployment and Service, its default worker group and
// one worker Deployment, and phase Created. It logs the time that took and
// the memory of the test process (which runs the reconciler).
//
//	go test ./e2e -run TestLoad -load.clusters 200 -v
func TestLoad(t *testing.T) {
	n := *loadClusters
	if n == 0 {
		t.Skip("load run disabled; enable with -load.clusters 200")
	}
	c := startOperator(t)
	ctx := t.Context()
	ns := newNamespace(t, c)
	before := memSnapshot()

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

	var peak memStats
	eventually(t, 10*time.Minute, fmt.Sprintf("%d clusters converged", n), func(ctx context.Context) (bool, string, error) {
		peak = peak.max(memSnapshot())
		var dcs reconciler.DaskClusterList
		if err := c.List(ctx, &dcs, client.InNamespace(ns)); err != nil {
			return false, "", err
		}
		phased := 0
		for _, dc := range dcs.Items {
			if dc.Status.Phase == reconciler.PhaseCreated && dc.Status.Workers == 1 {
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
		msg := fmt.Sprintf("%d/%d clusters Created with 1 worker, %d schedulers, %d services, %d workers", phased, n, scheds, len(svcs.Items), workers)
		return phased == n && workers == n && scheds == n && len(svcs.Items) == n, msg, nil
	})
	converged := time.Since(start)
	after := memSnapshot()
	runtime.GC()
	settled := memSnapshot()

	t.Logf("load: %d DaskClusters created in %v; converged (scheduler Deployment+Service, worker group, 1 worker each, phase Created) in %v", n, created.Round(time.Millisecond), converged.Round(time.Millisecond))
	t.Logf("load: test process (reconciler + its caches + test client): before %v", before)
	t.Logf("load: peak during run %v", peak)
	t.Logf("load: at convergence %v; after GC %v", after, settled)
	t.Logf("load: reconciles %s", reconcileCounts(t))
}

// loadCluster is a small DaskCluster with one worker.
func loadCluster(ns string, i int) *reconciler.DaskCluster {
	ctr := func(name string) corev1.Container {
		return corev1.Container{Name: name, Image: "ghcr.io/dask/dask:2024.12.1-py3.12", Args: []string{"dask-" + name}}
	}
	return &reconciler.DaskCluster{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("load-%03d", i), Namespace: ns},
		Spec: reconciler.DaskClusterSpec{
			Scheduler: reconciler.SchedulerSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("scheduler")}},
				Service: corev1.ServiceSpec{Ports: []corev1.ServicePort{
					{Name: "tcp-comm", Port: 8786, TargetPort: intstr.FromInt32(8786)},
				}},
			},
			Worker: reconciler.WorkerSpec{Replicas: 1, Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("worker")}}},
		},
	}
}

// memStats is the process memory at one moment.
type memStats struct {
	HeapAlloc, HeapSys, RSS, HWM uint64 // bytes
}

func (m memStats) max(o memStats) memStats {
	return memStats{max(m.HeapAlloc, o.HeapAlloc), max(m.HeapSys, o.HeapSys), max(m.RSS, o.RSS), max(m.HWM, o.HWM)}
}

func (m memStats) String() string {
	mib := func(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
	return fmt.Sprintf("heap in use %s, heap reserved %s, RSS %s (peak RSS %s)", mib(m.HeapAlloc), mib(m.HeapSys), mib(m.RSS), mib(m.HWM))
}

func memSnapshot() memStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	out := memStats{HeapAlloc: ms.HeapAlloc, HeapSys: ms.HeapSys}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb uint64
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "VmRSS:"):
			fmt.Sscanf(strings.TrimPrefix(line, "VmRSS:"), "%d", &kb)
			out.RSS = kb << 10
		case strings.HasPrefix(line, "VmHWM:"):
			fmt.Sscanf(strings.TrimPrefix(line, "VmHWM:"), "%d", &kb)
			out.HWM = kb << 10
		}
	}
	return out
}

// reconcileCounts sums controller_runtime_reconcile_total per controller.
func reconcileCounts(t *testing.T) string {
	_, body := httpGet(t, op.metricsURL)
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
		fmt.Sscanf(strings.TrimSpace(value), "%g", &f)
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
