package emit

import (
	"testing"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// FuzzYAMLString: any string, as a key or a value, at any depth, in
// a list or a mapping, reads back unchanged; and numberLike agrees with
// the regular expression it replaced.
func FuzzYAMLString(f *testing.F) {
	for _, s := range []string{"", "plain", "true", "no", "1", "0x1f", "1e3", ".inf", "2024-01-01", "a: b", "a #b", "#x", "- x",
		"multi\nline", "trailing \nspace", " lead", "tab\there", "\x00", "café", "~", "null", "{a}", "[1]", "'q'", `"dq"`,
		"x:", "key:value", "\n", "a\n\nb\n", "ends with newline\n", "two\n\n", "\ufeffbom", "\u2028sep", "é: x"} {
		f.Add(s)
	}
	for _, s := range numberLikeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNumberLike(t, s)
		if !utf8.ValidString(s) {
			return // inputs are checked to be UTF-8 before they get here
		}
		in := map[string]any{s: s, "list": []any{s, map[string]any{"in": s}}, "nested": map[string]any{"deep": map[string]any{s: s}}}
		out, err := YAML(in)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := yaml.Unmarshal(out, &back); err != nil {
			t.Fatalf("does not parse: %v\n%s", err, out)
		}
		if back[s] != s {
			t.Fatalf("value %q read back as %q from\n%s", s, back[s], out)
		}
		list := back["list"].([]any)
		if list[0] != s || list[1].(map[string]any)["in"] != s {
			t.Fatalf("list item %q read back wrong from\n%s", s, out)
		}
		if back["nested"].(map[string]any)["deep"].(map[string]any)[s] != s {
			t.Fatalf("nested %q read back wrong from\n%s", s, out)
		}
	})
}

// A []string is written as the sequence of its strings (and quoted as
// any string: "y" reads as a bool in YAML 1.1).
func TestYAMLStrings(t *testing.T) {
	out, err := YAML(map[string]any{"a": []string{"x", "y"}, "b": []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a:\n  - x\n  - \"y\"\nb: []\n"; string(out) != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}
