package e2e

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// assetsEnv names the variable envtest reads the binaries' directory from.
const assetsEnv = "KUBEBUILDER_ASSETS"

// requiredBinaries are the files envtest execs from the assets directory.
var requiredBinaries = []string{"etcd", "kube-apiserver"}

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

func runWithControlPlane(m *testing.M) int {
	if err := checkAssets(os.Getenv(assetsEnv)); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		fmt.Fprintf(os.Stderr, "e2e: build the control plane with:  export %s=\"$(hack/control-plane.sh)\"\n", assetsEnv)
		fmt.Fprintln(os.Stderr, "e2e: or skip these tests with:      go test -short ./...")
		return 1
	}
	env, err := newEnv()
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

// newEnv returns an envtest environment whose etcd and kube-apiserver serve
// on 127.0.0.1 only (envtest's own default may pick ::1 or resolve
// "localhost").
func newEnv() (*envtest.Environment, error) {
	env := &envtest.Environment{BinaryAssetsDirectory: os.Getenv(assetsEnv)}
	apiPort, err := freePort()
	if err != nil {
		return nil, err
	}
	api := env.ControlPlane.GetAPIServer()
	api.SecureServing.Address = "127.0.0.1"
	api.SecureServing.Port = strconv.Itoa(apiPort)
	etcdPort, err := freePort()
	if err != nil {
		return nil, err
	}
	env.ControlPlane.Etcd = &envtest.Etcd{
		URL: &url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(etcdPort))},
	}
	return env, nil
}

// freePort returns a TCP port that was free on 127.0.0.1 a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// checkAssets reports why dir cannot serve as KUBEBUILDER_ASSETS.
func checkAssets(dir string) error {
	if dir == "" {
		return errors.New(assetsEnv + " is unset; the e2e tests need a real etcd and kube-apiserver")
	}
	var errs []error
	for _, b := range requiredBinaries {
		p := filepath.Join(dir, b)
		st, err := os.Stat(p)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
		case st.IsDir() || st.Mode()&0o111 == 0:
			errs = append(errs, fmt.Errorf("%s: not an executable file", p))
		}
	}
	return errors.Join(errs...)
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
