package deploytest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"
)

// Every test binary of the repository accepts -update (see internal/golden
// in the root module); this package has no golden files.
var _ = flag.Bool("update", false, "rewrite golden files (none in this package)")

// Set by TestMain when the control plane runs.
var (
	cfg      *rest.Config
	auditLog string
)

// auditPolicy logs every request's metadata (who, verb, resource, name,
// response code) once it completes.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
  - level: Metadata
`

func TestMain(m *testing.M) {
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	if testing.Short() {
		os.Exit(m.Run())
	}
	os.Exit(runWithControlPlane(m))
}

func runWithControlPlane(m *testing.M) int {
	assets := os.Getenv(testenv.AssetsEnv)
	if err := testenv.CheckAssets(assets); err != nil {
		fmt.Fprintf(os.Stderr, "deploytest: %v\ndeploytest: build the control plane with:  export %s=\"$(hack/control-plane.sh)\"\ndeploytest: or skip these tests with:      go test -short ./...\n", err, testenv.AssetsEnv)
		return 1
	}
	dir, err := os.MkdirTemp("", "deploytest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	auditLog = filepath.Join(dir, "audit.log")
	env, err := testenv.New(assets)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env.ControlPlane.GetAPIServer().Configure().
		Set("audit-policy-file", policy).
		Set("audit-log-path", auditLog).
		Set("audit-log-format", "json").
		Set("audit-log-mode", "blocking")
	cfg, err = env.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "deploytest: starting the control plane: %v\n", err)
		return 1
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "deploytest: stopping the control plane: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// restConfig returns the control plane's admin config, skipping under -short.
func restConfig(t *testing.T) *rest.Config {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped under -short; run without -short against a real control plane")
	}
	if cfg == nil {
		t.Fatal("control plane not started")
	}
	return rest.CopyConfig(cfg)
}
