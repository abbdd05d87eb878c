package crdvalidate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// verdictOptions are the compiler's options of the golden case in dir
// (golden.CompileCase) for Kubernetes minor, and the template's name; ok is false when the case's
// patch does not parse (a case of its own).
func verdictOptions(t *testing.T, dir, minor string) (resolver.Options, string, bool) {
	t.Helper()
	vc, err := golden.ReadCompileCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := resolver.Options{KubeVersion: minor, RemoveDescriptions: vc.RemoveDescriptions, MaxDescriptionLength: vc.MaxDescriptionLength,
		Recursion: vc.Recursion, AllowOutsideRoot: vc.AllowOutsideRoot, WorkDir: abs, Root: abs}
	if vc.Root != "" {
		opts.Root = filepath.Join(abs, vc.Root)
	}
	for _, s := range []struct {
		text string
		to   *resolver.Size
	}{{vc.Budget, &opts.Budget}, {vc.FitDescriptions, &opts.FitDescriptions}} {
		if s.text != "" {
			if *s.to, err = docread.ParseSize(s.text); err != nil {
				t.Fatal(err)
			}
		}
	}
	if vc.Patch != "" {
		src, err := os.ReadFile(filepath.Join(dir, vc.Patch))
		if err != nil {
			t.Fatal(err)
		}
		if opts.Patch, err = resolver.ParsePatch(vc.Patch, src); err != nil {
			return opts, "", false
		}
	}
	return opts, vc.Template, true
}

// verdictMinors are the minors TestOneVerdictPerMinor compiles every case
// for: all the embedded ones, or with -short those where a rule changes
// (the v1beta1-only minors and their extensions, v1, the end of v1beta1,
// CEL and its rule fields, selectable fields) and the newest.
func verdictMinors() []string {
	all := schemas.Versions()
	if !testing.Short() {
		return all
	}
	return slices.DeleteFunc(slices.Clone(all), func(v string) bool {
		return !slices.Contains([]string{"1.12", "1.14", "1.15", "1.16", "1.21", "1.22", "1.24", "1.26", "1.27", "1.30", schemas.Latest()}, v)
	})
}

// TestOneVerdictPerMinor: for every golden case and every embedded minor,
// what the compiler writes, when it compiles at all, is what validate
// --k8s-version of that minor accepts (Files, the companion's own
// judgement): one verdict, whatever path a field came by (the template,
// a $ref'd file, a bundle, a patch, the compiler's own additions).
func TestOneVerdictPerMinor(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/compile/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	minors := verdictMinors()
	start := time.Now()
	compiled, refused := 0, 0
	for _, dir := range dirs {
		for _, minor := range minors {
			opts, name, ok := verdictOptions(t, dir, minor)
			if !ok {
				continue
			}
			c, err := resolver.New(opts)
			if err != nil {
				t.Fatalf("%s for %s: %v", filepath.Base(dir), minor, err)
			}
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Compile(name, src)
			if err != nil {
				refused++
				continue
			}
			compiled++
			var out bytes.Buffer
			if err := res.WriteYAML(&out); err != nil {
				t.Fatal(err)
			}
			results, _, err := Files(t.Context(), []Input{{Name: filepath.Base(dir) + ".yaml", Content: out.Bytes()}}, Options{KubernetesVersion: minor})
			if err != nil {
				t.Fatal(err)
			}
			if problems := verdictProblems(results); problems != "" && !authorsOwn(filepath.Base(dir), minor, problems) {
				t.Errorf("%s compiles for Kubernetes %s, and validate --k8s-version %s refuses the output:\n%s", filepath.Base(dir), minor, minor, problems)
			}
		}
	}
	t.Logf("%d cases x %d minors: %d compiled and validated, %d refused by the compiler, in %s",
		len(dirs), len(minors), compiled, refused, time.Since(start).Round(time.Millisecond))
	if compiled == 0 {
		t.Fatal("nothing compiled")
	}
}

// authorsRules are the cases whose CEL rules the apiserver's CRD
// validation refuses in every minor that has their fields: they are
// written to test which fields a minor has, not to compile. build, check
// and resolve report that through the companion, as validate does; no
// per-minor judgement may be among the problems.
var authorsRules = map[string]bool{"err-newer-fields-1.26": true}

func authorsOwn(name, minor, problems string) bool {
	return authorsRules[name] && !strings.Contains(problems, "Kubernetes "+minor)
}

func verdictProblems(results []project.ValidationResult) string {
	var b strings.Builder
	for _, r := range results {
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "  %s:%d: %s: %s\n", r.Name, p.Line, p.Field, p.Message)
		}
	}
	return b.String()
}

// TestIntOrStringForOldMinors: Kubernetes 1.12 to 1.14 have no
// x-kubernetes-int-or-string (nor -preserve-unknown-fields,
// -embedded-resource): the compiler writes an int-or-string as its anyOf
// alone there, which validate --k8s-version of those minors accepts, and
// which still takes a bare integer or a string and refuses anything else.
// From 1.15 the extension is written.
func TestIntOrStringForOldMinors(t *testing.T) {
	cr := func(port string) Input {
		return Input{Name: "cr.yaml", Content: []byte(`apiVersion: example.com/v1
kind: PodWrapper
metadata: {name: w}
spec:
  pod:
    containers:
    - name: c
      image: x
      livenessProbe: {httpGet: {port: ` + port + `}}
      resources: {limits: {cpu: 1, memory: 1Gi}, requests: {cpu: 500m}}
`)}
	}
	// A v1beta1 template holding a PodSpec: int-or-strings (ports) and
	// quantities (resources).
	template, err := os.ReadFile("../../testdata/compile/v1beta1-pod/template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, minor := range []string{"1.12", "1.13", "1.14", "1.15"} {
		c, err := resolver.New(resolver.Options{KubeVersion: minor, RemoveDescriptions: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compile("template.yaml", template)
		if err != nil {
			t.Fatalf("%s: %v", minor, err)
		}
		if len(res.Warnings) > 0 {
			t.Errorf("%s: warnings %v", minor, res.Warnings)
		}
		var out bytes.Buffer
		if err := res.WriteYAML(&out); err != nil {
			t.Fatal(err)
		}
		extension := bytes.Contains(out.Bytes(), []byte("x-kubernetes-int-or-string: true"))
		if old := minor != "1.15"; old == extension || !bytes.Contains(out.Bytes(), []byte("- type: integer")) {
			t.Errorf("%s: x-kubernetes-int-or-string written: %t, want %t (and the anyOf in both)", minor, extension, !old)
		}
		if old := minor != "1.15"; old && bytes.Contains(out.Bytes(), []byte("x-kubernetes-")) {
			t.Errorf("%s: an x-kubernetes- extension %s does not have", minor, minor)
		}
		crd := Input{Name: "crd.yaml", Content: out.Bytes()}
		for port, ok := range map[string]bool{"8080": true, "http": true, "[1]": false, "{a: 1}": false} {
			results, _, err := Files(t.Context(), []Input{crd, cr(port)}, Options{KubernetesVersion: minor})
			if err != nil {
				t.Fatal(err)
			}
			problems := verdictProblems(results)
			if ok != (problems == "") {
				t.Errorf("%s, port %s: want accepted %t, validate says:\n%s", minor, port, ok, problems)
			}
			if !ok && strings.Contains(problems, "crd.yaml") {
				t.Errorf("%s: the CRD is refused:\n%s", minor, problems)
			}
		}
	}
}
