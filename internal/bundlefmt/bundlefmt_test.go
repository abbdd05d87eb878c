package bundlefmt

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	_ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

func write(t testing.TB, defs map[string][]byte, normalized bool) []byte {
	return writeStored(t, defs, normalized, false)
}

func writeStored(t testing.TB, defs map[string][]byte, normalized, uncompressed bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	m := Manifest{KubernetesVersion: "v1.99.0", Module: "k8s.io/kubernetes@v1.99.0", Normalized: normalized, Uncompressed: uncompressed}
	if err := Write(&buf, m, defs, nil, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRoundTrip: what Write stores, Open and the Append methods give back, over chunk
// boundaries; a definition larger than a chunk gets one of its own. Deflated and
// Uncompressed alike (there, structures are stored as they are and descriptions deflated).
func TestRoundTrip(t *testing.T) {
	for _, uncompressed := range []bool{false, true} {
		t.Run(fmt.Sprint("uncompressed=", uncompressed), func(t *testing.T) { roundTrip(t, uncompressed) })
	}
}

func roundTrip(t *testing.T, uncompressed bool) {
	defs := map[string][]byte{}
	want := map[string][2]string{}
	for i := range 40 {
		name := fmt.Sprintf("io.k8s.api.x.v1.T%02d", i)
		structure := fmt.Sprintf(`{"properties":{"f%d":{"type":"string"}},"type":"object","x":%q}`, i, strings.Repeat("s", i*150))
		descs := ""
		if i%3 == 0 {
			descs = fmt.Sprintf(`{"":"T%d <is> & \"so\"."}`, i)
		}
		if i == 7 {
			structure = fmt.Sprintf(`{"type":"string","x":%q}`, strings.Repeat("big", ChunkSize))
		}
		data := structure
		if descs != "" {
			data += "\n" + descs
		}
		defs[name] = []byte(data)
		want[name] = [2]string{structure, descs}
	}
	data := writeStored(t, defs, true, uncompressed)
	if again := writeStored(t, defs, true, uncompressed); !bytes.Equal(data, again) {
		t.Fatal("writing the same bundle twice gave different bytes")
	}
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.chunks) < 4 {
		t.Errorf("%d chunks for %d KiB", len(r.chunks), len(data)>>10)
	}
	stored := 0
	for i := range r.chunks {
		if r.chunks[i].clen == 0 {
			stored++
		}
	}
	if descChunks := 1; (stored == len(r.chunks)-descChunks) != uncompressed || (stored == 0) == uncompressed {
		t.Errorf("%d of %d chunks stored", stored, len(r.chunks))
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
	}
	if _, ok := r.Find("io.k8s.api.x.v1.T99"); ok {
		t.Error("Find of a missing name succeeded")
	}
}

// TestOpenRefuses: a bundle whose index lies (bad magic, sizes and offsets beyond the
// file, unsorted names, a chunk inflating to more or less than it says, a wrong CRC) is an
// error, never a panic or an allocation of what the index claims.
func TestOpenRefuses(t *testing.T) {
	for _, uncompressed := range []bool{false, true} {
		t.Run(fmt.Sprint("uncompressed=", uncompressed), func(t *testing.T) { openRefuses(t, uncompressed) })
	}
}

func openRefuses(t *testing.T, uncompressed bool) {
	good := writeStored(t, map[string][]byte{"a.A": []byte(`{"type":"object"}`), "a.B": []byte(`{"type":"string"}` + "\n" + `{"":"B."}`)}, true, uncompressed)
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
		"manifest size":  func(b []byte) { putUint32(b[len(magic):], 1<<30) },
		"names size":     func(b []byte) { putUint32(b[manifestEnd:], 1<<31) },
		"names order":    func(b []byte) { i := bytes.Index(b, []byte("a.A\na.B\n")); copy(b[i:], "a.B\na.A\n") },
		"last byte":      func(b []byte) { b[len(b)-1] ^= 0xff },
		"first data":     func(b []byte) { b[len(b)-8] ^= 0x55 },
		"definition ptr": func(b []byte) { i := bytes.Index(b, []byte("a.A\na.B\n")) + 8 + 4; putUint32(b[i+4:], 1<<20) },
		// In an Uncompressed bundle the structures lie as they are; else this is one more
		// corrupted byte of deflated data.
		"stored data": func(b []byte) {
			if i := bytes.LastIndex(b, []byte(`{"type":"object"}`)); i > 0 {
				b[i+3] = 'T'
			} else {
				b[len(b)-3] ^= 0x10
			}
		},
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
	f.Add(write(f, map[string][]byte{"a.A": []byte(`{"type":"object"}`), "a.B": []byte(`{}` + "\n" + `{"":"x"}`)}, true))
	f.Add(writeStored(f, map[string][]byte{"a.A": []byte(`{"type":"object"}`), "a.B": []byte(`{}` + "\n" + `{"":"x"}`)}, true, true))
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
			_, _ = r.Fragments(i)
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
	data := writeStored(t, map[string][]byte{"a.A": []byte(`{}`)}, true, true)
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	want := Header{Format: FormatVersion, KubernetesVersion: "v1.99.0", Normalized: true}
	if h, err := DecodeHeader(r.Manifest); err != nil || h != want {
		t.Errorf("written: %+v, %v", h, err)
	}
	if h, err := DecodeHeader([]byte(`{"sha256":{"a":"b"},"normalized":true,"x":[1,{"y":2}],"kubernetesVersion":"v1.2.3","format":4}`)); err != nil || h != (Header{4, "v1.2.3", true}) {
		t.Errorf("reordered: %+v, %v", h, err)
	}
	if h, err := DecodeHeader([]byte(`{"format":3,"kubernetesVersion":"v1.15.0"}`)); err != nil || h != (Header{3, "v1.15.0", false}) {
		t.Errorf("without normalized: %+v, %v", h, err)
	}
	for _, bad := range []string{``, `[]`, `{"format":"4"}`, `{"normalized":1}`, `{"format":4,`, `{"x":}`} {
		if h, err := DecodeHeader([]byte(bad)); err == nil {
			t.Errorf("%s: %+v, no error", bad, h)
		}
	}
}
