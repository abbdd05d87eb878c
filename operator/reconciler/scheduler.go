package reconciler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// EnvSchedulerHTTPRoutes is the Dask configuration variable listing the
// scheduler's HTTP route modules. The operator sets it on the scheduler
// container (unless the user did) to DefaultSchedulerHTTPRoutes, which adds
// the HTTP API (distributed.http.scheduler.api) to distributed's defaults.
const EnvSchedulerHTTPRoutes = "DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES"

// DefaultSchedulerHTTPRoutes is the value of EnvSchedulerHTTPRoutes the
// operator injects: distributed's default routes plus its HTTP API. Dask
// parses the value as a Python literal (a list of module names).
const DefaultSchedulerHTTPRoutes = `["distributed.http.scheduler.prometheus", "distributed.http.scheduler.info", "distributed.http.scheduler.json", "distributed.http.health", "distributed.http.proxy", "distributed.http.statics", "distributed.http.scheduler.api"]`

// DefaultSchedulerHTTPPort is the scheduler's HTTP (dashboard and API)
// port, used when the scheduler Service names no better candidate.
const DefaultSchedulerHTTPPort = 8787

// ErrNotServed marks a scheduler answer of 404: the route is not among the
// scheduler's HTTP routes (an older distributed, or routes set by the user
// without the API).
var ErrNotServed = errors.New("route not served by this scheduler")

// SchedulerClient talks to one Dask scheduler's HTTP API with the standard
// library only. Every request has its own timeout; transport errors and 5xx
// answers are retried a bounded number of times with exponential backoff. A
// zero field takes the default named on it. It is safe for concurrent use.
type SchedulerClient struct {
	// BaseURL is the scheduler's HTTP address, e.g. http://c-scheduler.ns.svc:8787.
	BaseURL string
	// HTTP sends the requests (default: DefaultSchedulerHTTP, which never
	// follows a redirect; each request's context bounds its time).
	HTTP *http.Client
	// Timeout bounds each attempt of a GET (default 10s).
	Timeout time.Duration
	// Attempts is the number of tries per call (default 3).
	Attempts int
	// Backoff is the wait before the second try; it doubles after (default 200ms).
	Backoff time.Duration
}

// SchedulerWorker is one worker as the scheduler knows it.
type SchedulerWorker struct {
	Name    string
	Address string
}

// SchedulerCounts is the part of the scheduler's /json/counts.json the
// idle-timeout fallback reads (distributed.http.scheduler.json, a default
// route).
type SchedulerCounts struct {
	Tasks          int64 `json:"tasks"`
	Processing     int64 `json:"processing"`
	Waiting        int64 `json:"waiting"`
	WaitingData    int64 `json:"waiting_data"`
	Unrunnable     int64 `json:"unrunnable"`
	Memory         int64 `json:"memory"`
	Released       int64 `json:"released"`
	Erred          int64 `json:"erred"`
	Workers        int64 `json:"workers"`
	DesiredWorkers int64 `json:"desired_workers"`
}

func (c *SchedulerClient) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 10 * time.Second
}

// Workers lists the scheduler's workers (GET /api/v1/get_workers).
func (c *SchedulerClient) Workers(ctx context.Context) ([]SchedulerWorker, error) {
	var out struct {
		Workers []struct {
			// A worker's name is whatever it was started with: a string
			// or a number.
			Name    any    `json:"name"`
			Address string `json:"address"`
		} `json:"workers"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/get_workers", nil, c.timeout(), &out); err != nil {
		return nil, err
	}
	ws := make([]SchedulerWorker, 0, len(out.Workers))
	for _, w := range out.Workers {
		ws = append(ws, SchedulerWorker{Name: fmt.Sprint(w.Name), Address: w.Address})
	}
	return ws, nil
}

// AdaptiveTarget is the number of workers the scheduler would like for its
// current load (GET /api/v1/adaptive_target).
func (c *SchedulerClient) AdaptiveTarget(ctx context.Context) (int32, error) {
	var out struct {
		Workers *float64 `json:"workers"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/adaptive_target", nil, c.timeout(), &out); err != nil {
		return 0, err
	}
	if out.Workers == nil || *out.Workers < 0 || math.IsNaN(*out.Workers) {
		return 0, fmt.Errorf("%s/api/v1/adaptive_target: no worker count in the answer", c.BaseURL)
	}
	return int32(min(*out.Workers, math.MaxInt32)), nil
}

// RetireWorkers asks the scheduler to retire the workers at addresses (POST
// /api/v1/retire_workers): it copies the results they alone hold to other
// workers, then forgets them. It returns the addresses the scheduler says it
// retired; the call lasts as long as the scheduler takes, bounded by
// timeout per attempt.
func (c *SchedulerClient) RetireWorkers(ctx context.Context, addresses []string, timeout time.Duration) ([]string, error) {
	body, err := json.Marshal(map[string]any{"workers": addresses})
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := c.do(ctx, http.MethodPost, "/api/v1/retire_workers", body, timeout, &out); err != nil {
		return nil, err
	}
	retired := make([]string, 0, len(out))
	for addr := range out {
		retired = append(retired, addr)
	}
	return retired, nil
}

// IdleSince asks the scheduler since when it has been idle (GET
// /api/v1/check_idle, distributed 2023.4 and later): nil when it is busy.
// Older schedulers answer ErrNotServed.
func (c *SchedulerClient) IdleSince(ctx context.Context) (*time.Time, error) {
	var out struct {
		IdleSince *float64 `json:"idle_since"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/check_idle", nil, c.timeout(), &out); err != nil {
		return nil, err
	}
	if out.IdleSince == nil || *out.IdleSince <= 0 {
		return nil, nil
	}
	sec, frac := math.Modf(*out.IdleSince)
	t := time.Unix(int64(sec), int64(frac*1e9)).UTC()
	return &t, nil
}

// Counts reads the scheduler's task and worker counts (GET /json/counts.json).
func (c *SchedulerClient) Counts(ctx context.Context) (SchedulerCounts, error) {
	var out SchedulerCounts
	err := c.do(ctx, http.MethodGet, "/json/counts.json", nil, c.timeout(), &out)
	return out, err
}

// DefaultSchedulerHTTP is the HTTP client schedulers are asked with: a
// scheduler is tenant code, so a redirect is never followed (a 3xx is an
// answer like any other non-2xx, and fails the call), and no answer is
// trusted beyond maxAnswer bytes.
var DefaultSchedulerHTTP = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// maxAnswer bounds what the operator reads of one scheduler answer; the
// answers it asks for are a few kilobytes even with thousands of workers.
const maxAnswer = 1 << 20

// statusError is a scheduler's non-2xx answer. It never holds the body: the
// error ends up in events and logs the cluster's creator can read, and says
// what was wrong, not what was sent.
type statusError struct {
	url  string
	code int
}

func (e *statusError) Error() string {
	if e.code >= 300 && e.code < 400 {
		return fmt.Sprintf("%s: HTTP %d (a redirect; not followed)", e.url, e.code)
	}
	return fmt.Sprintf("%s: HTTP %d", e.url, e.code)
}

// Is makes a 404 match ErrNotServed.
func (e *statusError) Is(target error) bool {
	return target == ErrNotServed && e.code == http.StatusNotFound
}

// do sends one request, retrying transport errors and 5xx answers, and
// decodes a 2xx JSON answer into out.
func (c *SchedulerClient) do(ctx context.Context, method, path string, body []byte, timeout time.Duration, out any) error {
	if c.BaseURL == "" {
		return errors.New("no scheduler address")
	}
	url := strings.TrimSuffix(c.BaseURL, "/") + path
	hc := c.HTTP
	if hc == nil {
		hc = DefaultSchedulerHTTP
	}
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	wait := c.Backoff
	if wait <= 0 {
		wait = 200 * time.Millisecond
	}
	var err error
	for try := range attempts {
		if try > 0 {
			select {
			case <-ctx.Done():
				return errors.Join(err, ctx.Err())
			case <-time.After(wait):
			}
			wait *= 2
		}
		var retry bool
		retry, err = c.once(ctx, hc, method, url, body, timeout, out)
		if err == nil || !retry {
			return err
		}
	}
	return err
}

// once makes one attempt; retry reports whether another may succeed.
func (c *SchedulerClient) once(ctx context.Context, hc *http.Client, method, url string, body []byte, timeout time.Duration, out any) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return true, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// The body is neither read nor repeated (see statusError).
		return resp.StatusCode >= 500, &statusError{url: url, code: resp.StatusCode}
	}
	// The context's deadline bounds a body that trickles in, too.
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return true, fmt.Errorf("%s: reading the answer: %w", url, err)
	}
	if len(data) > maxAnswer {
		return false, fmt.Errorf("%s: the answer is larger than %d bytes", url, maxAnswer)
	}
	if err := json.Unmarshal(data, out); err != nil {
		// Not %w: a decoding error quotes the answer.
		return false, fmt.Errorf("%s: the answer is not the JSON this route returns", url)
	}
	return false, nil
}

// SchedulerHTTPURL is the in-cluster DNS address of the HTTP API of
// cluster's scheduler, through its Service, on schedulerHTTPPort's port.
func SchedulerHTTPURL(namespace, cluster string, svc *corev1.ServiceSpec) string {
	return "http://" + net.JoinHostPort(SchedulerName(cluster)+"."+namespace+".svc", strconv.Itoa(int(schedulerHTTPPort(svc))))
}

// schedulerServiceURL is the address the operator asks a scheduler at: its
// Service's cluster IP (a name could resolve anywhere), or, for a headless
// Service, its DNS name (which resolves to the Service's pods).
func schedulerServiceURL(svc *corev1.Service) string {
	ip := svc.Spec.ClusterIP
	if ip == "" || ip == corev1.ClusterIPNone || net.ParseIP(ip) == nil {
		return SchedulerHTTPURL(svc.Namespace, strings.TrimSuffix(svc.Name, "-scheduler"), &svc.Spec)
	}
	return "http://" + net.JoinHostPort(ip, strconv.Itoa(int(schedulerHTTPPort(&svc.Spec))))
}

// schedulerHTTPPort picks the scheduler Service's HTTP port: the port named
// http-dashboard, else the one numbered 8787, else 8787.
func schedulerHTTPPort(svc *corev1.ServiceSpec) int32 {
	if svc == nil {
		return DefaultSchedulerHTTPPort
	}
	for _, p := range svc.Ports {
		if p.Name == "http-dashboard" {
			return p.Port
		}
	}
	return DefaultSchedulerHTTPPort
}

// SchedulerURLTemplate returns a SchedulerURL function that expands
// {namespace} and {cluster} in tmpl, e.g.
// "http://{cluster}-scheduler.{namespace}.example.com:8787"; an empty
// template returns nil (the in-cluster Service address).
func SchedulerURLTemplate(tmpl string) func(namespace, cluster string) string {
	if tmpl == "" {
		return nil
	}
	return func(namespace, cluster string) string {
		return strings.NewReplacer("{namespace}", namespace, "{cluster}", cluster).Replace(tmpl)
	}
}
