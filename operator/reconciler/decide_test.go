package reconciler

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestDecideScale(t *testing.T) {
	cool := 30 * time.Second
	for _, tc := range []struct {
		name      string
		current   int32
		target    int32
		min, max  int32
		lastScale time.Time
		now       time.Time
		want      int32
		why       string
	}{
		{"up within bounds", 1, 3, 1, 5, t0, t0, 3, "scale up"},
		{"up clamped to maximum", 1, 40, 1, 5, t0, t0, 5, "scale up"},
		{"up ignores cool-down", 2, 4, 1, 5, t0, t0.Add(time.Second), 4, "scale up"},
		{"steady", 3, 3, 1, 5, t0, t0, 3, "at target"},
		{"target below minimum is the minimum", 1, 0, 1, 5, t0, t0.Add(time.Hour), 1, "at target"},
		{"down held in cool-down", 5, 1, 1, 5, t0, t0.Add(cool - time.Second), 5, "cool-down"},
		{"down after cool-down, one of 3", 3, 1, 1, 5, t0, t0.Add(cool), 2, "scale down"},
		{"down after cool-down, one of 5", 5, 1, 1, 5, t0, t0.Add(cool), 4, "scale down"},
		{"down, a quarter of 8", 8, 0, 0, 8, t0, t0.Add(cool), 6, "scale down"},
		{"down, a quarter of 11 rounded down", 11, 0, 0, 20, t0, t0.Add(cool), 9, "scale down"},
		{"down by less than the quarter", 12, 10, 1, 20, t0, t0.Add(cool), 10, "scale down"},
		{"down clamped to minimum", 5, 0, 4, 5, t0, t0.Add(time.Hour), 4, "scale down"},
		{"down never scaled before", 5, 1, 1, 5, time.Time{}, t0, 4, "scale down"},
		{"maximum lowered beats cool-down", 5, 5, 1, 3, t0, t0, 3, "above maximum"},
		{"minimum raised beats cool-down", 1, 1, 4, 6, t0, t0, 4, "below minimum"},
		{"minimum equals maximum", 1, 9, 2, 2, t0, t0, 2, "below minimum"},
		{"to zero", 1, 0, 0, 3, t0, t0.Add(cool), 0, "scale down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := decideScale(scaleInput{
				Current: tc.current, Target: tc.target, Minimum: tc.min, Maximum: tc.max,
				LastScale: tc.lastScale, Now: tc.now, CoolDown: cool,
			})
			if got != tc.want || why != tc.why {
				t.Errorf("decideScale = %d (%s), want %d (%s)", got, why, tc.want, tc.why)
			}
		})
	}
}

// daskRules is one decision of Dask's controller (daskautoscaler_adapt) as
// its rules read, an oracle independent of decideScale: a round inside the
// cool-down changes nothing; otherwise the target, clamped to the bounds,
// and never more than a quarter (at least one) fewer workers than current;
// any change starts a cool-down.
func daskRules(current, target, lo, hi int32, now, coolUntil time.Time, cool time.Duration) (int32, time.Time) {
	if now.Before(coolUntil) {
		return current, coolUntil
	}
	desired := min(max(target, lo), hi)
	if current > 0 {
		step := int32(float64(current) * 0.25)
		if step == 0 {
			step = 1
		}
		desired = max(current-step, desired)
	}
	if desired != current {
		return desired, now.Add(cool)
	}
	return current, coolUntil
}

// scaleStep is one change of a simulated group: at After, to Replicas.
type scaleStep struct {
	After    time.Duration
	Replicas int32
}

// TestScaleDownPathLikeDask runs decideScale and daskRules side by side on
// the same group, one decision every 5 s (both controllers' period) with a
// 15 s cool-down, against a scheduler whose target drops to what the work
// needs, and wants the same path from both.
func TestScaleDownPathLikeDask(t *testing.T) {
	const period, cool = 5 * time.Second, 15 * time.Second
	for _, tc := range []struct {
		name          string
		start, target int32
		lo, hi        int32
		want          []scaleStep
	}{
		{"idle group of 4, adapt(1, 4)", 4, 0, 1, 4, []scaleStep{{0, 3}, {15 * time.Second, 2}, {30 * time.Second, 1}}},
		{"idle group of 3, adapt(1, 3)", 3, 0, 1, 3, []scaleStep{{0, 2}, {15 * time.Second, 1}}},
		{"idle group of 10, adapt(0, 10)", 10, 0, 0, 10, []scaleStep{{0, 8}, {15 * time.Second, 6}, {30 * time.Second, 5}, {45 * time.Second, 4}, {60 * time.Second, 3}, {75 * time.Second, 2}, {90 * time.Second, 1}, {105 * time.Second, 0}}},
		{"16 down to a target of 9", 16, 9, 1, 20, []scaleStep{{0, 12}, {15 * time.Second, 9}}},
		{"already at the minimum", 2, 0, 2, 4, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, dask := tc.start, tc.start
			var last, coolUntil time.Time
			var oursPath, daskPath []scaleStep
			for i := range 40 {
				at := time.Duration(i) * period
				now := t0.Add(at)
				got, _ := decideScale(scaleInput{Current: ours, Target: tc.target, Minimum: tc.lo, Maximum: tc.hi, LastScale: last, Now: now, CoolDown: cool})
				if got != ours {
					ours, last = got, now
					oursPath = append(oursPath, scaleStep{at, got})
				}
				var d int32
				d, coolUntil = daskRules(dask, tc.target, tc.lo, tc.hi, now, coolUntil, cool)
				if d != dask {
					dask = d
					daskPath = append(daskPath, scaleStep{at, d})
				}
			}
			if !slices.Equal(oursPath, daskPath) || !slices.Equal(oursPath, tc.want) {
				t.Errorf("paths (after, replicas):\nours: %v\nDask: %v\nwant: %v", oursPath, daskPath, tc.want)
			}
		})
	}
}

// TestScaleUpDuringCoolDown is where the two differ on purpose: Dask's
// controller holds every change for the cool-down after one, this
// operator only scale-down, so a burst of work right after a scale-down
// gets its workers at the next decision.
func TestScaleUpDuringCoolDown(t *testing.T) {
	const cool = 15 * time.Second
	now := t0.Add(5 * time.Second)
	got, why := decideScale(scaleInput{Current: 3, Target: 6, Minimum: 1, Maximum: 8, LastScale: t0, Now: now, CoolDown: cool})
	if got != 6 || why != "scale up" {
		t.Errorf("decideScale = %d (%s), want 6 (scale up)", got, why)
	}
	if d, _ := daskRules(3, 6, 1, 8, now, t0.Add(cool), cool); d != 3 {
		t.Errorf("daskRules = %d, want 3 (held by the cool-down)", d)
	}
}

func TestDecideWarn(t *testing.T) {
	every := 5 * time.Minute
	for _, tc := range []struct {
		name string
		last time.Time
		now  time.Time
		want bool
	}{
		{"never warned", time.Time{}, t0, true},
		{"just warned", t0, t0.Add(time.Second), false},
		{"within the interval", t0, t0.Add(every - time.Second), false},
		{"interval over", t0, t0.Add(every), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decideWarn(tc.last, tc.now, every); got != tc.want {
				t.Errorf("decideWarn = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDecideKopfRelease(t *testing.T) {
	grace := time.Minute
	for _, tc := range []struct {
		name   string
		after  time.Duration
		remove bool
		wait   time.Duration
	}{
		{"just deleted", 0, false, grace},
		{"inside the grace", 45 * time.Second, false, 15 * time.Second},
		{"grace over", grace, true, 0},
		{"long ago", time.Hour, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			remove, wait := decideKopfRelease(t0, t0.Add(tc.after), grace)
			if remove != tc.remove || wait != tc.wait {
				t.Errorf("decideKopfRelease = %v, %s; want %v, %s", remove, wait, tc.remove, tc.wait)
			}
		})
	}
}

func TestDecideRetire(t *testing.T) {
	timeout := time.Minute
	for _, tc := range []struct {
		name            string
		reached, listed bool
		after           time.Duration
		want            retireVerdict
	}{
		{"not listed: retired, or never joined", true, false, 0, retireDone},
		{"still listed, in the window", true, true, timeout - time.Second, retireWait},
		{"still listed, window over", true, true, timeout, retireForce},
		{"scheduler away, in the window", false, false, time.Second, retireWait},
		{"scheduler away, window over", false, false, timeout + time.Second, retireForce},
		{"scheduler away, listed is ignored", false, true, 0, retireWait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decideRetire(tc.reached, tc.listed, t0, t0.Add(tc.after), timeout); got != tc.want {
				t.Errorf("decideRetire = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDecideIdleFromCounts(t *testing.T) {
	idle := SchedulerCounts{Tasks: 4, Memory: 4, Workers: 1}
	earlier := t0.Add(-time.Minute)
	for _, tc := range []struct {
		name     string
		counts   SchedulerCounts
		previous *SchedulerCounts
		since    *time.Time
		want     *time.Time
	}{
		{"processing is busy", SchedulerCounts{Processing: 1, Workers: 1}, &idle, &earlier, nil},
		{"waiting on dependencies is busy", SchedulerCounts{Waiting: 2, Workers: 1}, &idle, &earlier, nil},
		{"unrunnable is busy", SchedulerCounts{Unrunnable: 1, Workers: 1}, &idle, &earlier, nil},
		{"queued without workers is busy", SchedulerCounts{Tasks: 3, DesiredWorkers: 1}, &idle, &earlier, nil},
		{"first poll starts the clock", idle, nil, &earlier, &t0},
		{"idle, unchanged, keeps the start", idle, &idle, &earlier, &earlier},
		{"idle, unchanged, no start yet", idle, &idle, nil, &t0},
		{"tasks ran between polls", SchedulerCounts{Tasks: 9, Memory: 9, Workers: 1}, &idle, &earlier, &t0},
		{"results released between polls", SchedulerCounts{Tasks: 0, Workers: 1}, &idle, &earlier, &t0},
		{"workers joining is no activity", SchedulerCounts{Tasks: 4, Memory: 4, Workers: 3}, &idle, &earlier, &earlier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decideIdleFromCounts(idleInput{Counts: tc.counts, Previous: tc.previous, IdleSince: tc.since, Now: t0})
			if (got == nil) != (tc.want == nil) || (got != nil && !got.Equal(*tc.want)) {
				t.Errorf("decideIdleFromCounts = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIdleExpired(t *testing.T) {
	for _, tc := range []struct {
		name    string
		since   *time.Time
		after   time.Duration
		timeout time.Duration
		want    bool
	}{
		{"busy", nil, time.Hour, time.Second, false},
		{"not yet", &t0, 10 * time.Second, 10 * time.Second, false},
		{"expired", &t0, 11 * time.Second, 10 * time.Second, true},
		{"off", &t0, time.Hour, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := idleExpired(tc.since, t0.Add(tc.after), tc.timeout); got != tc.want {
				t.Errorf("idleExpired = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWithSchedulerAPI(t *testing.T) {
	mk := func(cs ...corev1.Container) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Spec.Template.Spec.Containers = cs
		return d
	}
	routes := func(c corev1.Container) []string {
		var out []string
		for _, e := range c.Env {
			if e.Name == EnvSchedulerHTTPRoutes {
				out = append(out, e.Value)
			}
		}
		return out
	}
	d := mk(corev1.Container{Name: "sidecar"}, corev1.Container{Name: "scheduler"})
	withSchedulerAPI(d)
	if got := routes(d.Spec.Template.Spec.Containers[1]); !slices.Equal(got, []string{DefaultSchedulerHTTPRoutes}) {
		t.Errorf("scheduler container routes = %v", got)
	}
	if got := routes(d.Spec.Template.Spec.Containers[0]); got != nil {
		t.Errorf("sidecar got routes %v", got)
	}
	d = mk(corev1.Container{Name: "main"})
	withSchedulerAPI(d)
	if got := routes(d.Spec.Template.Spec.Containers[0]); !slices.Equal(got, []string{DefaultSchedulerHTTPRoutes}) {
		t.Errorf("first container routes = %v", got)
	}
	user := `["distributed.http.health"]`
	d = mk(corev1.Container{Name: "scheduler", Env: []corev1.EnvVar{{Name: EnvSchedulerHTTPRoutes, Value: user}}})
	withSchedulerAPI(d)
	if got := routes(d.Spec.Template.Spec.Containers[0]); !slices.Equal(got, []string{user}) {
		t.Errorf("the user's routes were replaced: %v", got)
	}
	withSchedulerAPI(mk()) // no containers: nothing to do, no panic
}

func TestSchedulerHTTPURL(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ports []corev1.ServicePort
		want  string
	}{
		{"no service", nil, "http://c-scheduler.ns.svc:8787"},
		{"named port", []corev1.ServicePort{{Name: "tcp-comm", Port: 8786}, {Name: "http-dashboard", Port: 80}}, "http://c-scheduler.ns.svc:80"},
		{"numbered port", []corev1.ServicePort{{Name: "a", Port: 8786}, {Name: "b", Port: 8787}}, "http://c-scheduler.ns.svc:8787"},
		{"no http port", []corev1.ServicePort{{Name: "comm", Port: 8786}}, "http://c-scheduler.ns.svc:8787"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SchedulerHTTPURL("ns", "c", &corev1.ServiceSpec{Ports: tc.ports}); got != tc.want {
				t.Errorf("SchedulerHTTPURL = %s, want %s", got, tc.want)
			}
		})
	}
	if got := SchedulerURLTemplate("http://127.0.0.1:8787/{namespace}/{cluster}")("ns", "c"); got != "http://127.0.0.1:8787/ns/c" {
		t.Errorf("template = %s", got)
	}
	if SchedulerURLTemplate("") != nil {
		t.Error("an empty template must leave the in-cluster address")
	}
}

// TestSchedulerClientCheckIdle covers the answers of check_idle, which the
// Debian distributed (2022.12) does not serve, so the e2e tests cannot reach
// it: a server stands in for distributed >= 2023.4 here. The retry test
// below needs a server that fails on purpose.
func TestSchedulerClientCheckIdle(t *testing.T) {
	answer := `{"idle_since": 1767323045.5}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/check_idle" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(answer))
	}))
	defer srv.Close()
	c := &SchedulerClient{BaseURL: srv.URL}
	got, err := c.IdleSince(t.Context())
	if err != nil || got == nil || !got.Equal(time.Unix(1767323045, 5e8)) {
		t.Fatalf("IdleSince = %v, %v", got, err)
	}
	answer = `{"idle_since": null}`
	if got, err := c.IdleSince(t.Context()); err != nil || got != nil {
		t.Errorf("busy scheduler: IdleSince = %v, %v", got, err)
	}
	if _, err := c.AdaptiveTarget(t.Context()); !errors.Is(err, ErrNotServed) {
		t.Errorf("a 404 must be ErrNotServed, got %v", err)
	}
}

func TestSchedulerClientRetries(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls < 3 {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{"workers": 4}`))
	}))
	defer srv.Close()
	c := &SchedulerClient{BaseURL: srv.URL, Attempts: 3, Backoff: time.Millisecond}
	if n, err := c.AdaptiveTarget(t.Context()); err != nil || n != 4 || calls != 3 {
		t.Errorf("AdaptiveTarget = %d, %v after %d calls; want 4 after 3", n, err, calls)
	}
	calls = 0
	c.Attempts = 2
	if _, err := c.AdaptiveTarget(t.Context()); err == nil || calls != 2 {
		t.Errorf("want an error after 2 calls, got %v after %d", err, calls)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (&SchedulerClient{BaseURL: srv.URL}).Workers(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context must stop the retries, got %v", err)
	}
}

// TestLastScaleTimeKeepsMicroseconds: the cool-down counts from
// status.lastScaleTime as the apiserver stores it (JSON), so the stored
// time must keep what a cool-down of seconds needs; a whole-second time
// would end it up to a second early.
func TestLastScaleTimeKeepsMicroseconds(t *testing.T) {
	at := t0.Add(987654 * time.Microsecond)
	in := daskv1.DaskAutoscalerStatus{LastScaleTime: &metav1.MicroTime{Time: at}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out daskv1.DaskAutoscalerStatus
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.LastScaleTime == nil || !out.LastScaleTime.Time.Equal(at) {
		t.Errorf("lastScaleTime %s came back as %v (%s)", at, out.LastScaleTime, b)
	}
}
