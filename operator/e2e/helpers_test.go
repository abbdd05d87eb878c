package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"
)

// operatorState is the one reconciler the package runs, started on first use.
type operatorState struct {
	once       sync.Once
	err        error
	client     client.Client
	metricsURL string
	probeURL   string
	stop       context.CancelFunc
	done       chan struct{}
}

var op operatorState

// The operator's retire timeout and autoscaler cool-down in these tests.
const (
	retireTimeout = 4 * time.Second
	coolDown      = 2 * time.Second
)

// startOperator installs the embedded CRDs and starts the reconciler (once
// per test binary) and returns a direct (uncached) client.
func startOperator(t *testing.T) client.Client {
	t.Helper()
	cfg := restConfig(t)
	op.once.Do(func() { op.err = op.start(cfg) })
	if op.err != nil {
		t.Fatalf("starting the operator: %v", op.err)
	}
	return op.client
}

func (o *operatorState) start(cfg *rest.Config) error {
	scheme, err := reconciler.NewScheme()
	if err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	ctx := context.Background()
	// The operator runs as the service account of the kustomize base
	// (deploy/), so every test also proves those permissions are enough.
	if err := applyRBAC(ctx, c); err != nil {
		return err
	}
	cfg = operatorConfig(cfg)
	oc, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if err := reconciler.InstallCRDs(ctx, oc, reconciler.EmbeddedCRDs(), time.Minute); err != nil {
		return err
	}
	mp, err := testenv.FreePort()
	if err != nil {
		return err
	}
	pp, err := testenv.FreePort()
	if err != nil {
		return err
	}
	mgr, err := reconciler.NewManager(cfg, reconciler.Options{
		MetricsAddr: fmt.Sprintf("127.0.0.1:%d", mp),
		ProbeAddr:   fmt.Sprintf("127.0.0.1:%d", pp),
		Concurrency: 4,
		// Short periods, so the tests with real schedulers take seconds.
		Scheduler: reconciler.SchedulerOptions{
			URL:               schedulerURL,
			Timeout:           5 * time.Second,
			RetireTimeout:     retireTimeout,
			AutoscalePeriod:   500 * time.Millisecond,
			AutoscaleCoolDown: coolDown,
			IdleCheckPeriod:   500 * time.Millisecond,
		},
	})
	if err != nil {
		return err
	}
	mctx, stop := context.WithCancel(ctx)
	o.stop, o.done = stop, make(chan struct{})
	go func() {
		defer close(o.done)
		if err := mgr.Start(mctx); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: operator stopped: %v\n", err)
		}
	}()
	o.client = c
	o.metricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", mp)
	o.probeURL = fmt.Sprintf("http://127.0.0.1:%d", pp)
	// Wait until the manager is ready, so tests do not race its start.
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		resp, err := http.Get(o.probeURL + "/readyz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// shutdown stops the operator, if it runs, before the control plane goes.
func (o *operatorState) shutdown() {
	if o.stop != nil {
		o.stop()
		<-o.done
	}
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T, c client.Client) string {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.TrimRight(name, "-") + fmt.Sprintf("-%d", time.Now().UnixNano()%100000)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(t.Context(), ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return name
}

// readExample decodes examples/<file> into an unstructured object in ns.
func readExample(t *testing.T, file, ns string) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile("../../examples/" + file)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &u.Object); err != nil {
		t.Fatalf("examples/%s: %v", file, err)
	}
	u.SetNamespace(ns)
	return u
}

// createExample creates examples/<file> in a new namespace.
func createExample(t *testing.T, c client.Client, file string) (string, *unstructured.Unstructured) {
	t.Helper()
	ns := newNamespace(t, c)
	u := readExample(t, file, ns)
	if err := c.Create(t.Context(), u); err != nil {
		t.Fatalf("creating examples/%s: %v", file, err)
	}
	return ns, u
}

// inNamespace returns a function naming objects in ns.
func inNamespace(ns string) func(name string) client.ObjectKey {
	return func(name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }
}

// The operator's identity in the kustomize base (deploy/).
const (
	operatorNamespace = "dask-operator"
	operatorAccount   = "dask-operator"
)

// operatorConfig returns cfg acting as the operator's service account.
func operatorConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + operatorNamespace + ":" + operatorAccount,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + operatorNamespace, "system:authenticated"},
	}
	return cfg
}

// applyRBAC creates the objects of the kustomize base's namespace.yaml,
// serviceaccount.yaml, rbac/role.yaml and rbac/role_binding.yaml (deploy/;
// the roles are generated from the operator's markers, as the Helm chart's
// are) that do not exist yet, in the base's namespace.
func applyRBAC(ctx context.Context, c client.Client) error {
	for _, f := range []string{"namespace.yaml", "serviceaccount.yaml", "rbac/role.yaml", "rbac/role_binding.yaml"} {
		b, err := os.ReadFile("../../deploy/" + f)
		if err != nil {
			return err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return fmt.Errorf("deploy/%s: %w", f, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			switch u.GetKind() {
			case "ServiceAccount", "Role", "RoleBinding":
				u.SetNamespace(operatorNamespace)
			}
			if err := c.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating %s %s: %w", u.GetKind(), u.GetName(), err)
			}
		}
	}
	return nil
}

// directClient returns an uncached client for cfg with the operator's scheme.
func directClient(t *testing.T, cfg *rest.Config) client.Client {
	t.Helper()
	scheme, err := reconciler.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// compileTemplate runs the k8s-crd-resolver binary bin with args (a resolve
// of one template, from the repository root) and decodes the CRD it prints.
func compileTemplate(t *testing.T, bin string, args ...string) *unstructured.Unstructured {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("k8s-crd-resolver %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(out, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// waitEstablished polls until the CRD name is Established, or fails.
func waitEstablished(t *testing.T, c client.Client, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	testenv.Eventually(t, timeout, name+" Established", func(ctx context.Context) (bool, string, error) {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &crd); err != nil {
			return false, err.Error(), nil
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, "", nil
			}
		}
		return false, fmt.Sprint(crd.Status.Conditions), nil
	})
	return &crd
}

// sameJSON: a and b are the same JSON value (numbers decoded from YAML
// are float64, from the apiserver int64).
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	return reflect.DeepEqual(jsonRound(t, a), jsonRound(t, b))
}
