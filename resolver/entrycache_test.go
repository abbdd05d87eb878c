package resolver

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestEntryCache: the bundle entries a Compiler's render cache keeps, by
// indentation, give the text rendering each in place gives, for documents
// that refer to the same entries at other depths, rendered in any order,
// appended and streamed (an entry is kept on its second use, from the
// buffer when appending, from an emitter of its own when streaming).
func TestEntryCache(t *testing.T) {
	c, err := New(Options{KubeVersion: "1.30", WorkDir: t.TempDir(), RemoveDescriptions: true})
	if err != nil {
		t.Fatal(err)
	}
	shallow := everyDefinition([]string{"io.k8s.api.core.v1.PodTemplateSpec", "io.k8s.api.core.v1.ServiceSpec"}, "")
	deep := everyDefinition([]string{"io.k8s.api.apps.v1.DeploymentSpec"}, "          nested: {type: object, properties: {pod: {$ref: io.k8s.api.core.v1.PodTemplateSpec}}}\n")
	var results []*Result
	for _, src := range []string{shallow, deep} {
		res, err := c.Compile("thing.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	// The reference: a cache keeping no entries (what the emitter did before).
	plain := func(r *Result) []byte {
		cache := &renderCache{shared: c.render.shared, text: map[unsafe.Pointer][]byte{}}
		out, err := appendDocuments(nil, r.objects(), cache)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := [][]byte{plain(results[0]), plain(results[1])}
	var buf []byte
	for round, i := range []int{1, 0, 1, 0} {
		buf, err = results[i].AppendYAML(buf[:0])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, want[i]) {
			t.Fatalf("round %d, document %d: the cached entries give other text", round, i)
		}
		var streamed bytes.Buffer
		if err := results[i].WriteYAML(&streamed); err != nil || !bytes.Equal(streamed.Bytes(), want[i]) {
			t.Fatalf("round %d, document %d: streamed text differs (%v)", round, i, err)
		}
	}
	kept := 0
	for _, known := range c.render.entries {
		if known.text != nil {
			kept++
		}
	}
	if kept == 0 {
		t.Error("no entry was cached")
	}
}

// TestEntryCacheStreaming: streamed only, an entry is written in place on
// its first two uses and kept from its third, rendered apart into a buffer
// sized by what its first use wrote; every use gives the same text.
func TestEntryCacheStreaming(t *testing.T) {
	c, err := New(Options{KubeVersion: "1.30", WorkDir: t.TempDir(), RemoveDescriptions: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compile("thing.yaml", []byte(everyDefinition([]string{"io.k8s.api.core.v1.PodTemplateSpec"}, "")))
	if err != nil {
		t.Fatal(err)
	}
	want, err := appendDocuments(nil, res.objects(), &renderCache{shared: c.render.shared, text: map[unsafe.Pointer][]byte{}})
	if err != nil {
		t.Fatal(err)
	}
	for use := 1; use <= 4; use++ {
		var streamed bytes.Buffer
		if err := res.WriteYAML(&streamed); err != nil || !bytes.Equal(streamed.Bytes(), want) {
			t.Fatalf("use %d: streamed text differs (%v)", use, err)
		}
		kept := 0
		for _, known := range c.render.entries {
			if known.text != nil {
				kept++
				if len(known.text) != known.size {
					t.Errorf("use %d: a kept entry of %d bytes, its first use wrote %d", use, len(known.text), known.size)
				}
			}
		}
		if kept > 0 != (use >= 3) {
			t.Errorf("use %d: %d entries kept", use, kept)
		}
	}
}
