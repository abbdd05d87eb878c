package resolver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

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

func TestParseSize(t *testing.T) {
	for in, want := range map[string]Size{
		"1": 1, "1048576": 1 << 20, "64Mi": 64 << 20, "64MiB": 64 << 20, "64mib": 64 << 20, "16M": 16e6,
		"16MB": 16e6, "1.5Gi": 3 << 29, "2k": 2000, "2Ki": 2048, " 3 GiB ": 3 << 30, "1B": 1,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Mi", "-1", "0", "1x", "1.2.3M", "99999999999Ti", "0.1"} {
		if _, err := ParseSize(in); !errors.Is(err, ErrInput) {
			t.Errorf("ParseSize(%q): %v, want ErrInput", in, err)
		}
	}
	for s, want := range map[Size]string{16 << 20: "16MiB", 1 << 30: "1GiB", 1536: "1536", 3 << 10: "3KiB", 0: "0"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", s, got, want)
		}
	}
	var s Size
	if err := s.Set("64Mi"); err != nil || s != 64<<20 || s.Type() != "size" {
		t.Errorf("Set: %v %d", err, s)
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
					b, err := ParseSize(string(bytes.Fields(after)[0]))
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

// TestStrictJSONMatchesYAML: for JSON that YAML can read too, the strict
// JSON reader gives the same values and the same positions, so errors
// point at the same places whichever reader a file needs.
func TestStrictJSONMatchesYAML(t *testing.T) {
	var texts [][]byte
	wants, _ := filepath.Glob("../testdata/compile/*/want.yaml")
	for _, f := range wants {
		docs, err := docread.ParseDocuments(f, mustRead(t, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			indented, _ := json.MarshalIndent(d.Value, "", "  ")
			compact, _ := json.Marshal(d.Value)
			texts = append(texts, indented, compact)
		}
	}
	texts = append(texts, []byte(`{"a": [1, {"b": null, "c": [true, "x"]}], "d": {}}`+"\n"+`{"e": "ü"}`),
		// JSON patches, as Dask writes them (parseDocuments reads them with the JSON reader).
		[]byte("[\n  {\"op\": \"add\", \"path\": \"/spec/x/default\", \"value\": \"TCP\"},\n  {\"op\": \"remove\", \"path\": \"/a~1b\"}\n]\n"),
		[]byte(`[{"op":"replace","path":"/n","value":-1.5e3},{"op":"add","path":"/m","value":{"k":[0,9223372036854775807]}}]`))
	for _, src := range texts {
		fromYAML, err := docread.ParseYAML("f.json", src, newBudget(0), nil) // yaml.v3's
		if err != nil && bytes.Contains(src, []byte("}\n{")) {
			continue // a stream of JSON values is no YAML stream: the JSON reader's alone
		}
		if err != nil {
			t.Fatal(err)
		}
		fromJSON, err := docread.ParseJSON("f.json", src, newBudget(0))
		if err != nil {
			t.Fatal(err)
		}
		if len(fromJSON) != len(fromYAML) {
			t.Fatalf("%d documents, YAML reads %d", len(fromJSON), len(fromYAML))
		}
		for i := range fromJSON {
			if !reflect.DeepEqual(fromJSON[i].Value, fromYAML[i].Value) {
				t.Fatalf("document %d: values differ", i)
			}
			for ptr, p := range fromYAML[i].Pos {
				if q := fromJSON[i].Pos[ptr]; q != p {
					t.Fatalf("document %d, %s: JSON reader says %v, YAML %v", i, ptr, q, p)
				}
			}
			if len(fromJSON[i].Pos) != len(fromYAML[i].Pos) {
				t.Fatalf("document %d: %d positions, YAML has %d", i, len(fromJSON[i].Pos), len(fromYAML[i].Pos))
			}
			if fromJSON[i].Cost != fromYAML[i].Cost {
				t.Fatalf("document %d: costs %+v, YAML's %+v", i, fromJSON[i].Cost, fromYAML[i].Cost)
			}
		}
	}
}

func mustRead(t *testing.T, f string) []byte {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNumbers: what the apiserver cannot decode is refused, in YAML and
// JSON alike; what it can is kept as written.
func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"1", true}, {"-0", true}, {"9223372036854775807", true}, {"-9223372036854775808", true},
		{"1.5e308", true}, {"1e-400", true}, {"0.000001", true}, {"1E5", true},
		{"9223372036854775808", false}, {"-9223372036854775809", false}, {"18446744073709551615", false},
		{"99999999999999999999", false}, {"1e400", false}, {"-1e999", false}, {"2e308", false},
	} {
		for _, src := range []string{"v: " + tc.in + "\n", `{"v": ` + tc.in + `, "s": "\/"}`} {
			docs, err := docread.ParseDocuments("f", []byte(src))
			switch {
			case tc.ok && err != nil:
				t.Errorf("%q: %v", src, err)
			case !tc.ok && (err == nil || !errors.Is(err, ErrInput)):
				t.Errorf("%q: want ErrInput, got %v", src, err)
			case tc.ok && docs[0].Value.(map[string]any)["v"] != json.Number(tc.in):
				t.Errorf("%q: read as %#v", src, docs[0].Value.(map[string]any)["v"])
			}
			var e *Error
			if err != nil && errors.As(err, &e) && e.Pos.Col == 0 {
				t.Errorf("%q: no position: %v", src, err)
			}
		}
	}
	for _, src := range []string{"v: .nan", "v: .inf", "v: -.Inf", "v: 0x1ffffffffffffffff", "v: 1_000e999", "v: !!float 1e999"} {
		if _, err := docread.ParseDocuments("f", []byte(src)); !errors.Is(err, ErrInput) {
			t.Errorf("%q: want ErrInput, got %v", src, err)
		}
	}
	for _, src := range []string{`v: "1e400"`, "v: '.nan'", "v: !!str 1e400", "v: inf", "v: 1.2.3"} {
		if _, err := docread.ParseDocuments("f", []byte(src)); err != nil {
			t.Errorf("%q is a string: %v", src, err)
		}
	}
}

// TestNumbersReportedTogether: both readers report every number they
// cannot hold, in source order, and stop at maxErrors with one more error
// saying so.
func TestNumbersReportedTogether(t *testing.T) {
	for _, n := range []int{3, maxErrors + 5} {
		var y, j strings.Builder
		j.WriteString("[")
		for i := range n {
			fmt.Fprintf(&y, "- 1e%d\n", 400+i)
			if i > 0 {
				j.WriteString(", ")
			}
			fmt.Fprintf(&j, "1e%d", 400+i)
		}
		j.WriteString("]")
		for _, src := range []string{y.String(), j.String()} {
			_, err := docread.ParseDocuments("f", []byte(src))
			var l ErrorList
			if !errors.As(err, &l) {
				t.Fatalf("%d numbers: want an ErrorList, got %v", n, err)
			}
			want := min(n, maxErrors)
			if n >= maxErrors {
				want++ // the error that stops the reading
			}
			if len(l) != want {
				t.Fatalf("%d numbers: %d errors, want %d: %v", n, len(l), want, err)
			}
			for i, e := range l[:min(n, maxErrors)] {
				if !strings.Contains(e.Error(), fmt.Sprintf("1e%d is out of range", 400+i)) {
					t.Errorf("%d numbers: error %d is %v", n, i, e)
				}
			}
			if n >= maxErrors && l[len(l)-1].Error() != fmt.Sprintf("f: bad input: reading stopped after %d numbers it cannot hold (fix these first)", maxErrors) {
				t.Errorf("last error: %v", l[len(l)-1])
			}
		}
	}
}

// TestStrictJSONOnly: what only the JSON reader reads. Strings read as
// encoding/json reads them (the apiserver's reading), a stream of values is
// a stream of documents, and malformed JSON is an error at the line:col of
// the offending byte.
func TestStrictJSONOnly(t *testing.T) {
	for _, src := range []string{
		`{"a": "x\/y", "b": "\ud83d\ude00", "c": "lone \ud800 half", "d": "\udc00\u0041", "e": "é\u00e9"}`,
		"{\n\t\"tabs\": [1, 2.5e3, -0, true, false, null],\n\t\"n\": {}}",
		`{"one": 1} {"two": [2]}` + "\n" + `[3]`,
	} {
		docs, err := docread.ParseJSON("f.json", []byte(src), newBudget(0))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		dec := json.NewDecoder(strings.NewReader(src))
		dec.UseNumber()
		for i := 0; dec.More(); i++ {
			var want any
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if i >= len(docs) || !reflect.DeepEqual(docs[i].Value, want) {
				t.Fatalf("%s: document %d differs from encoding/json's %#v", src, i, want)
			}
		}
	}
	for _, c := range []struct{ src, want string }{
		{`{"a": [1, }`, `f.json:1:11: bad input: malformed JSON: expected a value, found '}'`},
		{"{\"a\": [1\n  2]}", `f.json:2:3: bad input: malformed JSON: invalid character '2' after array element (expecting ',' or ']')`},
		{`{"a" 1}`, `f.json:1:6: bad input: malformed JSON: invalid character '1' after object name (expecting ':')`},
		{`{,"a": 1}`, `f.json:1:2: bad input: malformed JSON: invalid character ',' at start of value`},
		{`{"a": 1, "a": 2}`, `f.json:1:10: bad input: key "a" is written twice in this mapping`},
		{`{"a": "\q"}`, "f.json:1:8: bad input: malformed JSON: invalid escape sequence `\\q` in string"},
		{`{"a": "x`, `f.json:1:9: bad input: malformed JSON: unexpected end of input`},
		{"{\"a\": 1}\n]", `f.json:2:1: bad input: malformed JSON: found ']' after the value that ends at 1:8; a JSON file holds one value, or several one after another`},
		{`{"a": 1e999}`, `f.json:1:7: bad input: 1e999 is out of range for a 64-bit float (the apiserver reads numbers as float64)`},
	} {
		_, err := docread.ParseJSON("f.json", []byte(c.src), newBudget(0))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// FuzzStrictJSON: on any input the JSON reader returns (no panic, no
// endless loop) either an error with a position in the file or documents,
// and on input encoding/json reads as a stream of values it reads the same
// values (numbers aside that checkNumber refuses).
//
//	go test ./resolver -run '^$' -fuzz FuzzStrictJSON -fuzztime 1m
func FuzzStrictJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, {"b": null}], "c": "\u00e9\ud800"}`, `[1] [2]`, `{"a": 1e400}`, `{"a" 1}`, "{\n\t\"x\": \"\\/\"}", `[`, `{"a":"b",}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 {
			return // checkText refuses these before any reader runs
		}
		docs, err := docread.ParseJSON("f.json", src, newBudget(0))
		if err != nil {
			var e *Error
			var list ErrorList
			if !errors.As(err, &e) && !errors.As(err, &list) {
				t.Fatalf("%T %v", err, err)
			}
			if e != nil && e.Pos.File != "f.json" {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		var want []any // encoding/json's values, null documents left out as the reader does
		dec := json.NewDecoder(bytes.NewReader(src))
		dec.UseNumber()
		for {
			var v any
			if err := dec.Decode(&v); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("the reader reads what encoding/json refuses: %v", err)
			}
			if v != nil {
				want = append(want, v)
			}
		}
		if len(docs) != len(want) {
			t.Fatalf("%d documents, encoding/json reads %d values", len(docs), len(want))
		}
		for i, d := range docs {
			if !reflect.DeepEqual(d.Value, want[i]) {
				t.Fatalf("document %d: %#v, encoding/json %#v", i, d.Value, want[i])
			}
		}
	})
}
