package validation

import (
	"bytes"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

const (
	upstreamModule  = "k8s.io/apiextensions-apiserver"
	upstreamPackage = "pkg/apis/apiextensions/validation"
	webhookImport   = `"k8s.io/apiserver/pkg/util/webhook"`
	ourWebhook      = `webhook "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle/webhook"`
)

// TestUpstream fails when a generated file of this package differs from
// what the k8s.io/apiextensions-apiserver of go.mod gives; -update rewrites
// them.
func TestUpstream(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-m", "-f", "{{.Path}}@{{.Version}} {{.Dir}}", upstreamModule).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", upstreamModule, err)
	}
	version, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || dir == "" {
		t.Fatalf("go list -m %s printed %q; is the module in the module cache (go mod download)?", upstreamModule, out)
	}
	for _, name := range []string{"validation.go", "cel_validation.go", "validation_test.go"} {
		src, err := os.ReadFile(filepath.Join(dir, upstreamPackage, name))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, name, generate(t, version, name, src))
	}
}

// generate returns the copy of upstream file name: a generated-code header
// and, in validation.go, the one import replaced.
func generate(t *testing.T, version, name string, src []byte) []byte {
	t.Helper()
	n := bytes.Count(src, []byte(webhookImport))
	want := 0
	if name == "validation.go" {
		want = 1
	}
	if n != want {
		t.Fatalf("%s imports k8s.io/apiserver/pkg/util/webhook %d times, want %d: review what upstream changed before regenerating", name, n, want)
	}
	src = bytes.Replace(src, []byte(webhookImport), []byte(ourWebhook), 1)
	header := "// Code generated from " + version + "/" + upstreamPackage + "/" + name + " by TestUpstream (-update). DO NOT EDIT.\n"
	if n > 0 {
		header += "// Changed: the import of k8s.io/apiserver/pkg/util/webhook (see doc.go).\n"
	}
	out, err := format.Source(append([]byte(header+"\n"), src...))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}
