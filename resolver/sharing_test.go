package resolver_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/sharedgen"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// Issue 48: the compiler's output is a function of its input. A resolved
// $ref target is finished once and shared by every use and the Compiler's
// cache; what one use merges into it (allOf, required, properties, a
// patch) must reach neither the other uses nor the cache. These tests would
// have caught the required list appended in place (two uses of Condition
// got each other's keys, differently from run to run).

// compileShared compiles cases for Kubernetes 1.30 in the given order, with
// one Compiler for all of them (shared: its cache fills as it goes, as in a
// project's build) or a fresh one each, and returns each case's output
// (YAML and warnings, or the error) by name. Between compiles it checks that
// no cached target changed (see TestCachedTargetsNeverChange).
func compileShared(t testing.TB, cases []sharedgen.Case, shared, removeDescriptions bool) map[string]string {
	t.Helper()
	dir := t.TempDir()
	newCompiler := func() *resolver.Compiler {
		c, err := resolver.New(resolver.Options{KubeVersion: "1.30", WorkDir: dir, Root: dir, RemoveDescriptions: removeDescriptions})
		require.NoError(t, err)
		return c
	}
	c := newCompiler()
	seen := map[string]string{}
	out := make(map[string]string, len(cases))
	for _, tc := range cases {
		if !shared {
			c, seen = newCompiler(), map[string]string{}
		}
		var patch *resolver.Patch
		if tc.Patch != "" {
			p, err := resolver.ParsePatch(tc.Name+".patch.yaml", []byte(tc.Patch))
			require.NoError(t, err)
			patch = p
		}
		res, err := c.CompilePatched(tc.Name, []byte(tc.Src), nil, patch)
		checkCachedTargets(t, c, seen, tc.Name)
		if err != nil {
			out[tc.Name] = "error: " + err.Error()
			continue
		}
		y, err := res.YAML()
		require.NoError(t, err)
		out[tc.Name] = fmt.Sprintf("%s\n%v", y, res.Warnings)
	}
	return out
}

// checkCachedTargets fails when a target c cached before (in seen) no
// longer has its fingerprint, then records the new ones.
func checkCachedTargets(t testing.TB, c *resolver.Compiler, seen map[string]string, after string) {
	t.Helper()
	now := resolver.CachedTargets(c)
	for _, k := range slices.Sorted(mapKeys(seen)) {
		if now[k] != seen[k] {
			t.Fatalf("compiling %s changed the cached $ref target %s, which every use shares", after, k)
		}
	}
	for k, f := range now {
		seen[k] = f
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestCachedTargetsNeverChange compiles every golden case twice with one
// Compiler (the second compile takes its targets from the cache), and the
// generated shared-use templates with one Compiler for all, fingerprinting
// every cached target before and after each compile: none may change.
func TestCachedTargetsNeverChange(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/compile/*")
	require.NoError(t, err)
	for _, dir := range dirs {
		co, opts := loadCaseQuiet(t, dir)
		if opts == nil {
			continue
		}
		c, err := resolver.New(*opts)
		if err != nil {
			continue // a bad option: no compile, nothing cached
		}
		src, err := os.ReadFile(filepath.Join(dir, co.Template))
		require.NoError(t, err)
		seen := map[string]string{}
		for range 2 {
			_, _ = c.Compile(co.Template, src)
			checkCachedTargets(t, c, seen, dir)
		}
	}
	cases := sharedgen.Templates(48, 60)
	for _, remove := range []bool{false, true} {
		compileShared(t, cases, true, remove)
	}
}

// loadCaseQuiet is loadCase, with nil options for a case whose patch
// itself fails (loadCase checks that case's golden error).
func loadCaseQuiet(t *testing.T, dir string) (golden.CompileCase, *resolver.Options) {
	t.Helper()
	co, opts := loadCase(t, dir)
	if opts.WorkDir == "" {
		return co, nil
	}
	return co, &opts
}

// determinismEnv names, in a child process of TestOutputIsAFunctionOfInput,
// the file it writes its outputs to; the child's mode comes in
// determinismMode.
const (
	determinismEnv  = "K8S_CRD_RESOLVER_DETERMINISM_OUT"
	determinismMode = "K8S_CRD_RESOLVER_DETERMINISM_MODE"
)

// determinismSeed is logged by the test, so a failure can be replayed.
const determinismSeed = 20261205

// TestOutputIsAFunctionOfInput compiles every golden case and a few hundred
// generated templates that use the same types many times (allOf, required,
// properties and patches on the uses) in separate processes, under
// GOMAXPROCS 1, 2 and 4, with one Compiler for all in either order (as a
// project builds them) and with a fresh Compiler for each (as each template
// built alone): every output must be the same bytes in every process and
// mode.
func TestOutputIsAFunctionOfInput(t *testing.T) {
	if os.Getenv(determinismEnv) != "" {
		t.Skip("in the child process")
	}
	n := 300
	if testing.Short() {
		n = 100
	}
	t.Logf("seed %d, %d generated templates", determinismSeed, n)
	runs := []struct{ procs, mode string }{
		{"1", "shared"},
		{"4", "shared-reverse"},
		{"2", "alone"},
		{"4", "shared"},
	}
	if testing.Short() {
		runs = runs[:3]
	}
	var first map[string]string
	var firstRun string
	for _, run := range runs {
		outFile := filepath.Join(t.TempDir(), "out.json")
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run", "^TestDeterminismChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+run.procs, determinismEnv+"="+outFile, determinismMode+"="+run.mode, fmt.Sprintf("K8S_CRD_RESOLVER_DETERMINISM_N=%d", n))
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child (GOMAXPROCS=%s, %s): %v\n%s", run.procs, run.mode, err, msg)
		}
		raw, err := os.ReadFile(outFile)
		require.NoError(t, err)
		var got map[string]string
		require.NoError(t, json.Unmarshal(raw, &got))
		require.GreaterOrEqual(t, len(got), n, "the child compiled every template")
		name := fmt.Sprintf("GOMAXPROCS=%s %s", run.procs, run.mode)
		if first == nil {
			first, firstRun = got, name
			continue
		}
		for _, k := range slices.Sorted(mapKeys(first)) {
			if got[k] != first[k] {
				t.Errorf("%s: %s gives other bytes than %s (seed %d)", k, name, firstRun, determinismSeed)
			}
		}
	}
}

// TestDeterminismChild is the child process of TestOutputIsAFunctionOfInput.
func TestDeterminismChild(t *testing.T) {
	outFile := os.Getenv(determinismEnv)
	if outFile == "" {
		t.Skip("run by TestOutputIsAFunctionOfInput")
	}
	var n int
	_, err := fmt.Sscan(os.Getenv("K8S_CRD_RESOLVER_DETERMINISM_N"), &n)
	require.NoError(t, err)
	cases := sharedgen.Templates(determinismSeed, n)
	mode := os.Getenv(determinismMode)
	if mode == "shared-reverse" {
		slices.Reverse(cases)
	}
	out := map[string]string{}
	for _, remove := range []bool{false, true} {
		for k, v := range compileShared(t, cases, mode != "alone", remove) {
			out[fmt.Sprintf("%s remove=%t", k, remove)] = digest(v)
		}
	}
	dirs, err := filepath.Glob("../testdata/compile/*")
	require.NoError(t, err)
	if mode == "shared-reverse" {
		slices.Reverse(dirs)
	}
	for _, dir := range dirs {
		co, opts := loadCaseQuiet(t, dir)
		if opts == nil {
			continue
		}
		c, err := resolver.New(*opts)
		if err != nil {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, co.Template))
		require.NoError(t, err)
		res, err := c.Compile(co.Template, src)
		key := "golden " + filepath.Base(dir)
		if err != nil {
			out[key] = digest("error: " + err.Error())
			continue
		}
		y, err := res.YAML()
		require.NoError(t, err)
		out[key] = digest(fmt.Sprintf("%s\n%v", y, res.Warnings))
	}
	raw, err := json.Marshal(out)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(outFile, raw, 0o600))
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// FuzzSharedUses generates a handful of templates from the fuzzer's seed
// and checks that each compiles to the same bytes alone (a fresh Compiler)
// as after the others with one Compiler, and that no cached target changes
// on the way.
//
//	go test ./resolver -run '^$' -fuzz FuzzSharedUses -fuzztime 1m
func FuzzSharedUses(f *testing.F) {
	for _, s := range []uint64{1, 48, 2026, 1 << 40} {
		f.Add(s, uint8(6))
	}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		cases := sharedgen.Templates(seed, 1+int(n%12))
		alone := compileShared(t, cases, false, true)
		shared := compileShared(t, cases, true, true)
		slices.Reverse(cases)
		reversed := compileShared(t, cases, true, true)
		for k, want := range alone {
			if shared[k] != want || reversed[k] != want {
				t.Fatalf("seed %d: %s compiles to other bytes after other templates with one Compiler:\nalone:\n%s\nshared:\n%s", seed, k, want, shared[k])
			}
		}
	})
}
