package integration

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// goreleaserEnv names the GoReleaser binary the release test runs;
// `make release-check` sets it (hack/tools.sh goreleaser builds it from the
// Go module proxy).
const goreleaserEnv = "GORELEASER"

// TestRelease runs `goreleaser check` on .goreleaser.yaml, then a snapshot
// release of this machine's platform only (the same configuration with its
// targets narrowed), and checks what a user downloads: one archive holding
// README.md, LICENSE and the four binaries, listed with its SHA-256 in
// checksums.txt; static binaries that print the snapshot version (the
// builtins binary: the Kubernetes version it links); and a k8s-crd-resolver
// that finds the companions beside it, k8s-crd-resolver-builtins included:
// extracted alone, with no $K8S_CRD_RESOLVER_BUILTINS and no other copy on
// PATH, its validate refuses a Deployment by the apiserver's hand-written
// rules, which $K8S_CRD_RESOLVER_BUILTINS=none turns back into a pass by
// the schema alone.
func TestRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the release test builds every binary with GoReleaser")
	}
	gr := os.Getenv(goreleaserEnv)
	if gr == "" {
		t.Fatalf("%s is unset; run `make release-check`, or %s=$(hack/tools.sh goreleaser) go test ./integration -run TestRelease; go test -short skips this test", goreleaserEnv, goreleaserEnv)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		c := exec.CommandContext(t.Context(), gr, args...)
		c.Dir = root
		c.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("goreleaser %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("check")

	dist := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "goreleaser.yaml")
	writeOneTarget(t, filepath.Join(root, ".goreleaser.yaml"), cfg, dist)
	run("release", "--snapshot", "--clean", "--skip=publish,announce,sign,sbom", "--config", cfg)

	goos, goarch := runtime.GOOS, runtime.GOARCH
	archives, _ := filepath.Glob(filepath.Join(dist, "k8s-crd-resolver_*_"+goos+"_"+goarch+".*"))
	if len(archives) != 1 {
		entries, _ := os.ReadDir(dist)
		t.Fatalf("want one archive for %s/%s in %s, have %v (dist: %v)", goos, goarch, dist, archives, entries)
	}
	archive := archives[0]
	version, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(archive), "k8s-crd-resolver_"), "_"+goos+"_"+goarch+".")
	if !strings.HasSuffix(version, "-snapshot") {
		t.Errorf("archive %s: version %q is not a snapshot version", archive, version)
	}

	// checksums.txt holds the archive's SHA-256.
	sums := read(t, dist, "checksums.txt")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes", filepath.Base(archive), len(data))
	sum := sha256.Sum256(data)
	contains(t, "checksums.txt", sums, hex.EncodeToString(sum[:])+"  "+filepath.Base(archive))

	files := unpack(t, archive)
	exe := ""
	if goos == "windows" {
		exe = ".exe"
	}
	want := []string{"LICENSE", "README.md", "k8s-crd-resolver" + exe, "k8s-crd-resolver-builtins" + exe, "k8s-crd-resolver-reconcile" + exe, "k8s-crd-resolver-validate" + exe}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("archive holds %v, want %v", names, want)
	}
	if files["LICENSE"] != read(t, root, "LICENSE") || !strings.Contains(files["LICENSE"], "Apache License") {
		t.Error("the archive's LICENSE is not the repository's Apache-2.0 LICENSE")
	}

	bin := t.TempDir()
	for _, n := range want[2:] {
		p := filepath.Join(bin, n)
		if err := os.WriteFile(p, []byte(files[n]), 0o755); err != nil {
			t.Fatal(err)
		}
		if goos == "linux" {
			assertStatic(t, p)
		}
	}
	r := runBin(t, filepath.Join(bin, "k8s-crd-resolver"+exe), bin, nil, "version").must(t, 0)
	contains(t, "version", r.stdout, "k8s-crd-resolver v"+version+"\n", "Kubernetes: 1.", "Go: go")
	r = runBin(t, filepath.Join(bin, "k8s-crd-resolver"+exe), bin, nil, "--version").must(t, 0)
	contains(t, "--version", r.stdout, "k8s-crd-resolver v"+version+"\n")
	r = runBin(t, filepath.Join(bin, "k8s-crd-resolver-validate"+exe), bin, nil, "--version").must(t, 0)
	contains(t, "validate --version", r.stdout, "k8s-crd-resolver-validate v"+version+"\n")
	// The operator is its own program, not a command of the main binary.
	r = runBin(t, filepath.Join(bin, "k8s-crd-resolver-reconcile"+exe), bin, nil, "--version").must(t, 0)
	contains(t, "reconcile --version", r.stdout, "k8s-crd-resolver-reconcile v"+version+"\n", "CRD: daskcluster.yaml (Kubernetes 1.")
	// The builtins binary prints the Kubernetes version it links.
	r = runBin(t, filepath.Join(bin, "k8s-crd-resolver-builtins"+exe), bin, nil, "--version").must(t, 0)
	contains(t, "builtins --version", r.stdout, "v1.")

	releaseJudgesBuiltins(t, filepath.Join(bin, "k8s-crd-resolver"+exe))
}

// releaseJudgesBuiltins runs the extracted k8s-crd-resolver's validate on a
// Deployment whose selector does not match its template's labels, a
// cross-field rule no OpenAPI schema carries: refused when it finds
// k8s-crd-resolver-builtins beside the validate companion (runBin's PATH is
// git's directory only, and the environment names no binary), passed with
// a schema-only note when $K8S_CRD_RESOLVER_BUILTINS=none turns it off.
func releaseJudgesBuiltins(t *testing.T, cli string) {
	path := gitDir(t)
	for _, name := range []string{"k8s-crd-resolver-builtins", "k8s-crd-resolver-builtins.exe"} {
		if _, err := os.Stat(filepath.Join(path, name)); err == nil {
			t.Fatalf("%s is in %s, the PATH the release's binaries run with: it could be the one validate finds", name, path)
		}
	}
	dir := t.TempDir()
	const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: web
          image: nginx
`
	if err := os.WriteFile(filepath.Join(dir, "deployment.yaml"), []byte(deployment), 0o644); err != nil {
		t.Fatal(err)
	}
	const note = "judged by its OpenAPI schema"
	r := runBin(t, cli, dir, nil, "validate", "deployment.yaml").must(t, 1)
	out := r.stdout + r.stderr
	t.Logf("validate deployment.yaml (exit 1):\n%s", out)
	contains(t, "validate of the release", out, "deployment.yaml:", "spec.template.metadata.labels", "does not match template")
	if strings.Contains(out, note) {
		t.Errorf("validate of the release judged the Deployment by its schema only: k8s-crd-resolver-builtins beside it was not found\n%s", out)
	}
	r = runBin(t, cli, dir, []string{"K8S_CRD_RESOLVER_BUILTINS=none"}, "validate", "deployment.yaml").must(t, 0)
	t.Logf("K8S_CRD_RESOLVER_BUILTINS=none validate deployment.yaml (exit 0):\n%s", r.stdout+r.stderr)
	contains(t, "validate with K8S_CRD_RESOLVER_BUILTINS=none", r.stdout+r.stderr, note)
}

// writeOneTarget writes the release configuration src to dst with every
// build narrowed to this machine's GOOS and GOARCH and dist set to dist.
func writeOneTarget(t *testing.T, src, dst, dist string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	top := doc.Content[0]
	set := func(m *yaml.Node, key string, v *yaml.Node) bool {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				m.Content[i+1] = v
				return true
			}
		}
		return false
	}
	scalar := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }
	seq := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{scalar(s)}}
	}
	if !set(top, "dist", scalar(dist)) {
		t.Fatal(".goreleaser.yaml sets no dist (the default, ./dist, would clean the compiled CRDs)")
	}
	narrowed := 0
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "builds" {
			continue
		}
		// Builds that merge an anchored one (<<: *build) share its node.
		for _, b := range top.Content[i+1].Content {
			if set(b, "goos", seq(runtime.GOOS)) && set(b, "goarch", seq(runtime.GOARCH)) {
				narrowed++
			}
		}
	}
	if narrowed == 0 {
		t.Fatal("no build in .goreleaser.yaml lists goos and goarch")
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// unpack returns the regular files of a .tar.gz or .zip archive by base
// name; an archive nesting them in a directory would fail the caller.
func unpack(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			out[f.Name] = string(b)
		}
		return out
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = string(b)
	}
}

// assertStatic fails unless the ELF file at path has no program
// interpreter and no shared-library dependencies.
func assertStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a program interpreter: not a static binary", filepath.Base(path))
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s links %v: not a static binary", filepath.Base(path), libs)
	}
}
