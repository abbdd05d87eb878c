package resolver

import (
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// realEntries returns the stored entries of a few definitions of the
// newest bundle.
func realEntries(t testing.TB) [][]byte {
	b, err := schemas.Load(schemas.Latest())
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, name := range []string{"io.k8s.api.core.v1.PodSpec", "io.k8s.api.core.v1.Container", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"} {
		data, err := b.Fragments(name)
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %d bytes of entries, %v", name, len(data), err)
		}
		out = append(out, data)
	}
	return out
}

// TestParseEntriesRefuses: stored entries parse, both sections (without
// and with descriptions), with every segment decodable; cut anywhere, or
// with a byte more, they are an error when read as one of the sections or
// the other, never a panic.
func TestParseEntriesRefuses(t *testing.T) {
	for _, data := range realEntries(t) {
		for _, described := range []bool{false, true} {
			d, err := parseEntries(data, described)
			if err != nil || d == nil || len(d.entries) == 0 {
				t.Fatalf("%d bytes, described %v: %v", len(data), described, err)
			}
			for _, e := range d.entries {
				n := 0
				if err := e.each(func(fragSeg) error { n++; return nil }); err != nil || n != e.n {
					t.Errorf("%s: %d of %d segments, %v", e.key, n, e.n, err)
				}
			}
		}
		either := func(data []byte) bool {
			_, err1 := parseEntries(data, false)
			_, err2 := parseEntries(data, true)
			return err1 == nil && err2 == nil
		}
		for i := 1; i < len(data); i++ {
			if either(data[:i]) {
				t.Fatalf("cut to %d of %d bytes: accepted", i, len(data))
			}
		}
		if either(append(append([]byte(nil), data...), 0)) {
			t.Error("a byte more: accepted")
		}
	}
}

func FuzzParseEntries(f *testing.F) {
	for _, data := range realEntries(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, described := range []bool{false, true} {
			d, err := parseEntries(data, described)
			if err != nil || d == nil {
				continue
			}
			for _, e := range d.entries {
				if err := e.each(func(fragSeg) error { return nil }); err != nil {
					t.Fatalf("parsed, but %s does not decode: %v", e.key, err)
				}
			}
		}
	})
}
