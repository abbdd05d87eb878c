package resolver

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// checkSimpleYAML: where parseSimpleYAML takes src, the documents (values,
// positions, costs) and errors are what yaml.v3 and the converter make of
// it. It reports whether the fast path took src.
func checkSimpleYAML(t *testing.T, src []byte) bool {
	t.Helper()
	if _, ok := parseSimpleYAML(string(src)); !ok {
		return false
	}
	fast, fastErr := parseDocumentsSimple("f.yaml", src, newBudget(0), true)
	slow, slowErr := parseDocumentsSimple("f.yaml", src, newBudget(0), false)
	if fmt.Sprint(fastErr) != fmt.Sprint(slowErr) {
		t.Fatalf("%q:\nsimple: %v\nyaml.v3: %v", src, fastErr, slowErr)
	}
	if len(fast) != len(slow) {
		t.Fatalf("%q: %d documents, yaml.v3 %d", src, len(fast), len(slow))
	}
	// Positions are built when first asked for: the last document's
	// first, so building them for the whole file at once is what is tested.
	for i := len(fast) - 1; i >= 0; i-- {
		f, s := fast[i], slow[i]
		if f.lazy == nil || f.pos != nil {
			t.Fatalf("%q: document %d: the simple reader built its positions eagerly", src, i)
		}
		if fp := f.positionMap(); !reflect.DeepEqual(f.value, s.value) || !reflect.DeepEqual(fp, s.pos) || f.cost != s.cost || f.index != s.index {
			t.Fatalf("%q: document %d differs:\nsimple:  %#v\n         %v\nyaml.v3: %#v\n         %v", src, i, f.value, fp, s.value, s.pos)
		}
	}
	return true
}

// simpleYAMLCorpus is every YAML file of the repository's templates and
// test data.
func simpleYAMLCorpus(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, root := range []string{"../templates", "../testdata", "../charts", "../operator"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
					out[p] = b
				}
			}
			return nil
		})
	}
	if len(out) < 50 {
		t.Fatalf("only %d YAML files found", len(out))
	}
	return out
}

var simpleYAMLSeeds = []string{
	"a: 1\n", "a: b\nc:\n  - 1\n  - x\n", "a:\n- 1\n- 2\nb: c\n", "- a: 1\n  b: 2\n- c\n",
	"a: {b: 1, c: [x, 'y', \"z\"]}\n", "a: []\nb: {}\n", "a: 'it''s'\n", "a: \"q\" # c\n",
	"# head\na: 1 # one\n\n# mid\nb: -1\n", "---\na: 1\n---\nb: 2\n", "a: 1\n---\nb: 2\n",
	"a: b: c\n", "a: b\n  c\n", "a:\n", "a: 1\nb:\n", "a: http://x:1/y\n", "a: 1.5e3\nb: 0x1F\nc: ~\nd: yes\ne: 2001-12-14\n",
	"\"k\": v\n'l': w\n", "a: {b: {c: [1, [2, 3]]}}\n", "a: [1, 2,]\n", "a: {b}\n", "a: {b: }\n", "a: x#y\n",
	"$ref: a.yaml#/definitions/X\n", "a: -x\nb: --x\n", "a: <<\n", "<<: {a: 1}\nb: 2\n", "a: 1\na: 2\n",
	"a:\n  b:\n    c: 1\n  d: 2\n", "a:\n    - 1\n    - 2\n", "- - 1\n", "-\n  a: 1\n", "a: [x, {y: 1}]\n",
	"key with space: 1\n", "a: 'x' y\n", "a: \"x\\n\"\n", "a:  two  spaces  \n", "-1: x\n", "a: !!str 1\n",
	"a: |\n  x\n\n  y\nb: 1\n", "a: >-\n  x\n  y\n\n  z\n", "a: >\n  x\n    y\n", "a: |\n    x\n  y\n",
	"a: |\n\n  x\n", "- |\n  x\n- y\n", "a: |-\n  x\n\n\nb: 1\n", "a: | # c\n  x\n", "a: |\n  x  \n",
	"a: >\n  # not a comment\n  z\n", "a: |\n  x\n   y\nb: >\n  p\n\n\n  q\n", "a:\n  b: |\n    x\n c: 1\n",
	strings.Repeat("k", 1000) + ": v\n", strings.Repeat("k", 1030) + ": v\n", "a: {" + strings.Repeat("k", 1030) + ": v}\n",
	"'" + strings.Repeat("q", 1030) + "': v\n", "- " + strings.Repeat("k", 1030) + ": v\n",
	"a: " + strings.Repeat("[", 401) + strings.Repeat("]", 401) + "\n", "a: " + strings.Repeat("[", 400) + "1" + strings.Repeat("]", 400) + "\n",
	"a: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n",
	"a: {b?: 1}\n", "a: [b?c, d]\n", "a: b?\n", "a: {b: c@d}\n",
	"a: &x 1\nb: *x\n", "a: |\n  t\n", "a:\tb\n", "a: b\r\n", "a: é\n", "...\n", "%YAML 1.2\n---\na: 1\n",
}

func TestSimpleYAML(t *testing.T) {
	taken := 0
	for _, s := range simpleYAMLSeeds {
		if checkSimpleYAML(t, []byte(s)) {
			taken++
		}
	}
	corpus := simpleYAMLCorpus(t)
	fastFiles := 0
	for name, src := range corpus {
		if checkSimpleYAML(t, src) {
			fastFiles++
		}
		// Every prefix of every line count, and the file with each line
		// indented one more space, as more cases.
		lines := strings.SplitAfter(string(src), "\n")
		for i := 1; i < len(lines) && i < 40; i++ {
			checkSimpleYAML(t, []byte(strings.Join(lines[:i], "")))
			shifted := append(append(append([]string{}, lines[:i]...), " "+lines[i]), lines[i+1:]...)
			checkSimpleYAML(t, []byte(strings.Join(shifted, "")))
		}
		_ = name
	}
	// The fast path is real: it takes the templates it exists for.
	for _, f := range []string{"../templates/daskcluster.yaml", "../templates/daskjob.yaml", "../templates/daskworkergroup.yaml", "../templates/daskautoscaler.yaml", "../templates/definitions.yaml"} {
		if !checkSimpleYAML(t, corpus[f]) {
			t.Errorf("%s: the simple parser declines it", f)
		}
	}
	t.Logf("simple parser took %d of %d seeds and %d of %d files", taken, len(simpleYAMLSeeds), fastFiles, len(corpus))
}

func FuzzSimpleYAML(f *testing.F) {
	for _, s := range simpleYAMLSeeds {
		f.Add([]byte(s))
	}
	for _, src := range simpleYAMLCorpus(f) {
		if len(src) < 4096 {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkSimpleYAML(t, src) })
}

// TestPlainTagMatchesYAML: plainTag resolves every plain scalar as yaml.v3
// does: each printable first byte followed by text that makes yaml.v3's
// resolve take another branch (its map's spellings, numbers, timestamps,
// floats' specials), and words near those spellings.
func TestPlainTagMatchesYAML(t *testing.T) {
	words := []string{
		"true", "True", "TRUE", "tRUE", "truE", "false", "False", "FALSE", "fAlse", "null", "Null", "NULL", "nULL", "nil",
		"yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N", "t", "f",
		"~", ".inf", ".Inf", ".INF", "+.inf", "-.inf", ".nan", ".NaN", ".NAN", "NaN", "nan", "inf", "Infinity",
		"<<", "0", "-0", "+1", "0x1F", "0o17", "017", "1_000", "1e3", "1.5", ".5", "-.5e-3", "2001-12-14",
		"2001-12-14t21:59:43.10-05:00", "1:20", "a", "ab", "x-1", "$ref", "_x", "/path", "io.k8s.api.core.v1.PodSpec",
	}
	suffixes := []string{"", "rue", "RUE", "alse", "ull", "ULL", "1", "0", ".5", "e3", "x", "_1", "nf", "an", "-01-01", ":1"}
	for c := byte(' ' + 1); c < 0x7f; c++ {
		for _, s := range suffixes {
			words = append(words, string(c)+s)
		}
	}
	for _, w := range words {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: w}
		want := n.ShortTag()
		if got := plainTag(n); got != want {
			t.Errorf("plainTag(%q) = %s, yaml.v3 resolves it to %s", w, got, want)
		}
	}
}
