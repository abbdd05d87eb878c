package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveValidates: resolve validates its output with the companion
// (installed next to the binary here): a CRD the apiserver would reject
// is exit 1 and nothing is written, as build does. The Python tool's
// SRC DST line keeps that tool's behaviour (no validation) unless
// --validate.
func TestResolveValidates(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	// metadata.name must be <plural>.<group>: the resolver leaves that to
	// the apiserver's validation.
	bad := strings.Replace(crdTemplate("widgets", "type: object"), "name: widgets.example.com", "name: gadgets.example.com", 1)
	write(t, dir, "bad.yaml", bad)
	r := cli(t, dir, "resolve", "bad.yaml", "-o", "out.yaml").must(t, 1)
	contains(t, "resolve", r.stderr, "the apiserver would reject the output", "metadata.name")
	if _, err := os.Stat(filepath.Join(dir, "out.yaml")); err == nil {
		t.Error("resolve wrote a CRD the apiserver rejects")
	}
	cli(t, dir, "resolve", "bad.yaml", "-o", "out.yaml", "--no-validate").must(t, 0)
	cli(t, dir, "bad.yaml", "legacy.yaml").must(t, 0)
	r = cli(t, dir, "--validate", "bad.yaml", "legacy2.yaml").must(t, 1)
	contains(t, "--validate", r.stderr, "the apiserver would reject the output")
	if _, err := os.Stat(filepath.Join(dir, "legacy2.yaml")); err == nil {
		t.Error("the SRC DST line with --validate wrote a CRD the apiserver rejects")
	}
}
