package main

// Every test binary accepts -update, so that `go test ./... -update`
// (which rewrites golden files) runs in every package; this package has no
// golden files of its own.
import (
	"os"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdvalidate"
	_ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

// TestMain runs this package's tests without k8s-crd-resolver-builtins,
// whatever is installed: their goldens judge built-in objects by their
// schema alone (internal/crdvalidate's tests judge with the binary).
func TestMain(m *testing.M) {
	os.Setenv(crdvalidate.BuiltinsEnv, crdvalidate.BuiltinsNone)
	os.Exit(m.Run())
}
