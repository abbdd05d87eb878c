package integration

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// binDir holds the binaries built once by TestMain.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "k8s-crd-resolver-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The main binary and every companion (cmd/k8s-crd-resolver-*).
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "..", "../cmd/...")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building the binaries: %v\n", err)
		return 1
	}
	binDir = dir
	defer stopControlPlane()
	return m.Run()
}

// result is one finished command.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs the main binary in dir with a PATH holding only git's directory
// and (unless noCompanions) the companions next to the binary.
func cli(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runBin(t, filepath.Join(binDir, "k8s-crd-resolver"), dir, nil, args...)
}

func runBin(t *testing.T, bin, dir string, env []string, args ...string) result {
	t.Helper()
	c := exec.CommandContext(t.Context(), bin, args...)
	c.Dir = dir
	c.Env = append([]string{"PATH=" + gitDir(t), "HOME=" + dir}, env...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", bin, err)
	}
	return result{stdout.String(), stderr.String(), code}
}

func gitDir(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed")
	}
	return filepath.Dir(git)
}

// must fails the test unless r exited with code.
func (r result) must(t *testing.T, code int) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	return r
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.CommandContext(t.Context(), "git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// crdTemplate is a small CRD template named after plural whose spec is
// the given schema (indented for its place).
func crdTemplate(plural, spec string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: K` + plural + `, plural: ` + plural + `, singular: k` + plural + `, listKind: K` + plural + `List}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              ` + spec + `
`
}

// newRepo makes a git repository with three templates: alpha and gamma
// use templates/shared.yaml, beta uses templates/other.yaml and a
// Kubernetes type.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	write(t, dir, "templates/shared.yaml", "definitions:\n  Spec:\n    type: object\n    properties:\n      size: {type: integer}\n")
	write(t, dir, "templates/other.yaml", "definitions:\n  Spec:\n    type: object\n    properties:\n      resources:\n        $ref: io.k8s.api.core.v1.ResourceRequirements\n")
	write(t, dir, "templates/alpha.yaml", crdTemplate("alphas", "$ref: shared.yaml#/definitions/Spec"))
	write(t, dir, "templates/beta.yaml", crdTemplate("betas", "$ref: other.yaml#/definitions/Spec"))
	write(t, dir, "templates/gamma.yaml", crdTemplate("gammas", "$ref: shared.yaml#/definitions/Spec"))
	write(t, dir, ".crd-resolver.yaml", "kubernetesVersion: \"1.30\"\nremoveDescriptions: true\n")
	return dir
}

var longAgo = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

// age sets the modification time of the named files to longAgo, so any
// later write shows, whatever the file system's time granularity.
func age(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.Chtimes(filepath.Join(dir, n), longAgo, longAgo); err != nil {
			t.Fatal(err)
		}
	}
}

// touched reports whether the file was written since age.
func touched(t *testing.T, dir, name string) bool {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return !fi.ModTime().Equal(longAgo)
}

func contains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}
