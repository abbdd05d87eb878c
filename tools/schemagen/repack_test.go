package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestBundlesRepacked: the embedded bundles and pool are, byte for byte,
// what the generator writes (bundlefmt.Write, then BuildPool) for the
// definitions they hold, put back together as published: a change of the
// format or of the split fails here until `make schemas-repack` has run.
func TestBundlesRepacked(t *testing.T) {
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
	if err := g.repack(); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		want, _ := os.ReadFile(filepath.Join(data, e.Name()))
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: not what the generator writes for the definitions it holds; run make schemas-repack", e.Name())
		}
	}
}
