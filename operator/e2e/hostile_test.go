package e2e

import (
	"context"
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
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// secret is what a hostile scheduler puts in its answers: none of it may
// reach an event, which the cluster's creator can read.
const secret = "s3cr3t-from-the-answer"

// standIn is a stand-in scheduler on 127.0.0.1: handle answers every
// request; it counts the requests and those in flight.
type standIn struct {
	*httptest.Server
	requests, inFlight atomic.Int32
}

func newStandIn(t *testing.T, handle http.HandlerFunc) *standIn {
	t.Helper()
	s := &standIn{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		handle(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// hostileCluster creates a one-worker cluster in ns whose scheduler is at
// url (the operator's SchedulerOptions.URL in these tests), reports its
// scheduler available, and gives it an autoscaler (1 to 3 workers), which
// asks the scheduler for its adaptive target every AutoscalePeriod.
func hostileCluster(t *testing.T, c client.Client, ns, name, url string, edit func(*daskv1.DaskCluster)) {
	t.Helper()
	ctx := t.Context()
	dc := smallCluster(ns, name, 1)
	if edit != nil {
		edit(dc)
	}
	schedulerURLs.Store(ns+"/"+name, url)
	t.Cleanup(func() { schedulerURLs.Delete(ns + "/" + name) })
	if err := c.Create(ctx, dc); err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	testenv.Eventually(t, timeout, "scheduler Deployment of "+name, func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, inNamespace(ns)(reconciler.SchedulerName(name)), &d)
		return err == nil, fmt.Sprint(err), client.IgnoreNotFound(err)
	})
	markAvailable(t, c, &d)
	as := &daskv1.DaskAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       daskv1.DaskAutoscalerSpec{Cluster: name, Minimum: 1, Maximum: 3},
	}
	if err := c.Create(ctx, as); err != nil {
		t.Fatal(err)
	}
	// Stop the polling when the test ends: the shared operator runs on.
	t.Cleanup(func() { _ = c.Delete(context.WithoutCancel(t.Context()), as) })
}

// firstEvent returns the first event about regarding with reason in ns.
func firstEvent(t *testing.T, c client.Client, ns, regarding, reason string) *eventsv1.Event {
	t.Helper()
	var out *eventsv1.Event
	testenv.Eventually(t, 2*timeout, "event "+reason+" about "+regarding, func(ctx context.Context) (bool, string, error) {
		var list eventsv1.EventList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, "", err
		}
		for i, e := range list.Items {
			if e.Regarding.Name == regarding && e.Reason == reason && (out == nil || e.EventTime.Before(&out.EventTime)) {
				out = &list.Items[i]
			}
		}
		return out != nil, "", nil
	})
	return out
}

// TestHostileSchedulers: a scheduler is tenant code. Stand-ins on
// 127.0.0.1 answer the operator's autoscaling calls with a redirect to
// another local server, a body far larger than any answer, and a body that
// trickles in forever, and one sits behind an ExternalName Service. The
// redirect is not followed, the stand-in behind ExternalName is never
// asked, each failure is an event that says what was wrong without
// repeating the answer, and a well-behaved cluster created while the slow
// scheduler holds a reconcile gets scaled before that reconcile ends.
func TestHostileSchedulers(t *testing.T) {
	c := startOperator(t)
	ns := newNamespace(t, c)

	// The address a redirect points at: another local server, the stand-in
	// for a metadata endpoint or another tenant's service.
	var target atomic.Int32
	elsewhere := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
		target.Add(1)
		_, _ = w.Write([]byte(`{"workers": 3}`))
	})
	redirect := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", elsewhere.URL+r.URL.Path+"?"+secret)
		w.WriteHeader(http.StatusFound)
		_, _ = w.Write([]byte(secret))
	})
	// 8 MiB of well-formed JSON, eight times what the operator reads.
	huge := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"workers": 3, "pad": "`))
		chunk := []byte(strings.Repeat(secret, 1024))
		for n := 0; n < 8<<20; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		_, _ = w.Write([]byte(`"}`))
	})
	// Headers at once, then a byte every 100 ms until the caller hangs up.
	slow := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"workers": `))
		for {
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
		}
	})
	behindExternalName := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"workers": 3}`))
	})
	good := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"workers": 2}`))
	})

	hostileCluster(t, c, ns, "slow", slow.URL, nil)
	// The slow scheduler holds one reconcile of the autoscalers from here.
	testenv.Eventually(t, timeout, "the slow scheduler asked", func(ctx context.Context) (bool, string, error) {
		return slow.inFlight.Load() > 0, "", nil
	})
	hostileCluster(t, c, ns, "good", good.URL, nil)
	hostileCluster(t, c, ns, "redirect", redirect.URL, nil)
	hostileCluster(t, c, ns, "huge", huge.URL, nil)
	hostileCluster(t, c, ns, "external", behindExternalName.URL, func(dc *daskv1.DaskCluster) {
		dc.Spec.Scheduler.Service.Type = corev1.ServiceTypeExternalName
		dc.Spec.Scheduler.Service.ExternalName = "localhost"
		dc.Spec.Scheduler.Service.Ports = nil
	})

	// Other clusters keep reconciling: the good one is scaled to its
	// scheduler's target before the slow scheduler's reconcile gives up.
	waitWorkers(t, c, ns, "good-default", 2)
	scaled := firstEvent(t, c, ns, "good", "Scaled")
	stalled := firstEvent(t, c, ns, "slow", "SchedulerUnreachable")
	if !scaled.EventTime.Before(&stalled.EventTime) {
		t.Errorf("the good cluster was scaled at %s, after the slow scheduler's reconcile ended at %s: one slow scheduler stalled the others",
			scaled.EventTime.Format(time.RFC3339Nano), stalled.EventTime.Format(time.RFC3339Nano))
	}

	// What each event says. The events of one object with one reason are
	// one series, so the note is that of the first event that reached the
	// apiserver: for the slow scheduler, the budget running out or, next
	// time, the cool-off that follows it.
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"redirect", []string{"a redirect; not followed"}},
		{"huge", []string{"larger than 1048576 bytes"}},
		{"slow", []string{"context deadline exceeded", "ran out of its time budget"}},
		{"external", []string{reconciler.ErrExternalName.Error()}},
	} {
		e := firstEvent(t, c, ns, tc.name, "SchedulerUnreachable")
		if !slices.ContainsFunc(tc.want, func(w string) bool { return strings.Contains(e.Note, w) }) {
			t.Errorf("%s: event %q, want it to say one of %q", tc.name, e.Note, tc.want)
		}
	}
	waitEvent(t, c, ns, "external", "ExternalNameService")
	if n := target.Load(); n != 0 {
		t.Errorf("the redirect was followed: its target was asked %d times", n)
	}
	if n := behindExternalName.requests.Load(); n != 0 {
		t.Errorf("the scheduler behind an ExternalName Service was asked %d times", n)
	}
	for _, s := range []*standIn{redirect, huge, slow} {
		if s.requests.Load() == 0 {
			t.Errorf("stand-in %s was never asked", s.URL)
		}
	}
	// Nothing the schedulers sent is repeated.
	var list eventsv1.EventList
	if err := c.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Items {
		if strings.Contains(e.Note, secret) || strings.Contains(e.Note, elsewhere.URL) {
			t.Errorf("event %s about %s repeats a scheduler's answer: %q", e.Reason, e.Regarding.Name, e.Note)
		}
	}
	// The hostile clusters' own reconciles went on too: the autoscaler's
	// bound (1 to 3 around the cluster's 1) holds and no worker was added
	// on a hostile scheduler's word.
	for _, name := range []string{"redirect", "huge", "external"} {
		waitWorkers(t, c, ns, name+"-default", 1)
	}
}
