package bundlefmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	_ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

func write(t testing.TB, defs map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	m := Manifest{KubernetesVersion: "v1.99.0", Module: "k8s.io/kubernetes@v1.99.0"}
	if err := Write(&buf, m, defs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRoundTrip: what Write stores, Open and the Append methods give back, over chunk
// boundaries, the descriptions split off; a definition larger than a chunk gets one of its
// own; JoinDescriptions gives back the definition Write was given.
func TestRoundTrip(t *testing.T) {
	defs := map[string][]byte{}
	want := map[string][2]string{}
	for i := range 40 {
		name := fmt.Sprintf("io.k8s.api.x.v1.T%02d", i)
		def := fmt.Sprintf(`{"properties":{"f%d":{"type":"string"}},"type":"object","x":%q}`, i, strings.Repeat("s", i*150))
		structure, descs := def, ""
		if i%3 == 0 {
			def = fmt.Sprintf(`{"description":"T%d <is> & \"so\".","properties":{"f%d":{"type":"string"}},"type":"object","x":%q}`, i, i, strings.Repeat("s", i*150))
			descs = fmt.Sprintf(`{"":"T%d <is> & \"so\"."}`, i)
		}
		if i == 7 {
			def = fmt.Sprintf(`{"type":"string","x":%q}`, strings.Repeat("big", ChunkSize))
			structure = def
		}
		defs[name] = []byte(def)
		want[name] = [2]string{structure, descs}
	}
	data := write(t, defs)
	if again := write(t, defs); !bytes.Equal(data, again) {
		t.Fatal("writing the same bundle twice gave different bytes")
	}
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.chunks) < 4 {
		t.Errorf("%d chunks for %d KiB", len(r.chunks), len(data)>>10)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	if len(r.Names()) != len(defs) {
		t.Fatalf("%d names", len(r.Names()))
	}
	for name, w := range want {
		i, ok := r.Find(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		s, err := r.AppendStructure([]byte("prefix"), i)
		if err != nil || string(s) != "prefix"+w[0] {
			t.Errorf("%s: structure %.60q, %v", name, s, err)
		}
		d, err := r.AppendDescriptions(nil, i)
		if err != nil || string(d) != w[1] || (w[1] == "") != (d == nil) {
			t.Errorf("%s: descriptions %q, %v; want %q", name, d, err, w[1])
		}
		if def, err := JoinDescriptions(s[len("prefix"):], d); err != nil || !bytes.Equal(def, defs[name]) {
			t.Errorf("%s: joined %.60q, %v", name, def, err)
		}
	}
	if _, ok := r.Find("io.k8s.api.x.v1.T99"); ok {
		t.Error("Find of a missing name succeeded")
	}
}

// TestSplitDescriptions: the descriptions of schema nodes, and only theirs, are split off
// (a property named description, data holding the word and a description that is not a
// string stay), and joined back they give the definition as written.
func TestSplitDescriptions(t *testing.T) {
	def := `{"additionalItems":[{"description":"ai"}],"allOf":[{"description":"all"}],"default":{"description":"data"},` +
		`"definitions":{"d":{"description":"def"}},"dependencies":{"x":{"description":"dep"}},"description":"root <b> & c",` +
		`"enum":[{"description":"data"}],"items":[{"description":"item0"},{"type":"string"}],"not":{"description":"not"},` +
		`"patternProperties":{"^a/b~":{"description":"pp"}},"properties":{"description":{"description":2,"type":"string"},` +
		`"n":{"additionalProperties":{"description":"ap"},"x-kubernetes-validations":[{"description":"v","rule":"true"}]}}}`
	structure, descs, err := SplitDescriptions([]byte(def))
	if err != nil {
		t.Fatal(err)
	}
	wantStructure := `{"additionalItems":[{}],"allOf":[{}],"default":{"description":"data"},"definitions":{"d":{}},"dependencies":{"x":{}},` +
		`"enum":[{"description":"data"}],"items":[{},{"type":"string"}],"not":{},"patternProperties":{"^a/b~":{}},` +
		`"properties":{"description":{"description":2,"type":"string"},"n":{"additionalProperties":{},"x-kubernetes-validations":[{"description":"v","rule":"true"}]}}}`
	wantDescs := `{"":"root <b> & c","/additionalItems/0":"ai","/allOf/0":"all","/definitions/d":"def","/dependencies/x":"dep",` +
		`"/items/0":"item0","/not":"not","/patternProperties/^a~1b~0":"pp","/properties/n/additionalProperties":"ap"}`
	if string(structure) != wantStructure || string(descs) != wantDescs {
		t.Errorf("split:\n got %s\n     %s\nwant %s\n     %s", structure, descs, wantStructure, wantDescs)
	}
	if joined, err := JoinDescriptions(structure, descs); err != nil || string(joined) != def {
		t.Errorf("joined: %s, %v", joined, err)
	}
	if s, d, err := SplitDescriptions([]byte(`{"type":"object"}`)); err != nil || d != nil || string(s) != `{"type":"object"}` {
		t.Errorf("no descriptions: %s %q %v", s, d, err)
	}
	for _, bad := range []string{`[]`, `{"a":1} {}`, `{`} {
		if _, _, err := SplitDescriptions([]byte(bad)); err == nil {
			t.Errorf("SplitDescriptions(%s) succeeded", bad)
		}
	}
	for descs, want := range map[string]string{
		`{"/properties/d":"x"}`:      `"/properties/d" names no schema`,
		`{"properties":"x"}`:         `"properties" is not a JSON pointer`,
		`{"/properties/c/type":"x"}`: `names no schema`,
		`{"/properties/c":"x"}`:      "has a description in the structure too",
		`{"":1}`:                     "cannot unmarshal number",
		`{}`:                         "an empty set of descriptions",
	} {
		if _, err := JoinDescriptions([]byte(`{"properties":{"c":{"description":"c","type":"string"}}}`), []byte(descs)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("JoinDescriptions(%s) = %v, want %q", descs, err, want)
		}
	}
}

// TestOpenRefuses: a bundle whose index lies (bad magic, sizes and offsets beyond the
// file, unsorted names, a wrong CRC) is an error, never a panic or an allocation of what
// the index claims.
func TestOpenRefuses(t *testing.T) {
	good := write(t, map[string][]byte{"a.A": []byte(`{"type":"object"}`), "a.B": []byte(`{"description":"B.","type":"string"}`)})
	open := func(data []byte) error {
		r, err := Open(data)
		if err != nil {
			return err
		}
		return r.Check()
	}
	if err := open(good); err != nil {
		t.Fatal(err)
	}
	manifestEnd := len(magic) + 4 + int(leUint32(good[len(magic):]))
	for name, mutate := range map[string]func([]byte){
		"magic":          func(b []byte) { b[0] = 'X' },
		"version":        func(b []byte) { b[len(magic)-1] = 2 },
		"manifest size":  func(b []byte) { putUint32(b[manifestEnd:], 1<<30) },
		"names size":     func(b []byte) { putUint32(b[manifestEnd:], 1<<31) },
		"names order":    func(b []byte) { i := bytes.Index(b, []byte("a.A\na.B\n")); copy(b[i:], "a.B\na.A\n") },
		"last byte":      func(b []byte) { b[len(b)-1] ^= 0xff },
		"first data":     func(b []byte) { b[len(b)-8] ^= 0x55 },
		"definition ptr": func(b []byte) { i := bytes.Index(b, []byte("a.A\na.B\n")) + 8 + 4; putUint32(b[i+4:], 1<<20) },
		"structure":      func(b []byte) { i := bytes.LastIndex(b, []byte(`{"type":"object"}`)); b[i+3] = 'T' },
	} {
		b := bytes.Clone(good)
		mutate(b)
		if err := open(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for n := range len(good) {
		if err := open(good[:n]); err == nil && n < len(good) {
			t.Errorf("truncated to %d bytes: accepted", n)
		}
	}
}

func FuzzOpen(f *testing.F) {
	f.Add(write(f, map[string][]byte{"a.A": []byte(`{"type":"object"}`), "a.B": []byte(`{"description":"x"}`)}))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Open(data)
		if err != nil {
			return
		}
		_ = r.Check()
		for i := range r.Names() {
			_, _ = r.AppendStructure(nil, i)
			_, _ = r.AppendDescriptions(nil, i)
		}
	})
}

func leUint32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func putUint32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// TestDecodeHeader: the header of what Write writes, whatever else the manifest holds; the
// fields in any order; a manifest that is not an object, or a header field of the wrong
// type, is an error.
func TestDecodeHeader(t *testing.T) {
	r, err := Open(write(t, map[string][]byte{"a.A": []byte(`{}`)}))
	if err != nil {
		t.Fatal(err)
	}
	want := Header{Format: FormatVersion, KubernetesVersion: "v1.99.0"}
	if h, err := DecodeHeader(r.Manifest); err != nil || h != want {
		t.Errorf("written: %+v, %v", h, err)
	}
	if h, err := DecodeHeader([]byte(`{"sha256":{"a":"b"},"x":[1,{"y":2}],"kubernetesVersion":"v1.2.3","format":4}`)); err != nil || h != (Header{4, "v1.2.3"}) {
		t.Errorf("reordered: %+v, %v", h, err)
	}
	for _, bad := range []string{``, `[]`, `{"format":"4"}`, `{"kubernetesVersion":1}`, `{"format":4,`, `{"x":}`} {
		if h, err := DecodeHeader([]byte(bad)); err == nil {
			t.Errorf("%s: %+v, no error", bad, h)
		}
	}
}

// TestDecode: one JSON value, numbers as written, and nothing after it
// (a closing bracket or a second value included).
func TestDecode(t *testing.T) {
	v, err := Decode([]byte(` {"a": [1.50, "x", true, null]} `))
	want := map[string]any{"a": []any{json.Number("1.50"), "x", true, nil}}
	if err != nil || !reflect.DeepEqual(v, want) {
		t.Fatalf("Decode = %#v, %v; want %#v", v, err, want)
	}
	for _, src := range []string{`{}]`, `{} {}`, `{}}`, `1 2`, `{`, ``} {
		if _, err := Decode([]byte(src)); err == nil {
			t.Errorf("Decode(%q) took it", src)
		}
	}
}
