package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCoversEveryOutputDir runs check and build on a copy of this
// repository's own Dask template set, whose outputs are dist/, the Helm
// chart's crds/ and the operator's embedded operator/crds/: a drifted or
// missing file in the chart or the operator fails check exactly as one in
// dist/ does, and build restores the committed bytes in all three (dist/
// and the chart's crds/ identical; operator/crds/, a set of its own, keeps
// Kubernetes' descriptions).
func TestCheckCoversEveryOutputDir(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	copyTree := func(rel, pattern string) {
		files, err := filepath.Glob(filepath.Join("..", rel, pattern))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s/%s: %v (%d files)", rel, pattern, err, len(files))
		}
		for _, f := range files {
			write(t, dir, filepath.ToSlash(filepath.Join(rel, filepath.Base(f))), read(t, ".", f))
		}
	}
	write(t, dir, ".crd-resolver.yaml", read(t, "..", ".crd-resolver.yaml"))
	copyTree("templates", "*.yaml")
	copyTree("examples", "*.yaml") // the configuration validates them (examples:)
	outputs := []string{"dist", "charts/dask-operator/crds", "operator/crds"}
	for _, o := range outputs {
		copyTree(o, "dask*.yaml")
	}
	cli(t, dir, "check").must(t, 0)

	// Drift in the chart: a hand edit under the generated header.
	chart := "charts/dask-operator/crds/daskjob.yaml"
	write(t, dir, chart, strings.Replace(read(t, dir, chart), "kind: CustomResourceDefinition", "kind: CustomResourceDefinition\n# edited by hand", 1))
	// The operator's embedded copy lost a file.
	if err := os.Remove(filepath.Join(dir, "operator/crds/daskautoscaler.yaml")); err != nil {
		t.Fatal(err)
	}
	r := cli(t, dir, "check").must(t, 1)
	contains(t, "check", r.stdout,
		"stale: charts/dask-operator/crds/daskjob.yaml (from templates/daskjob.yaml)",
		"-# edited by hand",
		"missing: operator/crds/daskautoscaler.yaml (from templates/daskautoscaler.yaml)",
		"1 stale, 1 missing")
	if strings.Contains(r.stdout, "dist/") {
		t.Errorf("check reported dist/, which is up to date:\n%s", r.stdout)
	}

	// The hand edit broke the chart's file's seal: build keeps it until --force.
	r = cli(t, dir, "build").must(t, 2)
	contains(t, "build over a hand edit", r.stderr, chart+" carries the generated header, but its sha256 seal does not match")
	cli(t, dir, "build", "--force").must(t, 0)
	cli(t, dir, "check").must(t, 0)
	for _, name := range []string{"daskjob.yaml", "daskautoscaler.yaml"} {
		for _, o := range outputs {
			if read(t, dir, o+"/"+name) != read(t, "..", o+"/"+name) {
				t.Errorf("after build, %s/%s differs from the committed file", o, name)
			}
		}
		if read(t, dir, "charts/dask-operator/crds/"+name) != read(t, dir, "dist/"+name) {
			t.Errorf("after build, charts/dask-operator/crds/%s differs from dist/%s", name, name)
		}
	}
	if read(t, dir, "operator/crds/daskjob.yaml") == read(t, dir, "dist/daskjob.yaml") {
		t.Error("operator/crds/daskjob.yaml is dist/'s: it should keep Kubernetes' descriptions")
	}
}
