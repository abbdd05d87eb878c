package docread

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

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

// TestStrictJSONMatchesYAML: for JSON that YAML can read too, the strict
// JSON reader gives the same values and the same positions, so errors
// point at the same places whichever reader a file needs.
func TestStrictJSONMatchesYAML(t *testing.T) {
	var texts [][]byte
	wants, _ := filepath.Glob("../../testdata/compile/*/want.yaml")
	for _, f := range wants {
		docs, err := ParseDocuments(f, mustRead(t, f))
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
		fromYAML, err := ParseYAML("f.json", src, NewBudget(0), nil) // yaml.v3's
		if err != nil && bytes.Contains(src, []byte("}\n{")) {
			continue // a stream of JSON values is no YAML stream: the JSON reader's alone
		}
		if err != nil {
			t.Fatal(err)
		}
		fromJSON, err := ParseJSON("f.json", src, NewBudget(0))
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
			docs, err := ParseDocuments("f", []byte(src))
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
		if _, err := ParseDocuments("f", []byte(src)); !errors.Is(err, ErrInput) {
			t.Errorf("%q: want ErrInput, got %v", src, err)
		}
	}
	for _, src := range []string{`v: "1e400"`, "v: '.nan'", "v: !!str 1e400", "v: inf", "v: 1.2.3"} {
		if _, err := ParseDocuments("f", []byte(src)); err != nil {
			t.Errorf("%q is a string: %v", src, err)
		}
	}
}

// TestNumbersReportedTogether: both readers report every number they
// cannot hold, in source order, and stop at MaxErrors with one more error
// saying so.
func TestNumbersReportedTogether(t *testing.T) {
	for _, n := range []int{3, MaxErrors + 5} {
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
			_, err := ParseDocuments("f", []byte(src))
			var l ErrorList
			if !errors.As(err, &l) {
				t.Fatalf("%d numbers: want an ErrorList, got %v", n, err)
			}
			want := min(n, MaxErrors)
			if n >= MaxErrors {
				want++ // the error that stops the reading
			}
			if len(l) != want {
				t.Fatalf("%d numbers: %d errors, want %d: %v", n, len(l), want, err)
			}
			for i, e := range l[:min(n, MaxErrors)] {
				if !strings.Contains(e.Error(), fmt.Sprintf("1e%d is out of range", 400+i)) {
					t.Errorf("%d numbers: error %d is %v", n, i, e)
				}
			}
			if n >= MaxErrors && l[len(l)-1].Error() != fmt.Sprintf("f: bad input: reading stopped after %d numbers it cannot hold (fix these first)", MaxErrors) {
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
		docs, err := ParseJSON("f.json", []byte(src), NewBudget(0))
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
		_, err := ParseJSON("f.json", []byte(c.src), NewBudget(0))
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
		docs, err := ParseJSON("f.json", src, NewBudget(0))
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
