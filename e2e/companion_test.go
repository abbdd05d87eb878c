package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestReconcileCommand checks `k8s-crd-resolver reconcile`: the main binary
// finds its companion next to it, and the companion reads a kubeconfig,
// takes the leader lease, installs the CRDs, serves probes and metrics on
// the addresses given, and stops cleanly on SIGTERM.
func TestReconcileCommand(t *testing.T) {
	c := startOperator(t)
	ctx := t.Context()
	bin := t.TempDir()
	for pkg, name := range map[string]string{"..": "k8s-crd-resolver", "../cmd/k8s-crd-resolver-reconcile": "k8s-crd-resolver-reconcile"} {
		out, err := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, name), pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("building %s: %v\n%s", name, err, out)
		}
	}
	// The main binary delegates to the companion next to it.
	help, err := exec.CommandContext(ctx, filepath.Join(bin, "k8s-crd-resolver"), "reconcile", "--help").CombinedOutput()
	if err != nil || !bytes.Contains(help, []byte("--leader-elect")) {
		t.Fatalf("k8s-crd-resolver reconcile --help did not reach the companion: %v\n%s", err, help)
	}

	// The companion itself runs the operator; it is what a pod would run,
	// and what gets the signals.
	kubeconfig := writeKubeconfig(t)
	mp, _ := freePort()
	pp, _ := freePort()
	var logs bytes.Buffer
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "k8s-crd-resolver-reconcile"),
		"--kubeconfig", kubeconfig,
		"--namespace", "kube-system",
		"--leader-elect", "--leader-election-namespace", "kube-system",
		"--metrics-bind-address", fmt.Sprintf("127.0.0.1:%d", mp),
		"--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", pp),
	)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()

	eventually(t, timeout, "companion ready", func(ctx context.Context) (bool, string, error) {
		select {
		case err := <-exited:
			return false, "", fmt.Errorf("reconcile exited early: %v\n%s", err, logs.String())
		default:
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", pp))
		if err != nil {
			return false, err.Error(), nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status, nil
	})
	eventually(t, timeout, "leader lease", func(ctx context.Context) (bool, string, error) {
		var lease coordinationv1.Lease
		err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "dask-operator.kubernetes.dask.org"}, &lease)
		return err == nil && lease.Spec.HolderIdentity != nil, fmt.Sprint(err), nil
	})
	var crd apiextensionsv1.CustomResourceDefinition
	if err := c.Get(ctx, client.ObjectKey{Name: "daskclusters.kubernetes.dask.org"}, &crd); err != nil {
		t.Fatal(err)
	}
	if code, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", mp)); code != http.StatusOK || !bytes.Contains([]byte(body), []byte("controller_runtime_reconcile_total")) {
		t.Errorf("companion /metrics = %d", code)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("reconcile did not stop cleanly on SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(timeout):
		t.Fatalf("reconcile still running 30s after SIGTERM\n%s", logs.String())
	}
}

// writeKubeconfig writes the control plane's admin credentials to a file.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	cfg := restConfig(t)
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
