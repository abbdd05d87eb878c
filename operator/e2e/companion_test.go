package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"
)

// TestReconcileCommand checks the operator's binary, k8s-crd-resolver-reconcile:
// it reads a kubeconfig, takes the leader lease, installs the CRDs, serves
// probes and metrics on the addresses given, and stops cleanly on SIGTERM.
func TestReconcileCommand(t *testing.T) {
	c := startOperator(t)
	ctx := t.Context()
	bin := buildBinaries(t)
	// The operator's own binary: what a pod runs, and what gets the signals.
	proc := startCompanion(t, bin, writeKubeconfig(t, c),
		"--namespace", "kube-system",
		"--leader-elect", "--leader-election-namespace", operatorNamespace)
	testenv.Eventually(t, timeout, "leader lease", func(ctx context.Context) (bool, string, error) {
		var lease coordinationv1.Lease
		err := c.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: "dask-operator.kubernetes.dask.org"}, &lease)
		return err == nil && lease.Spec.HolderIdentity != nil, fmt.Sprint(err), nil
	})
	var crd apiextensionsv1.CustomResourceDefinition
	if err := c.Get(ctx, client.ObjectKey{Name: "daskclusters.kubernetes.dask.org"}, &crd); err != nil {
		t.Fatal(err)
	}
	if code, body := httpGet(t, proc.metricsURL); code != http.StatusOK || !strings.Contains(body, "controller_runtime_reconcile_total") {
		t.Errorf("companion /metrics = %d", code)
	}
	if err := proc.stop(); err != nil {
		t.Error(err)
	}
}

// companion is a running k8s-crd-resolver-reconcile process.
type companion struct {
	cmd        *exec.Cmd
	pid        int
	metricsURL string
	exited     chan error
	logs       *testenv.SyncBuffer
}

// startCompanion runs the reconcile companion from bin against kubeconfig
// with args, serving metrics and probes on free 127.0.0.1 ports, and waits
// until it is ready. It is killed at the end of the test unless stopped.
func startCompanion(t *testing.T, bin, kubeconfig string, args ...string) *companion {
	t.Helper()
	mp, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	pp, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p := &companion{
		metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", mp),
		exited:     make(chan error, 1),
		logs:       &testenv.SyncBuffer{},
	}
	p.cmd = exec.Command(filepath.Join(bin, "k8s-crd-resolver-reconcile"), append([]string{
		"--kubeconfig", kubeconfig,
		"--metrics-bind-address", fmt.Sprintf("127.0.0.1:%d", mp),
		"--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", pp),
	}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.pid = p.cmd.Process.Pid
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	testenv.Eventually(t, timeout, "companion ready", func(ctx context.Context) (bool, string, error) {
		select {
		case err := <-p.exited:
			return false, "", fmt.Errorf("reconcile exited early: %w\n%s", err, p.logs.String())
		default:
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", pp))
		if err != nil {
			return false, err.Error(), nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status, nil
	})
	return p
}

// stop sends SIGTERM and waits for a clean exit.
func (p *companion) stop() error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-p.exited:
		if err != nil {
			return fmt.Errorf("reconcile did not stop cleanly on SIGTERM: %w\n%s", err, p.logs.String())
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("reconcile still running 30s after SIGTERM\n%s", p.logs.String())
	}
}

// writeKubeconfig writes a kubeconfig acting as the operator's service
// account (deploy/'s RBAC, which it applies) to a file.
func writeKubeconfig(t *testing.T, c client.Client) string {
	t.Helper()
	if err := applyRBAC(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := saveKubeconfig(operatorConfig(restConfig(t)), path); err != nil {
		t.Fatal(err)
	}
	return path
}

// saveKubeconfig writes cfg's server, credentials and impersonation as a
// kubeconfig file.
func saveKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken,
		Impersonate: cfg.Impersonate.UserName, ImpersonateGroups: cfg.Impersonate.Groups,
	}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}

// buildBinaries builds k8s-crd-resolver (the compiler module, at the
// repository root) and its reconcile companion (this module) into one
// directory, as `make install` or a release archive puts them, and returns
// it. They are built once per test binary (into TestMain's temporary
// directory) and shared by every test that runs them.
func buildBinaries(t *testing.T) string {
	t.Helper()
	if tempDir == "" {
		restConfig(t) // skips under -short, fails without TestMain's control plane
	}
	binOnce.Do(func() {
		binDir = filepath.Join(tempDir, "bin")
		for _, b := range []struct{ dir, pkg, name string }{
			{"../..", ".", "k8s-crd-resolver"},
			{"..", "./cmd/k8s-crd-resolver-reconcile", "k8s-crd-resolver-reconcile"},
		} {
			c := exec.Command("go", "build", "-o", filepath.Join(binDir, b.name), b.pkg)
			c.Dir = b.dir
			if out, err := c.CombinedOutput(); err != nil {
				binErr = fmt.Errorf("building %s: %v\n%s", b.name, err, out)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)
