package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

const crdFile = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
`

const canary = "CANARY-SECRET-91c2"

// TestInputsGoThroughTheDoor: validate's files are the user's own paths:
// read wherever they point (a file outside the project, a pipe from a
// process substitution), but inside the project no symlink leads out
// unless --allow-outside-root, devices and FIFOs there are refused, and
// nothing it may not read is printed.
func TestInputsGoThroughTheDoor(t *testing.T) {
	base := t.TempDir()
	proj, outside := filepath.Join(base, "proj"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(proj, ".git"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(proj, "crd.yaml"), crdFile)
	write(filepath.Join(outside, "crd.yaml"), crdFile+"# "+canary+"\n")
	write(filepath.Join(outside, "secret.yaml"), "kind: [ "+canary+"\n")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(proj, "secret.yaml")))
	must(os.Symlink("/dev/zero", filepath.Join(proj, "zero.yaml")))
	must(syscall.Mkfifo(filepath.Join(proj, "fifo.yaml"), 0o644))
	// A directory outside the project with a FIFO among its YAML files:
	// the FIFO was found by listing, not typed, and is refused unopened.
	listed := filepath.Join(base, "listed")
	must(os.MkdirAll(listed, 0o755))
	write(filepath.Join(listed, "a.yaml"), crdFile)
	must(syscall.Mkfifo(filepath.Join(listed, "b.yaml"), 0o644))
	write(filepath.Join(proj, "widget.yaml"), "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
	t.Chdir(proj)

	for _, tc := range []struct {
		args    []string
		bad     bool // exit 2
		wantMsg string
	}{
		{args: []string{"crd.yaml"}},
		{args: []string{"secret.yaml"}, bad: true, wantMsg: "secret.yaml leads outside the project root"},
		{args: []string{filepath.Join(outside, "crd.yaml")}}, // validate /tmp/x.yaml
		{args: []string{pipeWith(t, crdFile)}},               // validate <(kubectl get crd ... -o yaml)
		{args: []string{"/dev/zero"}, bad: true, wantMsg: "/dev/zero is a character device, not a regular file"},
		{args: []string{"zero.yaml"}, bad: true, wantMsg: "leads outside the project root"},
		{args: []string{"zero.yaml", "--allow-outside-root"}, bad: true, wantMsg: "is a character device, not a regular file"},
		{args: []string{"fifo.yaml"}, bad: true, wantMsg: "fifo.yaml is a FIFO (named pipe), not a regular file"},
		{args: []string{filepath.Join(outside, "crd.yaml"), "--allow-outside-root"}},
		{args: []string{"--crd", listed, "widget.yaml"}, bad: true, wantMsg: "b.yaml is a FIFO (named pipe), not a regular file"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := newCmd(strings.NewReader(""), &stdout, &stderr)
			c.SetArgs(tc.args)
			err := c.ExecuteContext(t.Context())
			var code exitCode
			if tc.bad != (err != nil && !errors.As(err, &code)) {
				t.Fatalf("err = %v, want bad input: %v\nstdout: %s", err, tc.bad, stdout.String())
			}
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if !strings.Contains(msg, tc.wantMsg) {
				t.Errorf("error %q does not say %q", msg, tc.wantMsg)
			}
			if out := stdout.String() + stderr.String() + msg; strings.Contains(out, canary) {
				t.Errorf("printed the canary: %s", out)
			}
		})
	}
}

// TestTuneGC: with the collector tuned, nothing is collected below the
// limit; while collections leave a small live heap, the limit is kept
// (garbage past it is collected each time the limit is reached, the
// pacing stays off); once a collection leaves two fifths of the limit
// live or more, the collector paces as by default (GOGC=100), so a live
// heap near or over the limit is collected a number of times proportional
// to the garbage over the live heap, never continuously; GOGC or
// GOMEMLIMIT in the environment leaves the runtime's settings alone.
func TestTuneGC(t *testing.T) {
	// Larger than what the package's earlier tests leave live (cached
	// CRDs, bundles), so that their heap is a small live heap here.
	const limit = 256 << 20
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	tuneGC(func(k string) string { return map[string]string{"GOGC": "100"}[k] }, limit, 100)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOGC set: memory limit %d, want none", got)
	}
	runtime.GC()
	runtime.GC() // the cleanups of earlier tunings have run
	// The limit counts every byte the runtime holds, freed heap not yet
	// returned to the system included: what the package's earlier tests
	// grew the heap to would start collections below the limit.
	debug.FreeOSMemory()
	tuneGC(func(string) string { return "" }, limit, 100)
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Fatalf("memory limit %d, want %d", got, limit)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	keep := make([][]byte, 0, 8)
	for i := range 16 << 10 { // 16 MiB of garbage, far below the limit
		b := make([]byte, 1<<10)
		if i%(1<<10) == 0 {
			keep = append(keep, b)
		}
	}
	runtime.ReadMemStats(&after)
	if after.NumGC != before.NumGC {
		t.Errorf("%d collections below the limit, want none", after.NumGC-before.NumGC)
	}
	// Collections that leave a small live heap (forced ones: nothing is
	// allocated while they mark, so what they find live is what is kept)
	// keep the limit and the pacing off.
	for range 3 {
		for range 2 << 10 {
			keep[0] = make([]byte, 64<<10) // 128 MiB of garbage
		}
		collect(t)
	}
	if gogc, limitNow := gcSettings(); gogc != math.MaxUint64 && gogc != 0 || limitNow != limit {
		t.Errorf("after collections that left a small live heap: GOGC %d, memory limit %d; want off, %d kept", gogc, limitNow, limit)
	}
	// A collection that leaves half the limit live: the pacing is
	// GOGC=100 and the limit gone.
	live := make([][]byte, 128)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	runtime.GC()
	waitGC(t, func(gogc, limitNow uint64) bool { return gogc == 100 && limitNow == math.MaxInt64 })
	// Then 2 GiB of garbage: with the limit kept, a collection would start
	// each time 128 MiB more was allocated; GOGC=100 collects each time the
	// heap doubles the live 128 MiB: about 2048/128 = 16 times.
	runtime.ReadMemStats(&before)
	for range 32 << 10 {
		keep[0] = make([]byte, 64<<10)
	}
	runtime.ReadMemStats(&after)
	if n := after.NumGC - before.NumGC; n == 0 || n > 40 {
		t.Errorf("%d collections for 2 GiB of garbage over a live 128 MiB heap, want 1 to 40", n)
	}
	runtime.KeepAlive(live)
}

// gcSettings reads GOGC (math.MaxUint64 or 0 when off, as the runtime
// reports it) and the memory limit without changing them.
func gcSettings() (gogc, limit uint64) {
	m := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64(), m[1].Value.Uint64()
}

// collect runs a collection and waits for the cleanups it queued (tuneGC's
// among them) to have run.
func collect(t *testing.T) {
	t.Helper()
	ran := make(chan struct{})
	runtime.AddCleanup(new([64]byte), func(ran chan struct{}) { close(ran) }, ran)
	runtime.GC()
	select {
	case <-ran:
		time.Sleep(time.Millisecond) // cleanups may run side by side
	case <-time.After(10 * time.Second):
		t.Fatal("the collection's cleanups did not run")
	}
}

// waitGC waits until the cleanups of the collections so far have run
// (they run on a goroutine of their own, after the collection) and done
// reports the settings it expects, for up to a few seconds.
func waitGC(t *testing.T, done func(gogc, limit uint64) bool) {
	t.Helper()
	for range 1000 {
		if done(gcSettings()) {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
			if done(gcSettings()) {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	gogc, limit := gcSettings()
	t.Fatalf("the collector's settings did not change as expected: GOGC %d, memory limit %d", gogc, limit)
}

// TestBatchTrailingData: a --batch request followed by anything but space is refused, not
// answered as if the rest were not there.
func TestBatchTrailingData(t *testing.T) {
	req := fmt.Sprintf(`{"version": %d, "documents": []}`, project.ProtocolVersion)
	for in, want := range map[string]string{
		req + "\n":             "",
		req + `{"version": 1}`: "data after it",
		req + "\n garbage\n":   "data after it",
	} {
		batch(t, in, want)
	}
}

// pipeWith returns /proc/self/fd/N of a pipe holding content, as a
// process substitution <(...) gives.
func pipeWith(t *testing.T, content string) string {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.WriteString(content); w.Close() }()
	t.Cleanup(func() { r.Close() })
	return "/proc/self/fd/" + strconv.Itoa(int(r.Fd()))
}

// TestUnknownVersionIsUsage: a --k8s-version that is no embedded minor is
// bad usage (exit 2, before any file is judged), as for every command.
func TestUnknownVersionIsUsage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(crdFile), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, v := range []string{"1.99", "2.0", "garbage"} {
		var stdout, stderr bytes.Buffer
		c := newCmd(strings.NewReader(""), &stdout, &stderr)
		c.SetArgs([]string{"--k8s-version", v, "crd.yaml"})
		err := c.ExecuteContext(t.Context())
		var code exitCode
		if err == nil || errors.As(err, &code) || !strings.Contains(err.Error(), "unknown Kubernetes version") {
			t.Errorf("--k8s-version %s: err = %v, want a usage error naming the version", v, err)
		}
	}
}

// TestBatchKeyOrder: the request is read as it arrives, so its keys come
// in the order project.ValidationRequest marshals them (version first,
// resources before documents); another order, a key twice or an unknown
// key is refused, never answered.
func TestBatchKeyOrder(t *testing.T) {
	v := project.ProtocolVersion
	for in, want := range map[string]string{
		fmt.Sprintf(`{"version": %d, "documents": null}`, v):                        "",
		fmt.Sprintf(`{"version": %d, "resources": [], "documents": []}`, v):         "",
		fmt.Sprintf(`{"documents": [], "version": %d}`, v):                          "send version first",
		fmt.Sprintf(`{"version": %d, "documents": [], "resources": []}`, v):         "send resources first",
		fmt.Sprintf(`{"version": %d, "version": %d}`, v, v):                         "given twice",
		fmt.Sprintf(`{"version": %d, "extra": 1}`, v):                               "unknown field",
		fmt.Sprintf(`{"version": %d, "documents": [{"name": "x", "bogus": 1}]}`, v): "unknown field",
		fmt.Sprintf(`{"version": %d, "documents": {}}`, v):                          "want a list",
		`{"version": 1, "documents": []}`:                                           "protocol version 1",
		`{}`:                                                                        "protocol version 0",
	} {
		batch(t, in, want)
	}
}

// batch runs --batch on in: answered when want is "", else refused with
// an error saying want, and not answered.
func batch(t *testing.T, in, want string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := newCmd(strings.NewReader(in), &stdout, &stderr)
	c.SetArgs([]string{"--batch"})
	err := c.Execute()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v", in, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: got %v, want an error saying %q", in, err, want)
	case want != "" && stdout.Len() > 0:
		t.Errorf("%s: answered %s", in, stdout.String())
	}
}

// TestShowDefaultedJSONKeys: -o json --show-defaulted names its keys as
// every other key of the answer is named (lower camel case).
func TestShowDefaultedJSONKeys(t *testing.T) {
	dir := t.TempDir()
	cr := "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
	if err := os.WriteFile(filepath.Join(dir, "w.yaml"), []byte(crdFile+cr), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	c := newCmd(strings.NewReader(""), &stdout, &stderr)
	c.SetArgs([]string{"-o", "json", "--show-defaulted", "w.yaml"})
	if err := c.ExecuteContext(t.Context()); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var answer struct {
		Stored []map[string]json.RawMessage `json:"stored"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil {
		t.Fatal(err)
	}
	if len(answer.Stored) != 1 || answer.Stored[0]["file"] == nil || answer.Stored[0]["object"] == nil {
		t.Errorf("want stored: [{file, object}], got %s", stdout.String())
	}
}

// TestProcEnvironSaysWhy: validate /proc/self/environ (a file that reports
// size 0 and holds NUL-separated text) fails with a message naming the
// file once and why, and prints none of its content.
func TestProcEnvironSaysWhy(t *testing.T) {
	t.Setenv("K8S_CRD_RESOLVER_CANARY", canary)
	var stdout, stderr bytes.Buffer
	c := newCmd(strings.NewReader(""), &stdout, &stderr)
	c.SetArgs([]string{"/proc/self/environ"})
	err := c.ExecuteContext(t.Context())
	var code exitCode
	if !errors.As(err, &code) || int(code) != exitProblems {
		t.Fatalf("err = %v, want exit %d", err, exitProblems)
	}
	out := stdout.String() + stderr.String()
	if strings.Count(out, "/proc/self/environ") != 1 || !strings.Contains(out, "NUL byte: this is a binary file") {
		t.Errorf("want the file named once, with the reason: %q", out)
	}
	if strings.Contains(out, canary) {
		t.Errorf("printed the environment: %q", out)
	}
}

// TestTemplateAndBadCRDReportedWhereTheyAre: a CRD template given to
// validate is named as one at its first $ref's line, not as the
// apiserver's "$ref: Forbidden" at a path the file does not hold; an
// invalid CRD given with --crd is reported at that CRD, and the custom
// resource is said not to be judged against it (not given the CRD's
// problems at its own line 1).
func TestTemplateAndBadCRDReportedWhereTheyAre(t *testing.T) {
	dir := t.TempDir()
	crd := strings.Join([]string{
		"apiVersion: apiextensions.k8s.io/v1",
		"kind: CustomResourceDefinition",
		"metadata: {name: gizmos.example.com}",
		"spec:",
		"  group: example.com",
		"  names: {kind: Gizmo, plural: gizmos}",
		"  scope: Namespaced",
		"  versions:",
		"  - name: v1",
		"    served: true",
		"    storage: true",
		"    schema:",
		"      openAPIV3Schema:",
		"        type: object",
		"        properties:",
		"          spec: {TYPE}",
		""}, "\n")
	for name, content := range map[string]string{
		"template.yaml": strings.Replace(crd, "{TYPE}", "{$ref: io.k8s.api.core.v1.LocalObjectReference}", 1),
		"bad.yaml":      strings.Replace(crd, "{TYPE}", "{type: objekt}", 1),
		"cr.yaml":       "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\nspec: {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	run := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		c := newCmd(strings.NewReader(""), &stdout, &stderr)
		c.SetArgs(args)
		var code exitCode
		if err := c.ExecuteContext(t.Context()); !errors.As(err, &code) || code != exitProblems {
			t.Errorf("%q: err = %v, want exit 1", args, err)
		}
		return stdout.String()
	}
	if got := run("template.yaml"); !strings.HasPrefix(got, "template.yaml:16:18: CustomResourceDefinition/gizmos.example.com: a CRD template (a $ref at /spec/versions/0/schema/openAPIV3Schema/properties/spec/$ref), not a compiled CRD") || strings.Contains(got, "Forbidden") {
		t.Errorf("validate template.yaml:\n%s", got)
	}
	got := run("--crd", "bad.yaml", "cr.yaml")
	if !strings.Contains(got, "cr.yaml:1:1: Gizmo/g: apiVersion: its CRD (Gizmo example.com, from bad.yaml) is itself invalid, as reported there") ||
		!strings.Contains(got, "\nbad.yaml: gizmos.example.com: ") || strings.Contains(got, "cr.yaml:1:1: Gizmo/g: spec") {
		t.Errorf("validate --crd bad.yaml cr.yaml:\n%s", got)
	}
}
