package docread

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestJSONLen: JSONLen is the length encoding/json writes, for every YAML
// file of the repository's testdata as the reader gives it (escapes, HTML
// characters, invalid UTF-8, numbers as written, nesting) and for values
// made to reach each rule.
func TestJSONLen(t *testing.T) {
	values := []any{
		nil, true, false, "", `a"b\c`, "<&>", "\x00\x1f\t\n", "\xff\xfe", "\u2028\u2029", "ünï",
		json.Number("1e3"), json.Number(""), json.Number("-0.5"), int64(-12), 2.5, 1e21,
		map[string]any{}, []any{}, map[string]any{"<k>": []any{nil, map[string]any{"a": "b", "c": json.Number("1")}}},
	}
	files, err := filepath.Glob("../../testdata/*/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := DecodeDocuments(f, src, DefaultBudget)
		if err != nil {
			continue // the golden cases of unreadable input
		}
		for _, d := range docs {
			values = append(values, d.Value)
		}
	}
	if len(values) < 200 {
		t.Fatalf("%d values: testdata is missing", len(values))
	}
	for _, v := range values {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := JSONLen(v); got != int64(len(raw)) {
			t.Errorf("JSONLen = %d, encoding/json wrote %d bytes: %.200s", got, len(raw), raw)
		}
	}
}
