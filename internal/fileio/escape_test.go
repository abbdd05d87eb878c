package fileio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestIsEscapeRecognisesRootRefusal pins isEscape to the refusal the
// running Go's os.Root actually returns, provoked for real: a symlink out
// of the root (opened, stat'ed, and walked through by MkdirAll and
// OpenRoot, the writer's two uses) and a plain "..". The refusal is an
// unexported error matched by its text, so a Go release that rewords or
// rewraps it fails here rather than turning every escape into an
// unexplained I/O error (or, worse, into a non-escape the reader retries
// elsewhere).
func TestIsEscapeRecognisesRootRefusal(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	put(t, filepath.Join(outside, "x.txt"), "outside")
	put(t, filepath.Join(root, "in.txt"), "inside")
	if err := os.Symlink("../outside", filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, tc := range []struct {
		name string
		op   func() error
	}{
		{"Open through a link", func() error { f, err := r.Open("out/x.txt"); closeIf(f); return err }},
		{"OpenFile through a link", func() error { f, err := r.OpenFile("out/x.txt", os.O_RDONLY, 0); closeIf(f); return err }},
		{"Stat through a link", func() error { _, err := r.Stat("out/x.txt"); return err }},
		{"Open of dot-dot", func() error { f, err := r.Open("../outside/x.txt"); closeIf(f); return err }},
		{"MkdirAll through a link", func() error { return r.MkdirAll("out/new/deeper", 0o755) }},
		{"OpenRoot through a link", func() error {
			d, err := r.OpenRoot("out")
			if err == nil {
				d.Close()
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op()
			if err == nil {
				t.Fatal("os.Root allowed an escape")
			}
			if !isEscape(err) {
				t.Errorf("isEscape(%q) = false: os.Root's refusal changed; update isEscape (reader.go)", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("MkdirAll through the link created outside the root: %v", err)
	}
	// And not everything is an escape: a missing file inside is not.
	if _, err := r.Open("missing.txt"); err == nil || isEscape(err) {
		t.Errorf("a missing file: isEscape(%v) = true", err)
	}
	if err := r.MkdirAll("in.txt/sub", 0o755); err == nil || isEscape(err) {
		t.Errorf("MkdirAll below a regular file: isEscape(%v) = true", err)
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}
