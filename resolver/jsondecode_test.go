package resolver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

func stdDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// TestDecodeJSONMatchesEncodingJSON: every definition of every embedded
// bundle decodes to exactly what encoding/json (UseNumber) gives.
func TestDecodeJSONMatchesEncodingJSON(t *testing.T) {
	eachEmbeddedDefinition(t, func(v, name string, b *schemas.Bundle, raw []byte) {
		got, err := decodeJSON(raw)
		if err != nil {
			t.Fatalf("%s %s: %v", v, name, err)
		}
		want, _ := stdDecode(raw)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %s: decodes differently", v, name)
		}
		// Descriptions are keyed by JSON pointer, the root's by "".
		descs, err := b.Descriptions(name)
		if err != nil || descs == nil {
			return
		}
		got, err = decodeJSON(descs)
		if err != nil {
			t.Fatalf("%s %s descriptions: %v", v, name, err)
		}
		if want, _ := stdDecode(descs); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %s: descriptions decode differently", v, name)
		}
	})
}

// eachEmbeddedDefinition calls f with every definition of every embedded
// bundle, as the bundle's Definition reads it.
func eachEmbeddedDefinition(t *testing.T, f func(version, name string, b *schemas.Bundle, raw []byte)) {
	t.Helper()
	for _, v := range schemas.Versions() {
		b, err := schemas.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range b.Names() {
			raw, err := b.Definition(name)
			if err != nil {
				t.Fatal(err)
			}
			f(v, name, b, raw)
		}
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9\ud83d\ude00",true,null]}`, `"\\\"\/\b\f\n\r\t"`, `[]`, `{}`, `-0.1`, `"\ud800\u0041"`, `"\ud800x"`, `"\udc00\ud800\udc00"`, `{"a":1,"a":2}`, `{"":"empty key","a":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeJSON(data)
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("json.Valid says %v, decodeJSON says %v", valid, err)
		}
		if err != nil {
			return
		}
		want, _ := stdDecode(data)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodes differently: %#v vs %#v", got, want)
		}
	})
}

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "-1.5e10": true, "1E+3": true, "2e-3": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "1e+": false, "+1": false, "0x1": false, "1_000": false,
	} {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v, want %v", s, got, want)
		}
		if want != json.Valid([]byte(s)) && s != "" {
			t.Errorf("test table disagrees with encoding/json on %q", s)
		}
	}
}

func TestDecodeJSONSkipping(t *testing.T) {
	got, err := decodeJSONSkipping([]byte(`{"description":"x \\\" y","type":"object","properties":{"a":{"description":"z","type":"string"},"description":{"type":"string"}}}`), "description")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}, "description": map[string]any{"type": "string"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

// TestDecodeJSONSkippingTop: the members named, at the top level only and
// only when mappings, become skippedMapping{}; everything else decodes as
// decodeJSON decodes it; a malformed skipped value is an error still.
func TestDecodeJSONSkippingTop(t *testing.T) {
	in := `{"properties":{"a":{"items":[1,-2.5e3,true,false,null,"s\"}"]},"b":{}},"items":"not a mapping","type":"object","x":{"properties":{"c":1}}}`
	got, err := (&jsonDecoder{data: []byte(in), skipTop: []string{"items", "properties"}}).all()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"properties": skippedMapping{}, "items": "not a mapping", "type": "object",
		"x": map[string]any{"properties": map[string]any{"c": json.Number("1")}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
	for _, bad := range []string{
		`{"properties":{"a":}}`, `{"properties":{"a" 1}}`, `{"properties":{"a":1,}}`, `{"properties":{"a":[1 2]}}`,
		`{"properties":{"a":01x}}`, `{"properties":{"a":tru}}`, `{"properties":{"a":"x`, `{"properties":{"a":{}`,
		`{"properties":{1:2}}`, `{"properties":{"a":"` + "\x01" + `"}}`,
	} {
		if _, err := (&jsonDecoder{data: []byte(bad), skipTop: []string{"properties"}}).all(); err == nil {
			t.Errorf("%s: decoded", bad)
		}
		if _, err := decodeJSON([]byte(bad)); err == nil {
			t.Errorf("%s: decodeJSON takes it (the case tests nothing)", bad)
		}
	}
	deep := `{"properties":` + strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2) + `}`
	if _, err := (&jsonDecoder{data: []byte(deep), skipTop: []string{"properties"}}).all(); err == nil {
		t.Error("a skipped value nested past maxDepth decoded")
	}
}

// TestSkippingTopMatchesEmbedded: for every definition of every embedded
// bundle, skipping its mappings at the top level leaves exactly what
// decodeJSON gives for the rest.
func TestSkippingTopMatchesEmbedded(t *testing.T) {
	eachEmbeddedDefinition(t, func(v, name string, _ *schemas.Bundle, raw []byte) {
		full, err := decodeJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := full.(map[string]any)
		var skip []string
		for k, x := range m {
			if _, ok := x.(map[string]any); ok {
				skip = append(skip, k)
			}
		}
		got, err := (&jsonDecoder{data: raw, skipTop: skip}).all()
		if err != nil {
			t.Fatalf("%s %s: %v", v, name, err)
		}
		for _, k := range skip {
			m[k] = skippedMapping{}
		}
		if !reflect.DeepEqual(got, full) {
			t.Fatalf("%s %s: decodes differently", v, name)
		}
	})
}

// TestSharedDecode: decoding a bundle's own bytes in place (shared) gives
// what decodeJSON gives, its strings without escapes pointing into the
// bytes; a string with an escape or invalid UTF-8 is a copy, as decodeJSON
// makes it.
func TestSharedDecode(t *testing.T) {
	eachEmbeddedDefinition(t, func(v, name string, b *schemas.Bundle, _ []byte) {
		for _, read := range []func(string) ([]byte, error){b.SharedDefinition, b.SharedDescriptions} {
			raw, err := read(name)
			if err != nil {
				t.Fatal(err)
			}
			if raw == nil {
				continue
			}
			got, err := (&jsonDecoder{data: raw, shared: true}).all()
			if err != nil {
				t.Fatalf("%s %s: %v", v, name, err)
			}
			if want, _ := decodeJSON(raw); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s: decodes differently", v, name)
			}
		}
	})
	data := []byte(`{"a":"plain","b":"esc\"aped","c":"bad ` + "\xff" + `"}`)
	got, err := (&jsonDecoder{data: data, shared: true}).all()
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	inData := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(&data[0]))
		return p >= start && p < start+uintptr(len(data))
	}
	if !inData(m["a"].(string)) {
		t.Error("a plain string was copied")
	}
	if inData(m["b"].(string)) || m["b"] != `esc"aped` {
		t.Errorf("an escaped string: %q, shared %v", m["b"], inData(m["b"].(string)))
	}
	if inData(m["c"].(string)) || m["c"] != "bad \ufffd" {
		t.Errorf("invalid UTF-8: %q, shared %v", m["c"], inData(m["c"].(string)))
	}
}

// TestAddDescriptionsShared: descriptions put back from the bundle's own
// bytes are those put back from a copy of them.
func TestAddDescriptionsShared(t *testing.T) {
	b, err := schemas.Load(schemas.Versions()[len(schemas.Versions())-1])
	if err != nil {
		t.Fatal(err)
	}
	const name = "io.k8s.api.core.v1.PodSpec"
	raw, _ := b.Definition(name)
	descs, err := b.SharedDescriptions(name)
	if err != nil || len(descs) == 0 {
		t.Fatalf("no descriptions: %v", err)
	}
	var defs [2]map[string]any
	for i, shared := range []bool{false, true} {
		v, _ := decodeJSON(raw)
		defs[i] = v.(map[string]any)
		if err := addDescriptions(defs[i], bytes.Clone(descs), 0, shared, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(defs[0], defs[1]) {
		t.Fatal("the descriptions differ")
	}
	if _, ok := defs[1]["description"].(string); !ok {
		t.Fatal("the root has no description")
	}
	if err := addDescriptions(map[string]any{}, []byte(`{"":"x"} {}`), 0, true, nil); err == nil {
		t.Error("data after the object was taken")
	}
	if err := addDescriptions(map[string]any{}, []byte(`["x"]`), 0, true, nil); err == nil {
		t.Error("a list was taken for the object")
	}
}
