// Package golden holds the -update flag shared by every golden-file test:
// `go test ./... -update` rewrites the files under testdata/ instead of
// comparing against them. A test package that uses golden files imports
// this package; the flag is then defined for that package's test binary.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/ instead of comparing")

// Updating reports whether -update was given.
func Updating() bool { return *update }

// Check compares got with the file at path; with -update it writes the
// file instead. A missing file is a failure unless updating. remove, when
// got is nil, means the file must not exist (and -update deletes it).
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if got == nil {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if got == nil {
		if err == nil {
			t.Errorf("%s exists but nothing was produced; regenerate with: go test ./... -update (and review the diff)", path)
		}
		return
	}
	if err != nil {
		t.Fatalf("reading golden file: %v; create it with: go test ./... -update (and review the diff)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (-want +got):\n%s\nIf the change is intended, regenerate with: go test ./... -update, and review the diff like code.", path, cmp.Diff(string(want), string(got)))
	}
}
