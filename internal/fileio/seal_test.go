package fileio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sealHeader(seal string) string { return "# made; sha256:" + seal + ".\n" }

func sealOf(line []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(line, []byte("# made; sha256:"))
	if !ok {
		return "", false
	}
	rest, ok = bytes.CutSuffix(rest, []byte("."))
	return string(rest), ok
}

// writeBody writes head, then a body in pieces.
func writeBody(w io.Writer, head string) error {
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	for i := range 3 {
		if _, err := io.WriteString(w, strings.Repeat(string(rune('a'+i)), 70000)+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// TestWriteSealed: the one-pass seal (patched into a staged file) and the
// two-pass one (a stream) write the same bytes, which Verify accepts,
// also with CRLF line ends and a byte order mark; an edit fails it.
func TestWriteSealed(t *testing.T) {
	var stream bytes.Buffer
	if err := WriteSealed(&stream, sealHeader, writeBody); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w := NewWriter(WriterOptions{Root: dir})
	defer w.Close()
	if _, err := w.WriteFile(filepath.Join(dir, "out"), func(wr io.Writer) error {
		if _, ok := wr.(Patcher); !ok {
			t.Error("a new file is not written through a Patcher")
		}
		return WriteSealed(wr, sealHeader, writeBody)
	}); err != nil {
		t.Fatal(err)
	}
	staged, err := os.ReadFile(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(staged, stream.Bytes()) {
		t.Fatal("the patched and the streamed seal differ")
	}
	data := stream.Bytes()
	for name, ok := range map[string]bool{
		string(data): true,
		strings.ReplaceAll(string(data), "\n", "\r\n"):          true,
		"\uFEFF" + string(data):                                 true,
		string(data) + "x":                                      false,
		strings.Replace(string(data), "a", "b", 1):              false,
		strings.Replace(string(data), "sha256:", "sha256:0", 1): false,
		"": false,
	} {
		if got := Verify([]byte(name), sealOf); got != ok {
			t.Errorf("Verify(%.40q...) = %v, want %v", name, got, ok)
		}
	}
}

// TestAside: a file moved aside is back after Abort, and gone after the
// commit; moving a file that is not there is nothing.
func TestAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "old.yaml")
	os.WriteFile(path, []byte("# ours\nx\n"), 0o644)
	w := NewWriter(WriterOptions{Root: dir, Owned: func(line []byte) bool { return string(line) == "# ours" }})
	defer w.Close()
	s, err := w.Aside(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); err == nil {
		t.Fatal("still in place after Aside")
	}
	s.Abort()
	if b, _ := os.ReadFile(path); string(b) != "# ours\nx\n" {
		t.Fatalf("not put back: %q", b)
	}
	if s, err = w.Aside(path); err != nil {
		t.Fatal(err)
	}
	if err := CommitAll([]*Staged{s}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
	if s, err := w.Aside(path); s != nil || err != nil {
		t.Fatalf("Aside of nothing: %v, %v", s, err)
	}
	os.WriteFile(path, []byte("# theirs\n"), 0o644)
	if _, err := w.Aside(path); err == nil {
		t.Fatal("moved aside a file Owned refuses")
	}
}
