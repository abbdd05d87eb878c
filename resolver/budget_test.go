package resolver

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
)

// naiveCost is what measure must return, computed the slow way: the
// encoding/json bytes, and a plain walk for the counts.
func naiveCost(t *testing.T, v any) cost {
	t.Helper()
	raw, err := json.Marshal(cleanCopy(v))
	if err != nil {
		t.Fatal(err)
	}
	c := cost{Bytes: int64(len(raw))}
	var walk func(v any, depth int64)
	walk = func(v any, depth int64) {
		c.Nodes++
		c.Indent += depth
		c.Depth = max(c.Depth, depth)
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if k != bundleDefault {
					walk(y, depth+1)
				}
			}
		case []any:
			for _, y := range x {
				walk(y, depth+1)
			}
		}
	}
	walk(cleanCopy(v), 0)
	return c
}

// TestMeasureMatchesEncodingJSON: the budget's byte count is exactly the
// compact JSON encoding/json writes (escapes included), for awkward
// strings and for compiled CRDs whose $ref targets are shared.
func TestMeasureMatchesEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, false, json.Number("-1.5e10"), "", "plain", `quote " backslash \ slash /`,
		"<script>&</script>", "tab\tnl\ncr\rbs\bff\f", "\x01\x1f\x7f", "line\u2028para\u2029", "bad \xff utf8 \xc3",
		"ünïcødé 日本語 🎉", []any{}, map[string]any{}, []any{[]any{[]any{}}},
		map[string]any{"a": []any{1, int64(2), 2.5, "x"}, "b": map[string]any{"c": nil}, "<k>": "&"},
		map[string]any{"kept": "x", bundleDefault: "left out, as the emitter does"},
	}
	for _, v := range values {
		if got, want := unlimited().measure(v), naiveCost(t, v); got != want {
			t.Errorf("%#v: measure %+v, want %+v", v, got, want)
		}
	}
	for _, remove := range []bool{false, true} {
		c, err := New(Options{KubeVersion: "1.30", WorkDir: t.TempDir(), RemoveDescriptions: remove})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second compile takes the targets from the cache
			res, err := c.Compile("daskcluster.yaml", []byte(benchTemplate))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range res.Documents {
				got := unlimited().measure(d.obj)
				if want := naiveCost(t, d.obj); got != want {
					t.Errorf("remove=%t: measure %+v, want %+v", remove, got, want)
				}
			}
		}
	}
}

// TestBlowUpsStayBounded compiles the budget golden cases (real
// blow-ups: 10^20 values through $refs and through an allOf merge, 59 MB
// through aliases, 2^40 through patch copies, 8^12 through a cut cycle,
// merge keys and list insertions going over the same values again and
// again) and checks that each
// fails with ErrBudget having allocated a bounded amount of memory: the
// budget is checked while working, not after.
func TestBlowUpsStayBounded(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/compile/err-budget-*")
	if err != nil || len(dirs) < 4 {
		t.Fatalf("budget cases: %v %v", dirs, err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			abs, _ := filepath.Abs(dir)
			opts := Options{KubeVersion: "1.30", WorkDir: abs, Root: abs}
			if raw, err := os.ReadFile(filepath.Join(dir, "case.yaml")); err == nil {
				if _, after, ok := bytes.Cut(raw, []byte("budget: ")); ok {
					b, err := docread.ParseSize(string(bytes.Fields(after)[0]))
					if err != nil {
						t.Fatal(err)
					}
					opts.Budget = b
				}
				if bytes.Contains(raw, []byte("recursion: preserve")) {
					opts.Recursion = RecursionPreserve
				}
				if bytes.Contains(raw, []byte("patch:")) {
					src, err := os.ReadFile(filepath.Join(dir, "template.patch.yaml"))
					if err != nil {
						t.Fatal(err)
					}
					if opts.Patch, err = ParsePatch("template.patch.yaml", src); err != nil {
						t.Fatal(err)
					}
				}
			}
			src, err := os.ReadFile(filepath.Join(dir, "template.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			c, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = c.Compile("template.yaml", src)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("want ErrBudget, got %v", err)
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) != 1 || list[0].Pos.Line == 0 {
				t.Fatalf("want one positioned error, got %v", err)
			}
			if !strings.Contains(err.Error(), "--budget") {
				t.Errorf("the message does not say how to raise the budget: %v", err)
			}
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: %d MiB allocated in all", filepath.Base(dir), allocated>>20)
			if allocated > 256<<20 {
				t.Errorf("allocated %d MiB before failing", allocated>>20)
			}
		})
	}
}

// TestBudgetOption: a smaller budget refuses a PodSpec at its $ref, and
// the output of a compile that fits never exceeds it.
func TestBudgetOption(t *testing.T) {
	compile := func(budget Size) (*Result, error) {
		c, err := New(Options{KubeVersion: "1.30", WorkDir: t.TempDir(), Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		return c.Compile("daskcluster.yaml", []byte(benchTemplate))
	}
	_, err := compile(64 << 10)
	var list ErrorList
	if !errors.Is(err, ErrBudget) || !errors.As(err, &list) || list[0].Ref != "io.k8s.api.core.v1.PodSpec" || list[0].Pos.Line != 27 {
		t.Fatalf("want ErrBudget at the first PodSpec $ref (line 27), got %v", err)
	}
	// The same error every time: which $ref crosses the budget first must
	// not depend on map iteration order.
	for range 20 {
		if _, again := compile(64 << 10); again == nil || again.Error() != err.Error() {
			t.Fatalf("a second compile failed differently:\n%v\nthen\n%v", err, again)
		}
	}
	fits := 0
	for _, budget := range []Size{512 << 10, 1 << 20, 2 << 20, 3 << 20, 4 << 20, DefaultBudget} {
		res, err := compile(budget)
		if err != nil {
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("budget %s: %v", budget, err)
			}
			t.Logf("budget %s: %v", budget, err)
			continue
		}
		fits++
		var total int64
		for _, d := range res.Documents {
			raw, _ := json.Marshal(d.Object())
			total += int64(len(raw))
		}
		if total > int64(budget) {
			t.Errorf("budget %s: the output is %d bytes of JSON", budget, total)
		}
	}
	if fits < 3 {
		t.Errorf("only %d budgets fit", fits)
	}
	if _, err := New(Options{Budget: -1}); !errors.Is(err, ErrInput) {
		t.Errorf("a negative budget: %v", err)
	}
}
