// Package testenv is what the operator's control-plane tests share: an
// envtest environment whose etcd and kube-apiserver serve on 127.0.0.1
// only, the check of KUBEBUILDER_ASSETS, free ports, polling, a buffer
// for a child process's output, and controller-gen's output for the checks
// of generated files. Only tests import it.
package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// AssetsEnv names the variable envtest reads the binaries' directory from.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// CheckAssets reports why dir cannot serve as KUBEBUILDER_ASSETS: it must
// hold executable etcd and kube-apiserver binaries.
func CheckAssets(dir string) error {
	if dir == "" {
		return errors.New(AssetsEnv + " is unset; these tests need a real etcd and kube-apiserver")
	}
	var errs []error
	for _, b := range []string{"etcd", "kube-apiserver"} {
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

// New returns an envtest environment running the binaries in assets, with
// etcd and kube-apiserver on free 127.0.0.1 ports (envtest's own default
// may pick ::1 or resolve "localhost").
func New(assets string) (*envtest.Environment, error) {
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	apiPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	api := env.ControlPlane.GetAPIServer()
	api.SecureServing.Address = "127.0.0.1"
	api.SecureServing.Port = strconv.Itoa(apiPort)
	etcdPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	env.ControlPlane.Etcd = &envtest.Etcd{
		URL: &url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(etcdPort))},
	}
	return env, nil
}

// FreePort returns a TCP port that was free on 127.0.0.1 a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Eventually polls cond until it returns true or timeout passes, then
// fails with cond's last message.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, string, error)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, msg, err := cond(ctx)
		last = msg
		return ok, err
	})
	if err != nil {
		t.Fatalf("%s: %v (last: %s)", what, err, last)
	}
}

// SyncBuffer is a bytes.Buffer safe for an exec copier and the test.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ControllerGen runs controller-gen, built once by root's hack/tools.sh
// (root: the repository root, from the test's directory), in dir with args
// and "output:GEN:dir=" a new temporary directory, which it returns: the
// files of generator gen, for a test to compare with the committed ones.
func ControllerGen(t testing.TB, root, dir, gen string, args ...string) string {
	t.Helper()
	tools, err := filepath.Abs(filepath.Join(root, "hack", "tools.sh"))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := exec.Command(tools, "controller-gen").Output()
	if err != nil {
		t.Fatalf("building controller-gen: %v", err)
	}
	out := t.TempDir()
	cmd := exec.Command(strings.TrimSpace(string(bin)), append(args, "output:"+gen+":dir="+out)...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("controller-gen: %v\n%s", err, b)
	}
	return out
}
