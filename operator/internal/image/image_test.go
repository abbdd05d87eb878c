package image

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"flag"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Every test binary of the repository accepts -update; no golden files here.
var _ = flag.Bool("update", false, "rewrite golden files (none in this package)")

// TestImage builds the operator statically for this machine's Linux
// architecture, makes its image, writes it as an OCI archive, reads the
// archive back with go-containerregistry's layout reader, extracts the
// binary from the image's file system and runs it. It also checks what the
// image promises (non-root, no shell, reproducible) and pushes it to a
// registry on 127.0.0.1.
func TestImage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image holds a Linux binary; this test runs it")
	}
	if testing.Short() {
		t.Skip("-short: builds the operator")
	}
	bin := filepath.Join(t.TempDir(), "k8s-crd-resolver-reconcile")
	// The flags of .goreleaser.yaml and `make image`: static, trimmed.
	build := exec.CommandContext(t.Context(), "go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=v9.9.9-test", "-o", bin, "./cmd/k8s-crd-resolver-reconcile")
	build.Dir = "../.."
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the operator: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	plat := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	opts := Options{Version: "v9.9.9-test", Source: "https://github.com/k8s-crd-resolver/k8s-crd-resolver"}
	idx, err := Index([]Binary{{Platform: plat, Data: data}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var archive bytes.Buffer
	if err := WriteOCIArchive(&archive, idx); err != nil {
		t.Fatal(err)
	}

	// Reproducible: the same binary gives the same index digest and archive.
	again, err := Index([]Binary{{Platform: plat, Data: data}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := idx.Digest()
	d2, _ := again.Digest()
	var archive2 bytes.Buffer
	if err := WriteOCIArchive(&archive2, again); err != nil {
		t.Fatal(err)
	}
	if d1 != d2 || !bytes.Equal(archive.Bytes(), archive2.Bytes()) {
		t.Errorf("two builds of the same binary differ: %s, %s", d1, d2)
	}

	// Read the archive back as an OCI image layout.
	dir := t.TempDir()
	untar(t, archive.Bytes(), dir)
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatalf("the archive is not an OCI image layout: %v", err)
	}
	tm, err := top.IndexManifest()
	if err != nil || len(tm.Manifests) != 1 {
		t.Fatalf("index.json: %v, %d manifests", err, len(tm.Manifests))
	}
	inner, err := top.ImageIndex(tm.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := inner.IndexManifest()
	if err != nil || len(im.Manifests) != 1 || im.Manifests[0].Platform == nil || !im.Manifests[0].Platform.Equals(plat) {
		t.Fatalf("the image index lists %+v, want one image for %s", im, plat)
	}
	img, err := inner.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Config.User != User || len(cf.Config.Entrypoint) != 1 || cf.Config.Entrypoint[0] != BinaryPath {
		t.Errorf("config: user %q, entrypoint %v; want %s and [%s]", cf.Config.User, cf.Config.Entrypoint, User, BinaryPath)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH || cf.Config.Labels["org.opencontainers.image.licenses"] != "Apache-2.0" || cf.Config.Labels["org.opencontainers.image.version"] != "v9.9.9-test" {
		t.Errorf("config: %s/%s, labels %v", cf.OS, cf.Architecture, cf.Config.Labels)
	}
	if layers, _ := img.Layers(); len(layers) != 1 {
		t.Errorf("%d layers, want 1 (no base image)", len(layers))
	}

	// The image's file system: the binary, the nonroot user, nothing else.
	files := map[string][]byte{}
	tr := tar.NewReader(mutate.Extract(img))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files["/"+strings.TrimSuffix(h.Name, "/")] = b
	}
	for _, f := range []string{"/bin/sh", "/bin", "/sbin"} {
		if _, ok := files[f]; ok {
			t.Errorf("the image holds %s", f)
		}
	}
	if !strings.Contains(string(files["/etc/passwd"]), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd lacks the nonroot user: %q", files["/etc/passwd"])
	}
	got, ok := files[BinaryPath]
	if !ok || !bytes.Equal(got, data) {
		t.Fatalf("%s missing or not the binary built (%d bytes, want %d)", BinaryPath, len(got), len(data))
	}
	extracted := filepath.Join(t.TempDir(), "from-image")
	if err := os.WriteFile(extracted, got, 0o755); err != nil {
		t.Fatal(err)
	}
	assertStatic(t, extracted)
	out, err := exec.CommandContext(t.Context(), extracted, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("running the binary from the image: %v\n%s", err, out)
	}
	for _, want := range []string{"k8s-crd-resolver-reconcile v9.9.9-test\n", "CRD: daskcluster.yaml (Kubernetes 1.", "Go: go"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the image's binary printed %q, want %q in it", out, want)
		}
	}
	out, err = exec.CommandContext(t.Context(), extracted, "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--leader-elect") {
		t.Errorf("--help: %v\n%s", err, out)
	}

	// Push to a registry on 127.0.0.1 and pull the same digest back.
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	ref := strings.TrimPrefix(srv.URL, "http://") + "/k8s-crd-resolver/dask-operator:v9.9.9-test"
	if err := Push(t.Context(), ref, idx, true); err != nil {
		t.Fatalf("push: %v", err)
	}
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	pulled, err := remote.Index(r, remote.WithContext(t.Context()))
	if err != nil {
		t.Fatalf("pull: %v", err)
	}
	if d, _ := pulled.Digest(); d != d1 {
		t.Errorf("pulled %s, pushed %s", d, d1)
	}
}

// TestIndexRejects: no binaries, an empty one, or one without a platform.
func TestIndexRejects(t *testing.T) {
	for name, bins := range map[string][]Binary{
		"none":        nil,
		"empty":       {{Platform: v1.Platform{OS: "linux", Architecture: "amd64"}}},
		"no platform": {{Data: []byte{1}}},
	} {
		if _, err := Index(bins, Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// untar writes the regular files of a tar archive under dir.
func untar(t *testing.T, data []byte, dir string) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Fatalf("archive entry %q escapes", h.Name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// assertStatic fails unless the ELF file at path needs no loader or
// shared library: it runs on an empty base image.
func assertStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has a program interpreter: it would not run on an empty base")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary links %v", libs)
	}
}
