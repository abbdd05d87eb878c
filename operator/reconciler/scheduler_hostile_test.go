package reconciler

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// These tests treat the scheduler as what it is, tenant code: each answer
// below is one a hostile or broken scheduler could give.

func TestSchedulerRedirectNotFollowed(t *testing.T) {
	var reached atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		_, _ = w.Write([]byte(`{"workers": 1}`))
	}))
	defer target.Close()
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+r.URL.Path, code)
		}))
		_, err := (&SchedulerClient{BaseURL: srv.URL}).AdaptiveTarget(t.Context())
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), "not followed") {
			t.Errorf("HTTP %d: err = %v, want a redirect that is not followed", code, err)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the redirect target was reached %d times", n)
	}
}

func TestSchedulerBodyNeverEchoed(t *testing.T) {
	const secret = "s3cr3t-token-from-another-service"
	for _, tc := range []struct {
		name string
		code int
		body string
	}{
		{"error status", http.StatusForbidden, secret},
		{"server error", http.StatusBadGateway, secret},
		{"not JSON", http.StatusOK, secret},
		{"wrong shape", http.StatusOK, `{"workers": "` + secret + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.code)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			_, err := (&SchedulerClient{BaseURL: srv.URL, Attempts: 1}).AdaptiveTarget(t.Context())
			if err == nil {
				t.Fatal("want an error")
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error repeats the answer: %v", err)
			}
		})
	}
}

func TestSchedulerHugeAnswerRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"workers": 1, "pad": "`))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for range (maxAnswer / len(chunk)) + 2 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		_, _ = w.Write([]byte(`"}`))
	}))
	defer srv.Close()
	_, err := (&SchedulerClient{BaseURL: srv.URL, Attempts: 1}).AdaptiveTarget(t.Context())
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("err = %v, want an answer refused for its size", err)
	}
}

// TestSchedulerSlowAnswerBounded: a scheduler that sends its headers and
// then trickles its body is cut off by the per-attempt timeout (a short
// one here: what is checked is that the call ends with an error, not when).
func TestSchedulerSlowAnswerBounded(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"workers": `))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	_, err := (&SchedulerClient{BaseURL: srv.URL, Attempts: 1, Timeout: 50 * time.Millisecond}).AdaptiveTarget(t.Context())
	if err == nil {
		t.Error("a body that never ends must fail the call")
	}
}
