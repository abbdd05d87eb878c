package e2e

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"
)

// cfg is the rest config of the shared control plane; nil under -short.
var cfg *rest.Config

func TestMain(m *testing.M) {
	flag.Parse()
	// Errors only: the operator's and client-go's logs stay out of test output.
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	if testing.Short() {
		os.Exit(m.Run())
	}
	os.Exit(runWithControlPlane(m))
}

// tempDir is TestMain's temporary directory, removed after the tests.
var tempDir string

func runWithControlPlane(m *testing.M) int {
	if err := testenv.CheckAssets(os.Getenv(testenv.AssetsEnv)); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		fmt.Fprintf(os.Stderr, "e2e: build the control plane with:  export %s=\"$(hack/control-plane.sh)\"\n", testenv.AssetsEnv)
		fmt.Fprintln(os.Stderr, "e2e: or skip these tests with:      go test -short ./...")
		return 1
	}
	env, err := testenv.New(os.Getenv(testenv.AssetsEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	cfg, err = env.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: starting control plane: %v\n", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "e2e-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	tempDir = dir
	stopKCM, err := startKCM(cfg, dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		_ = env.Stop()
		return 1
	}
	code := m.Run()
	op.shutdown()
	stopKCM()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: stopping control plane: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// restConfig returns the shared control plane's config, skipping under -short.
func restConfig(t *testing.T) *rest.Config {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped under -short; run without -short against a real control plane")
	}
	if cfg == nil {
		t.Fatal("e2e: control plane not started")
	}
	return rest.CopyConfig(cfg)
}
