package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// pathPoint is one observed state of a default worker group while it
// scales: After the autoscaler was created, the group's replicas and the
// workers its scheduler lists.
type pathPoint struct {
	After    time.Duration
	Replicas int32
	Workers  int
}

func (p pathPoint) String() string {
	return fmt.Sprintf("%5.1fs replicas=%d workers=%d", p.After.Seconds(), p.Replicas, p.Workers)
}

// TestAdaptivePacingWithRealScheduler: an idle group of 4 with adapt(1, 4),
// against a real scheduler and real workers, goes 4 -> 3 -> 2 -> 1, one
// worker per decision (a quarter of 4, 3 or 2, at least one), each decision
// at least a cool-down after the last, and every removed worker retired by
// the scheduler before its Deployment went. The path is logged (go test
// -v) for the closing note's comparison with Dask's rules.
func TestAdaptivePacingWithRealScheduler(t *testing.T) {
	py := daskPython(t)
	c := startOperator(t)
	ctx := t.Context()
	ns := newNamespace(t, c)
	key := inNamespace(ns)
	if err := c.Create(ctx, smallCluster(ns, "pace", 4)); err != nil {
		t.Fatal(err)
	}
	sched := startScheduler(t, c, py, ns, "pace")
	k := startKubelet(t, c, py, ns, sched)
	all := []string{"pace-default-worker-0", "pace-default-worker-1", "pace-default-worker-2", "pace-default-worker-3"}
	waitListed(t, sched, all...)

	as := &daskv1.DaskAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pace"},
		Spec:       daskv1.DaskAutoscalerSpec{Cluster: "pace", Minimum: 1, Maximum: 4},
	}
	start := time.Now()
	if err := c.Create(ctx, as); err != nil {
		t.Fatal(err)
	}
	var path []pathPoint
	var decisions []time.Time // each status.lastScaleTime seen
	testenv.Eventually(t, 4*timeout, "the idle group down to its minimum", func(ctx context.Context) (bool, string, error) {
		var wg daskv1.DaskWorkerGroup
		if err := c.Get(ctx, key("pace-default"), &wg); err != nil {
			return false, "", err
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(as), as); err != nil {
			return false, "", err
		}
		ws, err := sched.workers(ctx)
		if err != nil {
			return false, "", err
		}
		p := pathPoint{time.Since(start).Round(100 * time.Millisecond), wg.Spec.Worker.Replicas, len(ws)}
		if n := len(path); n == 0 || path[n-1].Replicas != p.Replicas || path[n-1].Workers != p.Workers {
			path = append(path, p)
		}
		if lst := as.Status.LastScaleTime; lst != nil && (len(decisions) == 0 || !decisions[len(decisions)-1].Equal(lst.Time)) {
			decisions = append(decisions, lst.Time)
		}
		return p.Replicas == 1 && p.Workers == 1, fmt.Sprint(path), nil
	})
	for _, p := range path {
		t.Logf("path: %s", p)
	}
	var steps []int32
	for _, p := range path {
		if len(steps) == 0 || steps[len(steps)-1] != p.Replicas {
			steps = append(steps, p.Replicas)
		}
	}
	if !slices.Equal(steps, []int32{4, 3, 2, 1}) {
		t.Errorf("the group went %v, want [4 3 2 1]: one worker per decision", steps)
	}
	if len(decisions) != 3 {
		t.Errorf("saw %d scale decisions (status.lastScaleTime), want 3: %v", len(decisions), decisions)
	}
	for i := 1; i < len(decisions); i++ {
		if gap := decisions[i].Sub(decisions[i-1]); gap < coolDown {
			t.Errorf("decision %d came %s after the one before, inside the cool-down (%s)", i+1, gap, coolDown)
		}
	}
	for _, g := range k.deleted() {
		if g.listed {
			t.Errorf("%s's Deployment was deleted while the scheduler still listed the worker: not retired first", g.name)
		}
	}
	if got := names(waitWorkers(t, c, ns, "pace-default", 1)); !slices.Equal(got, all[:1]) {
		t.Errorf("scale-down kept %v, want the oldest worker", got)
	}
}

// TestSchedulerUnreachableSkipped: a cluster asking for 5 workers gets an
// autoscaler [1, 3] whose scheduler refuses connections. Rounds go by and
// none changes anything: the group keeps its 5 workers, the autoscaler's
// status has no choice, and one SchedulerUnreachable event says why (one
// event, not a series of one per round). When a scheduler answers (target
// 2), the bounds apply at once (5 -> 3), then the pacing (3 -> 2).
func TestSchedulerUnreachableSkipped(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)
	key := inNamespace(ns)
	refused := httptest.NewServer(http.NotFoundHandler())
	refused.Close() // its port now refuses connections
	hostileCluster(t, c, ns, "away", refused.URL, func(dc *daskv1.DaskCluster) { dc.Spec.Worker.Replicas = 5 })
	waitWorkers(t, c, ns, "away-default", 5)
	waitEvent(t, c, ns, "away", "SchedulerUnreachable")

	// Six more rounds of the autoscalers (of this test or others: the count
	// only grows, so at least this one's rounds pass as well, one every
	// AutoscalePeriod).
	n0 := reconcileCount(t, "daskautoscaler")
	testenv.Eventually(t, timeout, "six more autoscaler rounds", func(ctx context.Context) (bool, string, error) {
		n := reconcileCount(t, "daskautoscaler")
		return n >= n0+6, fmt.Sprintf("%d rounds since", n-n0), nil
	})
	var as daskv1.DaskAutoscaler
	if err := c.Get(t.Context(), key("away"), &as); err != nil {
		t.Fatal(err)
	}
	if as.Status.LastScaleTime != nil || as.Status.SchedulerTarget != nil {
		t.Errorf("rounds without the scheduler wrote status %+v", as.Status)
	}
	var wg daskv1.DaskWorkerGroup
	if err := c.Get(t.Context(), key("away-default"), &wg); err != nil {
		t.Fatal(err)
	}
	if wg.Spec.Worker.Replicas != 5 {
		t.Errorf("without the scheduler's word the group went 5 -> %d", wg.Spec.Worker.Replicas)
	}
	var list eventsv1.EventList
	if err := c.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var unreachable []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Name == "away" && e.Reason == "SchedulerUnreachable" {
			unreachable = append(unreachable, e)
		}
		if e.Regarding.Name == "away" && e.Reason == "Bounded" {
			t.Errorf("event %s: %s", e.Reason, e.Note)
		}
	}
	if len(unreachable) != 1 || unreachable[0].Series != nil {
		t.Errorf("SchedulerUnreachable events %+v, want one, without a series", unreachable)
	}

	good := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/adaptive_target" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"workers": 2}`))
	})
	schedulerURLs.Store(ns+"/away", good.URL)
	waitWorkers(t, c, ns, "away-default", 3)
	waitWorkers(t, c, ns, "away-default", 2)
}

// reconcileCount is the operator's controller_runtime_reconcile_total for
// controller, all results together.
func reconcileCount(t *testing.T, controller string) int {
	t.Helper()
	code, body := httpGet(t, op.metricsURL)
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	prefix := `controller_runtime_reconcile_total{controller="` + controller + `"`
	total := 0
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		n, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		total += int(n)
	}
	return total
}
