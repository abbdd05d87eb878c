package project

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %s.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: K, plural: %s, singular: k, listKind: KList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              $ref: %s
`

func template(plural, ref string) string {
	return strings.NewReplacer("%s.example", plural+".example", "plural: %s", "plural: "+plural, "$ref: %s", "$ref: "+ref).Replace(crd)
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("c", []byte("kubernetesVersion: \"1.30\"\nremoveDescriptions: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.KubernetesVersion != "1.30" || !*c.RemoveDescriptions || len(c.Sets) != 1 || c.Sets[0].Outputs[0] != DefaultOutput {
		t.Errorf("got %+v", c)
	}
	for _, bad := range []string{
		"kubernetesVersoin: 1.30\n",                               // typo
		"sets:\n- templates: [a.yaml]\n",                          // no outputs
		"sets:\n- outputs: [dist]\n",                              // no templates
		"a: 1\n---\nb: 2\n",                                       // two documents
		"sets:\n- templates: [a]\n  outputs: [b]\n  patches: 3\n", // wrong type
		"budget: lots\n",                                          // not a size
		"sets:\n- templates: [a]\n  outputs: [b]\n  budget: -1\n", // negative
	} {
		if _, err := ParseConfig("c", []byte(bad)); !errors.Is(err, ErrConfig) {
			t.Errorf("%q: got %v, want ErrConfig", bad, err)
		}
	}
}

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.yaml", "x/b.yaml", "x/y/c.yaml", "x/y/c.json", ".hidden/d.yaml"} {
		write(t, dir, f, "")
	}
	for pattern, want := range map[string][]string{
		"*.yaml":      {"a.yaml"},
		"**/*.yaml":   {"a.yaml", "x/b.yaml", "x/y/c.yaml"},
		"x/**/c.*":    {"x/y/c.json", "x/y/c.yaml"},
		"x/**":        {"x/b.yaml", "x/y/c.json", "x/y/c.yaml"},
		"nothing/*.y": nil,
	} {
		got, err := glob(dir, pattern)
		if err != nil {
			t.Fatal(err)
		}
		var rel []string
		for _, g := range got {
			r, _ := filepath.Rel(dir, g)
			rel = append(rel, filepath.ToSlash(r))
		}
		if !slices.Equal(rel, want) {
			t.Errorf("%s: got %v, want %v", pattern, rel, want)
		}
	}
	if _, err := glob(dir, "/abs/*.yaml"); err == nil {
		t.Error("absolute pattern accepted")
	}
}

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	write(t, dir, "templates/a.yaml", template("as", "defs.yaml#/definitions/Spec"))
	write(t, dir, "templates/a.patch.yaml", "[]\n")
	write(t, dir, "templates/b.json", `{"kind": "CustomResourceDefinition"}`)
	write(t, dir, "templates/defs.yaml", "definitions:\n  Spec: {type: object}\n")
	write(t, dir, "templates/notes.yaml", "- just a list\n")
	// A CRD beside the templates that no glob matches is never ignored
	// silently.
	if _, err := Open(filepath.Join(dir, "templates"), Options{}); err == nil || !strings.Contains(err.Error(), "templates/b.json holds a CustomResourceDefinition, but no set of the default configuration matches it") {
		t.Fatalf("b.json beside templates/*.yaml: %v", err)
	}
	if err := os.Rename(filepath.Join(dir, "templates/b.json"), filepath.Join(dir, "b.json")); err != nil {
		t.Fatal(err)
	}
	p, err := Open(filepath.Join(dir, "templates"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "b.json"), filepath.Join(dir, "templates/b.json")); err != nil {
		t.Fatal(err)
	}
	if p.Dir != dir {
		t.Errorf("Dir %s, want the git top %s", p.Dir, dir)
	}
	var names []string
	for _, tp := range p.Templates {
		names = append(names, tp.Name)
	}
	if !slices.Equal(names, []string{"templates/a.yaml"}) { // b.json is not matched by *.yaml
		t.Errorf("templates %v", names)
	}
	a := p.Templates[0]
	if a.Patch != filepath.Join(dir, "templates/a.patch.yaml") || !slices.Equal(a.Outputs, []string{filepath.Join(dir, "dist/a.yaml")}) {
		t.Errorf("a: %+v", a)
	}
	if len(p.Sources) != 2 {
		t.Errorf("sources %v, want defs.yaml and notes.yaml", p.Sources)
	}

	write(t, dir, ConfigFileName, "sets:\n- templates: ['templates/*.json', 'templates/*.yaml']\n  outputs: [dist, chart/crds]\n")
	p, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Templates) != 2 || p.Templates[0].Outputs[1] != filepath.Join(dir, "chart/crds/a.yaml") || p.Templates[1].Outputs[0] != filepath.Join(dir, "dist/b.yaml") {
		t.Errorf("with config: %+v %+v", p.Templates[0], p.Templates[len(p.Templates)-1])
	}

	write(t, dir, "templates/b.yaml", `{"kind": "CustomResourceDefinition"}`)
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "both compile to dist/b.yaml") {
		t.Errorf("two templates to one output: %v", err)
	}
}

func TestAffectedAndPlan(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	write(t, dir, "templates/defs.yaml", "definitions:\n  Spec: {type: object, properties: {a: {type: string}}}\n")
	write(t, dir, "templates/other.yaml", "definitions:\n  Spec: {type: object}\n")
	write(t, dir, "templates/a.yaml", template("as", "defs.yaml#/definitions/Spec"))
	write(t, dir, "templates/b.yaml", template("bs", "other.yaml#/definitions/Spec"))
	write(t, dir, "templates/c.yaml", template("cs", "defs.yaml#/definitions/Spec"))
	p, outs := openCompiled(t, dir)
	names := func(outs []*Output) (n []string) {
		for _, o := range outs {
			n = append(n, o.Template.Name)
		}
		return n
	}
	for changed, want := range map[string][]string{
		"templates/defs.yaml":  {"templates/a.yaml", "templates/c.yaml"},
		"templates/other.yaml": {"templates/b.yaml"},
		"dist/c.yaml":          {"templates/c.yaml"},
		"README.md":            nil,
	} {
		if got := names(p.Affected(outs, dir, []string{changed})); !slices.Equal(got, want) {
			t.Errorf("%s affects %v, want %v", changed, got, want)
		}
	}

	write(t, dir, "dist/b.yaml", string(SealedFile("templates/b.yaml", []byte("old\n"), "1.29")))
	write(t, dir, "dist/gone.yaml", string(SealedFile("templates/gone.yaml", []byte("x: 1\n"), "1.30")))
	write(t, dir, "dist/mine.yaml", "hand-written: true\n")
	var mu sync.Mutex
	diffs := map[string]string{}
	plan, err := p.Plan(outs, PlanOptions{Orphans: true, Stage: true, Compare: func(fs *FileStatus, _ *Output, current, want []byte) {
		mu.Lock()
		defer mu.Unlock()
		diffs[fs.Name] = Diff(fs, current, want)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	var got []string
	for _, fs := range plan.Files {
		got = append(got, fs.Name+"="+fs.State.String())
	}
	want := []string{"dist/a.yaml=missing", "dist/b.yaml=stale", "dist/c.yaml=missing", "dist/gone.yaml=orphan"}
	if !slices.Equal(got, want) {
		t.Errorf("plan %v, want %v", got, want)
	}
	if d := diffs["dist/b.yaml"]; !strings.Contains(d, "--- a/dist/b.yaml\n+++ b/dist/b.yaml\n") || !strings.Contains(d, "\n-old\n") || !strings.Contains(d, "\n+# Code generated") {
		t.Errorf("diff:\n%s", d)
	}
	if d := diffs["dist/a.yaml"]; !strings.HasPrefix(d, "--- /dev/null\n+++ b/dist/a.yaml\n") {
		t.Errorf("diff of a missing file:\n%s", d)
	}
	if len(diffs) != 3 {
		t.Errorf("Compare saw %v, want the stale and missing files", slices.Sorted(maps.Keys(diffs)))
	}
	if _, err := os.Stat(filepath.Join(dir, "dist/a.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a staged file is visible before Apply")
	}
	if _, err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dist/gone.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Error("orphan not removed")
	}
	if _, err := os.Stat(filepath.Join(dir, "dist/mine.yaml")); err != nil {
		t.Error("a file build did not create was removed")
	}
	plan, _ = p.Plan(outs, PlanOptions{Orphans: true})
	for _, fs := range plan.Files {
		if fs.State != Unchanged {
			t.Errorf("after Apply: %s is %s", fs.Name, fs.State)
		}
	}
}

// TestSizeGuard: the guard judges each CRD by its compact JSON, at the
// exact thresholds (integration/size_test.go checks them against the
// real apiserver): WarnSize bytes compile quietly and one more warns, a
// CRD with annotations of its own is judged with them, MaxSize bytes
// compile and one more fails unless AllowLarge.
func TestSizeGuard(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	tpl := template("as", "defs.yaml#/definitions/Spec")
	write(t, dir, "templates/a.yaml", tpl)
	write(t, dir, "templates/defs.yaml", "definitions: {}\n")
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// compileAt pads the description until the CRD's compact JSON is size
	// bytes, and compiles.
	compileAt := func(t *testing.T, size int64) (*Output, error) {
		t.Helper()
		pad := func(n int64) ([]*Output, error) {
			write(t, dir, "templates/a.yaml", tpl)
			write(t, dir, "templates/defs.yaml", "definitions:\n  Spec: {type: object, description: "+strings.Repeat("x", int(n))+"}\n")
			// Opened again: a Project compiles its templates as Open read them.
			allow := p.opts.AllowLarge
			var err error
			if p, err = Open(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			p.opts.AllowLarge = allow
			return p.Compile(nil)
		}
		p.opts.AllowLarge = true
		outs, err := pad(1)
		p.opts.AllowLarge = false
		if err != nil {
			t.Fatal(err)
		}
		outs, err = pad(1 + size - outs[0].JSONSizes[0])
		if err != nil {
			return nil, err
		}
		if got := outs[0].JSONSizes[0]; got != size {
			t.Fatalf("padded to %d bytes of JSON, want %d", got, size)
		}
		return outs[0], nil
	}
	sizeWarning := func(o *Output) string {
		for _, w := range o.Warnings {
			if strings.Contains(w, "last-applied-configuration") {
				return w
			}
		}
		return ""
	}
	if len(LastAppliedAnnotation) != 48 || len(`"annotations":{},`) != 17 {
		t.Fatal("WarnSize's arithmetic is off")
	}
	o, err := compileAt(t, WarnSize)
	if err != nil || sizeWarning(o) != "" {
		t.Errorf("%d bytes: %v, warning %q; want no warning", WarnSize, err, sizeWarning(o))
	}
	o, err = compileAt(t, WarnSize+1)
	want := "templates/a.yaml: CRD as.example.com is 262,079 bytes (255.9 KiB) of compact JSON: client-side `kubectl apply` would copy it into its last-applied-configuration annotation, making 262,145 bytes (256.0 KiB) of annotations where the apiserver allows 262,144 bytes (256.0 KiB) (a CRD without annotations may have 262,078 bytes (255.9 KiB) of JSON); apply with `kubectl apply --server-side` (serverSideApply: true in .crd-resolver.yaml says so), or keep only the Kubernetes descriptions that fit with fitDescriptions: client-side-apply (--fit-descriptions client-side-apply), or drop them all with removeDescriptions (-r)"
	if err != nil || sizeWarning(o) != want {
		t.Errorf("%d bytes: %v\ngot  %q\nwant %q", WarnSize+1, err, sizeWarning(o), want)
	}

	// Annotations of its own count once in the JSON and once more as
	// annotations, and replace kubectl's empty map.
	annotated := strings.Replace(template("as", "defs.yaml#/definitions/Spec"), "metadata:\n", "metadata:\n  annotations: {owner: me}\n", 1)
	tpl = annotated
	fits := int64(AnnotationLimit - len(LastAppliedAnnotation) - 1 - len("owner") - len("me"))
	if o, err = compileAt(t, fits); err != nil || sizeWarning(o) != "" {
		t.Errorf("annotated, %d bytes: %v, warning %q; want none", fits, err, sizeWarning(o))
	}
	if o, err = compileAt(t, fits+1); err != nil || !strings.Contains(sizeWarning(o), "making 262,145 bytes (256.0 KiB) of annotations") {
		t.Errorf("annotated, %d bytes: %v, warning %q", fits+1, err, sizeWarning(o))
	}
	tpl = template("as", "defs.yaml#/definitions/Spec")

	if _, err := compileAt(t, MaxSize); err != nil {
		t.Errorf("%d bytes: %v", MaxSize, err)
	}
	_, err = compileAt(t, MaxSize+1)
	want = "templates/a.yaml: compiled CRD too large: CRD as.example.com is 1,570,853 bytes (1.50 MiB) of compact JSON, more than the 1,570,852 bytes (1.50 MiB) a kube-apiserver on a default etcd (--max-request-bytes 1.5 MiB) stores; shorten it (fitDescriptions, removeDescriptions or -r, maxDescriptionLength) or, for an etcd with a larger --max-request-bytes, pass --allow-large"
	if !errors.Is(err, ErrTooLarge) || err.Error() != want {
		t.Errorf("%d bytes:\ngot  %v\nwant %s", MaxSize+1, err, want)
	}
	p.opts.AllowLarge = true
	if _, err := p.Compile(nil); err != nil {
		t.Errorf("with AllowLarge: %v", err)
	}

	// serverSideApply: true: no client-side apply warning; the hard limit
	// stays.
	write(t, dir, ".crd-resolver.yaml", "serverSideApply: true\n")
	if p, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if o, err := compileAt(t, WarnSize+1); err != nil || sizeWarning(o) != "" {
		t.Errorf("serverSideApply, %d bytes: %v, warning %q; want none", WarnSize+1, err, sizeWarning(o))
	}
	if _, err := compileAt(t, MaxSize+1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("serverSideApply, %d bytes: %v, want ErrTooLarge", MaxSize+1, err)
	}
}

// FuzzParseConfig: any bytes give a configuration with at least one set,
// each with templates and outputs, or an ErrConfig; never a panic.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		"kubernetesVersion: \"1.30\"\nremoveDescriptions: true\n",
		"sets:\n- templates: [templates/*.yaml]\n  outputs: [dist, chart/crds]\n  patches: {templates/a.yaml: p.yaml}\n",
		"kubernetesVerison: 1\n", "a: &a [*a]\n", "sets: [{templates: ['**'], outputs: [/]}]\n", "---\n---\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := ParseConfig("fuzz.yaml", src)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error does not wrap ErrConfig: %v", err)
			}
			return
		}
		if len(c.Sets) == 0 {
			t.Fatal("no sets")
		}
		for i, s := range c.Sets {
			if len(s.Templates) == 0 || len(s.Outputs) == 0 {
				t.Fatalf("sets[%d] without templates or outputs: %+v", i, s)
			}
		}
	})
}

func TestIsGeneratedLine(t *testing.T) {
	h := strings.TrimSuffix(HeaderLine(Seal0, "templates/a.yaml", "1.30"), "\n")
	for line, want := range map[string]bool{
		h:                                      true,
		h + "\r":                               true, // a CRLF checkout
		h + " ":                                false,
		h + "\r\r":                             false,
		"# Code generated by k8s-crd-resolver": false, // a prefix is not the header
		strings.TrimSuffix(HeaderLine(Seal0, "a\nkind: Evil", "1.30"), "\n"):                     true, // sanitised, one line
		"# Code generated by k8s-crd-resolver from a for Kubernetes 1.30. DO NOT EDIT. and more": false,
	} {
		if got := IsGeneratedLine([]byte(line)); got != want {
			t.Errorf("IsGeneratedLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestSharedPatch: templates of two sets share their patch's parse, and
// both are patched; a patch whose text changed is parsed anew.
func TestSharedPatch(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	write(t, dir, ".crd-resolver.yaml", "sets:\n- templates: [templates/*.yaml]\n  outputs: [dist]\n- templates: [templates/*.yaml]\n  outputs: [full]\n  removeDescriptions: false\n")
	write(t, dir, "templates/a.yaml", template("as", "io.k8s.api.core.v1.ServicePort"))
	patch := func(v string) {
		write(t, dir, "templates/a.patch.yaml", "- {op: add, path: /spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/protocol/default, value: "+v+"}\n")
	}
	patch("TCP")
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defaults := func() []any {
		t.Helper()
		outs, err := p.Compile(nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []any
		for _, o := range outs {
			got = append(got, dig(o.Objects()[0], "spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec", "properties", "protocol", "default"))
		}
		return got
	}
	if got := defaults(); !slices.Equal(got, []any{"TCP", "TCP"}) {
		t.Fatalf("defaults %v, want TCP in both sets", got)
	}
	patch("UDP")
	if got := defaults(); !slices.Equal(got, []any{"UDP", "UDP"}) {
		t.Fatalf("after the patch changed: defaults %v, want UDP in both sets", got)
	}
}

// dig walks maps by key and lists by index; nil when a step is missing.
func dig(v any, path ...any) any {
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}
