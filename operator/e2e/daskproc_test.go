package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"
)

// This file runs real Dask processes (Debian's python3-distributed) for the
// operator to talk to. No kubelet runs here, so the test plays its part:
//
//   - The scheduler Deployment <cluster>-scheduler stands for one
//     dask-scheduler process on 127.0.0.1, started with the env of the
//     Deployment's scheduler container as the operator wrote it (so the
//     HTTP API is on only if the operator turned it on). The cluster's
//     Service address is replaced by the process's ports through
//     SchedulerOptions.URL (schedulerURLs), the documented override.
//   - Each worker Deployment <group>-worker-<i> stands for one dask-worker
//     process started with --name set to the Deployment's DASK_WORKER_NAME
//     (what a pod running `dask-worker --name $(DASK_WORKER_NAME)` does), so
//     the scheduler knows the worker by the Deployment's name, the mapping
//     the operator relies on. The Deployment is marked available once the
//     scheduler lists the worker, and the process is stopped once the
//     Deployment is gone, as a kubelet stops the pod of a deleted one.

// schedulerURLs maps "namespace/cluster" to the HTTP address of the
// scheduler process standing for that cluster's scheduler.
var schedulerURLs sync.Map

// schedulerURL is the operator's SchedulerOptions.URL in these tests: a
// registered scheduler, else a port nothing listens on (so clusters without
// a scheduler process fail fast, as an absent scheduler does).
func schedulerURL(namespace, cluster string) string {
	if u, ok := schedulerURLs.Load(namespace + "/" + cluster); ok {
		return u.(string)
	}
	return "http://127.0.0.1:1"
}

// ciEnv names the variable .ci/run sets: in CI, missing Dask is a failure.
const ciEnv = "K8S_CRD_RESOLVER_CI"

// daskPython returns a Python that imports distributed: Debian's
// /usr/bin/python3 first (another python3 may come first on PATH), then
// python3 on PATH. Without one the test skips, except in CI, where it fails.
func daskPython(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import distributed").Run() == nil {
			return path
		}
	}
	msg := "no python3 imports distributed; install Debian's python3-distributed (apt-get install -y python3-distributed) to run the Dask scheduler tests"
	if os.Getenv(ciEnv) != "" || os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI must run them)")
	}
	t.Skip(msg)
	return ""
}

// proc is one child process with its output kept for failure messages.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *testenv.SyncBuffer
	done chan struct{}
}

// startProc starts a process that the test's cleanup stops.
func startProc(t *testing.T, name string, env []string, path string, args ...string) *proc {
	t.Helper()
	p, err := launchProc(name, env, path, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	return p
}

// launchProc starts a process; the caller stops it.
func launchProc(name string, env []string, path string, args ...string) (*proc, error) {
	p := &proc{name: name, cmd: exec.Command(path, args...), out: &testenv.SyncBuffer{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	return p, nil
}

// stop ends the process (SIGTERM, then SIGKILL if it lingers) and waits.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// daskScheduler is a dask-scheduler process on 127.0.0.1.
type daskScheduler struct {
	*proc
	comm string // tcp://127.0.0.1:port
	http string // http://127.0.0.1:port
}

// startScheduler starts the scheduler standing for cluster's scheduler
// Deployment, with its scheduler container's env, registers it as the
// cluster's scheduler, and waits until it serves HTTP.
func startScheduler(t *testing.T, c client.Client, py, ns, cluster string) *daskScheduler {
	t.Helper()
	var d appsv1.Deployment
	testenv.Eventually(t, timeout, "scheduler deployment", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: reconciler.SchedulerName(cluster)}, &d)
		return err == nil, fmt.Sprint(err), nil
	})
	var env []string
	for _, e := range containerNamed(d.Spec.Template.Spec, "scheduler").Env {
		env = append(env, e.Name+"="+e.Value)
	}
	commPort, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	httpPort, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &daskScheduler{
		proc: startProc(t, "dask-scheduler", env, py, "-m", "distributed.cli.dask_scheduler",
			"--host", "127.0.0.1", "--port", fmt.Sprint(commPort), "--dashboard-address", fmt.Sprintf("127.0.0.1:%d", httpPort)),
		comm: fmt.Sprintf("tcp://127.0.0.1:%d", commPort),
		http: fmt.Sprintf("http://127.0.0.1:%d", httpPort),
	}
	testenv.Eventually(t, 2*timeout, "scheduler serving "+s.http, func(ctx context.Context) (bool, string, error) {
		select {
		case <-s.done:
			return false, "", fmt.Errorf("dask-scheduler exited:\n%s", s.out)
		default:
		}
		code, _ := get(ctx, s.http+"/health")
		return code == http.StatusOK, fmt.Sprintf("HTTP %d", code), nil
	})
	schedulerURLs.Store(ns+"/"+cluster, s.http)
	t.Cleanup(func() { schedulerURLs.Delete(ns + "/" + cluster) })
	markAvailable(t, c, &d)
	return s
}

// containerNamed returns spec's container called name, else the first.
func containerNamed(spec corev1.PodSpec, name string) corev1.Container {
	for _, c := range spec.Containers {
		if c.Name == name {
			return c
		}
	}
	return spec.Containers[0]
}

// get fetches url and returns the status code and body (0 when unreachable).
func get(ctx context.Context, url string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// schedulerWorkers lists the names of the workers s knows.
func (s *daskScheduler) workers(ctx context.Context) (map[string]bool, error) {
	ws, err := (&reconciler.SchedulerClient{BaseURL: s.http, Attempts: 1}).Workers(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, w := range ws {
		out[w.Name] = true
	}
	return out, nil
}

// gone is a worker Deployment the kubelet saw deleted.
type gone struct {
	name string
	// listed: the scheduler still listed the worker when its Deployment
	// was already gone (it was not retired first).
	listed bool
}

// kubelet plays the kubelet and the Deployment controller for the worker
// Deployments of one namespace, with worker processes of one scheduler.
type kubelet struct {
	t     *testing.T
	c     client.Client
	ns    string
	py    string
	sched *daskScheduler

	mu      sync.Mutex
	procs   map[string]*proc
	gone    []gone
	maxSeen map[string]int // worker group -> most Deployments seen at once
	stopped bool

	stop context.CancelFunc
	done chan struct{}
}

// startKubelet runs the kubelet loop until the test ends.
func startKubelet(t *testing.T, c client.Client, py, ns string, sched *daskScheduler) *kubelet {
	ctx, stop := context.WithCancel(context.Background())
	k := &kubelet{t: t, c: c, ns: ns, py: py, sched: sched, procs: map[string]*proc{}, maxSeen: map[string]int{}, stop: stop, done: make(chan struct{})}
	go k.run(ctx)
	t.Cleanup(k.shutdown)
	return k
}

func (k *kubelet) shutdown() {
	k.stop()
	<-k.done
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.procs {
		p.stop()
	}
}

func (k *kubelet) run(ctx context.Context) {
	defer close(k.done)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := k.sync(ctx); err != nil && ctx.Err() == nil {
			k.t.Errorf("kubelet: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// sync starts a worker for each new worker Deployment, marks those the
// scheduler lists available, and stops the workers of deleted ones.
func (k *kubelet) sync(ctx context.Context) error {
	var list appsv1.DeploymentList
	if err := k.c.List(ctx, &list, client.InNamespace(k.ns), client.MatchingLabels{reconciler.LabelComponent: reconciler.ComponentWorker}); err != nil {
		return err
	}
	listed, err := k.sched.workers(ctx)
	if err != nil {
		listed = nil // the scheduler is stopped: nothing becomes available
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	present := map[string]bool{}
	groups := map[string]int{}
	for i := range list.Items {
		d := &list.Items[i]
		present[d.Name] = true
		groups[d.Labels[reconciler.LabelWorkerGroup]]++
		if _, ok := k.procs[d.Name]; !ok && d.DeletionTimestamp.IsZero() && !k.stopped {
			var name string
			for _, e := range containerNamed(d.Spec.Template.Spec, "worker").Env {
				if e.Name == reconciler.EnvWorkerName {
					name = e.Value
				}
			}
			if name == "" {
				return fmt.Errorf("worker deployment %s has no %s", d.Name, reconciler.EnvWorkerName)
			}
			p, err := launchProc("dask-worker "+name, nil, k.py, "-m", "distributed.cli.dask_worker", k.sched.comm,
				"--name", name, "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1", "--no-dashboard", "--memory-limit", "2GB")
			if err != nil {
				return err
			}
			k.procs[d.Name] = p
		}
		if listed[d.Name] && d.Status.AvailableReplicas == 0 {
			d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UpdatedReplicas = 1, 1, 1, 1
			if err := k.c.Status().Update(ctx, d); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	for g, n := range groups {
		k.maxSeen[g] = max(k.maxSeen[g], n)
	}
	for name, p := range k.procs {
		if present[name] {
			continue
		}
		k.gone = append(k.gone, gone{name: name, listed: listed[name]})
		delete(k.procs, name)
		p.stop()
	}
	return nil
}

// pause stops starting workers (the scheduler is about to go away).
func (k *kubelet) pause() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stopped = true
}

// deleted returns the worker Deployments seen deleted so far.
func (k *kubelet) deleted() []gone {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]gone(nil), k.gone...)
}

// most returns the most Deployments group had at once.
func (k *kubelet) most(group string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.maxSeen[group]
}

// daskClient is the test's Dask client process (testdata/dask_client.py).
// clientAnswerWait bounds how long a command of the Dask client may go
// unanswered; every command the tests send finishes far sooner.
const clientAnswerWait = 5 * time.Minute

type daskClient struct {
	*proc
	in  io.WriteCloser
	out *bufio.Scanner
}

func startClient(t *testing.T, py string, s *daskScheduler) *daskClient {
	t.Helper()
	script, err := filepath.Abs("testdata/dask_client.py")
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{name: "dask client", cmd: exec.Command(py, script, s.comm, t.TempDir()), out: &testenv.SyncBuffer{}, done: make(chan struct{})}
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { in.Close(); p.stop() })
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &daskClient{proc: p, in: in, out: sc}
}

// do sends one command and decodes its answer.
func (d *daskClient) do(t *testing.T, cmd string) map[string]any {
	t.Helper()
	if _, err := fmt.Fprintln(d.in, cmd); err != nil {
		t.Fatalf("dask client %q: %v\n%s", cmd, err, d.proc.out)
	}
	// A command whose task lost its worker would wait for ever: the wait
	// is bounded so that such a run fails with the client's own words
	// instead of hanging the whole suite (a guard, not a timing).
	scanned := make(chan bool, 1)
	go func() { scanned <- d.out.Scan() }()
	select {
	case ok := <-scanned:
		if !ok {
			t.Fatalf("dask client %q: no answer (%v); its stderr:\n%s", cmd, d.out.Err(), d.proc.out)
		}
	case <-time.After(clientAnswerWait):
		d.proc.stop()
		t.Fatalf("dask client %q: no answer in %s; its stderr:\n%s", cmd, clientAnswerWait, d.proc.out)
	}
	var ans map[string]any
	if err := json.Unmarshal(d.out.Bytes(), &ans); err != nil || ans["ok"] != true {
		t.Fatalf("dask client %q answered %s (%v); its stderr:\n%s", cmd, d.out.Bytes(), err, d.proc.out)
	}
	return ans
}
