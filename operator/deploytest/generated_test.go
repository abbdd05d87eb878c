package deploytest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"
)

// The operator's roles as `make generate` writes them: the kustomize base
// reads the first, the chart's templates/rbac.yaml the second.
var generatedRoles = []string{
	"../../deploy/rbac/role.yaml",
	chartDir + "/files/rbac-roles.yaml",
}

// TestRBACGenerated runs controller-gen's rbac generator on the operator's
// +kubebuilder:rbac markers (operator/reconciler), as `make generate` does,
// and fails when a committed copy of its output differs: a marker changed
// without regenerating cannot reach the chart or the kustomize base.
// TestDeploy then checks the generated rules against the audit log.
func TestRBACGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs controller-gen")
	}
	dir := testenv.ControllerGen(t, "../..", "..", "rbac", "rbac:roleName=dask-operator", "paths=./reconciler/...")
	want, err := os.ReadFile(filepath.Join(dir, "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte("kind: ClusterRole")) {
		t.Fatalf("controller-gen wrote no ClusterRole:\n%s", want)
	}
	for _, f := range generatedRoles {
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `make generate` and commit the result", strings.TrimPrefix(f, "../../"))
		}
	}
}
