package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestBundlesRefragmented: the embedded bundles are what refragment makes
// of them, byte for byte: their fragments are those the resolver writes
// today, the entries with descriptions in the newest describedMinors only.
// A change of resolver.PrebuildFragments fails here until `make
// schemas-refragment` has run.
func TestBundlesRefragmented(t *testing.T) {
	const data = "../../schemas/data"
	entries, err := os.ReadDir(data)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		src, err := os.ReadFile(filepath.Join(data, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := &generator{outDir: dir, log: io.Discard}
	if err := g.refragment(); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		want, _ := os.ReadFile(filepath.Join(data, e.Name()))
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: not what refragment makes of it; run make schemas-refragment", e.Name())
		}
	}
}
