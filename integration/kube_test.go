package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// The control plane of the tests that need a real kube-apiserver: etcd and
// kube-apiserver from KUBEBUILDER_ASSETS (hack/control-plane.sh builds and
// caches them, with kubectl), started with os/exec the first time a test
// asks, on 127.0.0.1, and stopped by TestMain. This module never depends
// on client-go or controller-runtime (cmd/deps_test.go), so the tests talk
// to it with net/http and the real kubectl. Without the assets those tests
// skip, except in CI (K8S_CRD_RESOLVER_CI set), where they fail.
const (
	assetsEnv = "KUBEBUILDER_ASSETS"
	ciEnv     = "K8S_CRD_RESOLVER_CI"
)

// controlPlane is a running etcd and kube-apiserver.
type controlPlane struct {
	server  string // https://127.0.0.1:PORT
	token   string // an admin's bearer token (group system:masters)
	kubectl string // the assets' kubectl
	procs   []*exec.Cmd
	exited  []chan struct{}
	dir     string
}

var (
	cpOnce sync.Once
	cp     *controlPlane
	cpErr  error
)

// kubeAPI returns a client of the shared control plane, starting it the
// first time; it skips under -short or without the assets (outside CI).
func kubeAPI(t *testing.T) *kube {
	t.Helper()
	if testing.Short() {
		t.Skip("needs etcd and kube-apiserver; skipped under -short")
	}
	assets := os.Getenv(assetsEnv)
	if err := checkAssets(assets); err != nil {
		if os.Getenv(ciEnv) != "" {
			t.Fatalf("%v (%s is set: CI must run these tests)", err, ciEnv)
		}
		t.Skipf("%v; export %s=\"$(hack/control-plane.sh)\" to run it", err, assetsEnv)
	}
	cpOnce.Do(func() { cp, cpErr = startControlPlane(assets) })
	if cpErr != nil {
		t.Fatalf("starting the control plane: %v", cpErr)
	}
	return &kube{server: cp.server, token: cp.token, http: insecureClient()}
}

// checkAssets reports why dir cannot serve: it must hold executable etcd
// and kube-apiserver binaries (kubectl, which hack/control-plane.sh leaves
// out with WITH_KUBECTL=0, only TestFitDescriptionsKubectl needs).
func checkAssets(dir string) error {
	if dir == "" {
		return errors.New(assetsEnv + " is unset; this test needs a real etcd and kube-apiserver")
	}
	var errs []error
	for _, b := range []string{"etcd", "kube-apiserver"} {
		st, err := os.Stat(filepath.Join(dir, b))
		switch {
		case err != nil:
			errs = append(errs, err)
		case st.IsDir() || st.Mode()&0o111 == 0:
			errs = append(errs, fmt.Errorf("%s: not an executable file", filepath.Join(dir, b)))
		}
	}
	return errors.Join(errs...)
}

// freePort returns a 127.0.0.1 port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startControlPlane(assets string) (*controlPlane, error) {
	dir, err := os.MkdirTemp("", "k8s-crd-resolver-apiserver-")
	if err != nil {
		return nil, err
	}
	c := &controlPlane{dir: dir, kubectl: filepath.Join(assets, "kubectl")}
	ok := false
	defer func() {
		if !ok {
			c.stop()
		}
	}()
	var ports [3]int
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return nil, err
		}
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	if err := c.start(filepath.Join(assets, "etcd"),
		"--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls=http://127.0.0.1:"+strconv.Itoa(ports[1]),
		"--unsafe-no-fsync=true",
	); err != nil {
		return nil, err
	}

	// The service account signing key (kube-apiserver requires one) and
	// an admin token; the serving certificate kube-apiserver writes itself
	// into --cert-dir.
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		"sa.key": pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		"sa.pub": pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}),
	}
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	c.token = fmt.Sprintf("%x", tok)
	files["tokens.csv"] = []byte(c.token + `,admin,admin,"system:masters"` + "\n")
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, err
		}
	}
	c.server = "https://127.0.0.1:" + strconv.Itoa(ports[2])
	if err := c.start(filepath.Join(assets, "kube-apiserver"),
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(ports[2]),
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--token-auth-file="+filepath.Join(dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--disable-admission-plugins=ServiceAccount",
		// No kubernetes Service endpoints: a loopback address cannot be one.
		"--endpoint-reconciler-type=none",
	); err != nil {
		return nil, err
	}
	// Ready when /readyz answers ok; a process that exits first fails the
	// start with its log.
	k := &kube{server: c.server, token: c.token, http: insecureClient()}
	for {
		if b, err := k.raw(context.Background(), http.MethodGet, "/readyz", nil, "", nil); err == nil && string(b) == "ok" {
			break
		}
		for i, ch := range c.exited {
			select {
			case <-ch:
				log, _ := os.ReadFile(c.procs[i].Stderr.(*os.File).Name())
				return nil, fmt.Errorf("%s exited: %s", filepath.Base(c.procs[i].Path), tail(log))
			default:
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	ok = true
	return c, nil
}

// tail is the end of a log, for an error message.
func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// start runs bin with args, its output in dir/<bin>.log.
func (c *controlPlane) start(bin string, args ...string) error {
	log, err := os.Create(filepath.Join(c.dir, filepath.Base(bin)+".log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return err
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		log.Close()
		close(done)
	}()
	c.procs = append(c.procs, cmd)
	c.exited = append(c.exited, done)
	return nil
}

// stop ends kube-apiserver, then etcd, and removes their files.
func (c *controlPlane) stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		_ = c.procs[i].Process.Signal(os.Interrupt)
		<-c.exited[i]
	}
	os.RemoveAll(c.dir)
}

// stopControlPlane is TestMain's: it stops the control plane if a test
// started it.
func stopControlPlane() {
	if cp != nil {
		cp.stop()
	}
}

func insecureClient() *http.Client {
	// The apiserver's self-signed certificate from --cert-dir, on
	// 127.0.0.1 and started by this process.
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
}

// kubectlArgs are the arguments that point the real kubectl at the
// control plane as its admin.
func kubectlArgs() []string {
	return []string{"--server", cp.server, "--token", cp.token, "--insecure-skip-tls-verify"}
}

// compileTemplate runs the main binary in the repository root (a compile
// with its output on stdout) and returns the CRD it printed.
func compileTemplate(t *testing.T, args ...string) *unstructured.Unstructured {
	t.Helper()
	r := runBin(t, filepath.Join(binDir, "k8s-crd-resolver"), "..", nil, args...)
	if r.code != 0 {
		t.Fatalf("k8s-crd-resolver %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(r.stdout), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// kube is a client of the apiserver's REST API for unstructured objects,
// the few calls of client-go's dynamic client these tests make, with the
// same shapes. onWarning, when set, gets each Warning header's text.
type kube struct {
	server, token string
	http          *http.Client
	onWarning     func(text string)
}

// resource is one resource, in one namespace or cluster-wide.
type resource struct {
	k   *kube
	gvr schema.GroupVersionResource
	ns  string
}

func (k *kube) Resource(gvr schema.GroupVersionResource) resource {
	return resource{k: k, gvr: gvr}
}

func (r resource) Namespace(ns string) resource {
	r.ns = ns
	return r
}

// path is the resource's collection path, or an object's when name is set.
func (r resource) path(name string) string {
	p := "/apis/" + r.gvr.Group + "/" + r.gvr.Version
	if r.gvr.Group == "" {
		p = "/api/" + r.gvr.Version
	}
	if r.ns != "" {
		p += "/namespaces/" + url.PathEscape(r.ns)
	}
	p += "/" + r.gvr.Resource
	if name != "" {
		p += "/" + url.PathEscape(name)
	}
	return p
}

func writeQuery(dryRun []string, fieldManager, fieldValidation string, force *bool) url.Values {
	q := url.Values{}
	for _, d := range dryRun {
		q.Add("dryRun", d)
	}
	if fieldManager != "" {
		q.Set("fieldManager", fieldManager)
	}
	if fieldValidation != "" {
		q.Set("fieldValidation", fieldValidation)
	}
	if force != nil {
		q.Set("force", strconv.FormatBool(*force))
	}
	return q
}

func (r resource) Get(ctx context.Context, name string, _ metav1.GetOptions) (*unstructured.Unstructured, error) {
	return r.k.object(ctx, http.MethodGet, r.path(name), nil, "", nil)
}

func (r resource) List(ctx context.Context, _ metav1.ListOptions) (*unstructured.Unstructured, error) {
	return r.k.object(ctx, http.MethodGet, r.path(""), nil, "", nil)
}

func (r resource) Create(ctx context.Context, obj *unstructured.Unstructured, o metav1.CreateOptions) (*unstructured.Unstructured, error) {
	return r.k.object(ctx, http.MethodPost, r.path(""), writeQuery(o.DryRun, o.FieldManager, o.FieldValidation, nil), "application/json", obj.Object)
}

func (r resource) Update(ctx context.Context, obj *unstructured.Unstructured, o metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	return r.k.object(ctx, http.MethodPut, r.path(obj.GetName()), writeQuery(o.DryRun, o.FieldManager, o.FieldValidation, nil), "application/json", obj.Object)
}

func (r resource) Delete(ctx context.Context, name string, o metav1.DeleteOptions) error {
	_, err := r.k.raw(ctx, http.MethodDelete, r.path(name), writeQuery(o.DryRun, "", "", nil), "application/json", o)
	return err
}

// UpdateStatus replaces obj's status (the status subresource).
func (r resource) UpdateStatus(ctx context.Context, obj *unstructured.Unstructured, o metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	return r.k.object(ctx, http.MethodPut, r.path(obj.GetName())+"/status", writeQuery(o.DryRun, o.FieldManager, o.FieldValidation, nil), "application/json", obj.Object)
}

// Apply is a server-side apply of obj by o.FieldManager.
func (r resource) Apply(ctx context.Context, name string, obj *unstructured.Unstructured, o metav1.ApplyOptions) (*unstructured.Unstructured, error) {
	return r.k.object(ctx, http.MethodPatch, r.path(name), writeQuery(o.DryRun, o.FieldManager, "", &o.Force), string(types.ApplyPatchType), obj.Object)
}

func (r resource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, o metav1.PatchOptions) (*unstructured.Unstructured, error) {
	return r.k.object(ctx, http.MethodPatch, r.path(name), writeQuery(o.DryRun, o.FieldManager, o.FieldValidation, o.Force), string(pt), json.RawMessage(data))
}

// object makes a request whose answer is one object (or a list).
func (k *kube) object(ctx context.Context, method, path string, q url.Values, contentType string, body any) (*unstructured.Unstructured, error) {
	b, err := k.raw(ctx, method, path, q, contentType, body)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(b, &u.Object); err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return u, nil
}

// raw makes a request and returns the answer's body; an error status
// becomes the apiserver's metav1.Status as an apierrors.StatusError, so
// apierrors.IsNotFound and friends work as with client-go.
func (k *kube) raw(ctx context.Context, method, path string, q url.Values, contentType string, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := k.server + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+k.token)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := k.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if k.onWarning != nil {
		for _, w := range resp.Header.Values("Warning") {
			k.onWarning(warningText(w))
		}
	}
	if resp.StatusCode >= 300 {
		var st metav1.Status
		if json.Unmarshal(b, &st) == nil && st.Kind == "Status" {
			return nil, &apierrors.StatusError{ErrStatus: st}
		}
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(b))
	}
	return b, nil
}

// warningText is the text of a Warning header (RFC 7234: 299 - "text"),
// unquoted as client-go's warning handlers receive it.
func warningText(h string) string {
	_, rest, ok := strings.Cut(h, " - ")
	if !ok {
		return h
	}
	if s, err := strconv.Unquote(rest); err == nil {
		return s
	}
	return rest
}

// eventually polls cond until it holds (no deadline of its own: go test's
// -timeout ends a run that never converges).
func eventually(t testing.TB, what string, cond func(ctx context.Context) (bool, string, error)) {
	t.Helper()
	last := ""
	for {
		ok, msg, err := cond(t.Context())
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if msg != last {
			t.Logf("%s: waiting: %s", what, msg)
			last = msg
		}
		time.Sleep(50 * time.Millisecond)
	}
}
