// Package atomicfile writes files so that readers never see a half-written
// file and a failure leaves the old file as it was.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write writes data to name through a temporary file in the same
// directory and a rename. Missing parent directories are created. An
// existing file keeps its mode; a new one gets 0644.
func Write(name string, data []byte) error {
	return WriteFunc(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is Write for content produced by write, which streams into the
// temporary file; an error from write leaves name as it was.
func WriteFunc(name string, write func(io.Writer) error) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(name); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
