package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// kcm is the kube-controller-manager running the garbage collector; nil when
// its binary is not in KUBEBUILDER_ASSETS.
var kcm *exec.Cmd

// kcmLogs holds its output, printed when it fails to start.
var kcmLogs testenv.SyncBuffer

// startKCM runs kube-controller-manager from the assets directory with only
// the garbage collector, against cfg, serving nothing. It returns a stop
// function; a missing binary is not an error here (TestGarbageCollection
// fails instead).
func startKCM(cfg *rest.Config, dir string) (func(), error) {
	bin := filepath.Join(os.Getenv(testenv.AssetsEnv), "kube-controller-manager")
	if _, err := os.Stat(bin); err != nil {
		return func() {}, nil
	}
	path := filepath.Join(dir, "kcm.kubeconfig")
	if err := saveKubeconfig(cfg, path); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin,
		"--kubeconfig", path,
		"--controllers", "garbagecollector",
		"--leader-elect=false",
		"--secure-port=0",
		"--bind-address=127.0.0.1",
	)
	cmd.Stdout, cmd.Stderr = &kcmLogs, &kcmLogs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting kube-controller-manager: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		return nil, fmt.Errorf("kube-controller-manager exited at start: %w\n%s", err, kcmLogs.String())
	case <-time.After(time.Second):
	}
	kcm = cmd
	return func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}, nil
}

// TestGarbageCollection deletes a DaskCluster and waits for the real
// garbage collector (kube-controller-manager) to delete everything the
// reconciler made for it, through the owner references: scheduler
// Deployment and Service, default worker group, and (one level further
// down) the worker Deployments.
func TestGarbageCollection(t *testing.T) {
	c := startOperator(t)
	if kcm == nil {
		t.Fatalf("kube-controller-manager is not in %s=%s; rebuild the control plane with WITH_KCM=1 hack/control-plane.sh", testenv.AssetsEnv, os.Getenv(testenv.AssetsEnv))
	}
	ctx := t.Context()
	ns, u := createExample(t, c, "daskcluster.yaml")
	key := inNamespace(ns)
	children := []client.Object{
		&appsv1.Deployment{}, &corev1.Service{}, &daskv1.DaskWorkerGroup{},
	}
	childNames := []string{"example-scheduler", "example-scheduler", "example-default"}
	for i, o := range children {
		testenv.Eventually(t, timeout, childNames[i], func(ctx context.Context) (bool, string, error) {
			err := c.Get(ctx, key(childNames[i]), o)
			return err == nil, fmt.Sprint(err), nil
		})
	}
	workers := waitWorkers(t, c, ns, "example-default", 2)

	if err := c.Delete(ctx, u); err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		children = append(children, &appsv1.Deployment{})
		childNames = append(childNames, w.Name)
	}
	for i, o := range children {
		testenv.Eventually(t, 2*timeout, "garbage collection of "+childNames[i], func(ctx context.Context) (bool, string, error) {
			err := c.Get(ctx, key(childNames[i]), o)
			return apierrors.IsNotFound(err), fmt.Sprint(err), nil
		})
	}
}
