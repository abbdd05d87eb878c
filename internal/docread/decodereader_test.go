package docread

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// TestDecodeReaderReadsAsDecodeEach: on every YAML and JSON file of the
// repository's testdata (and streams made of them), DecodeReader yields
// the documents DecodeDocuments returns, with the same position for every
// value, and fails where it fails, at the same place; read one byte at a
// time too, so no read boundary matters.
func TestDecodeReaderReadsAsDecodeEach(t *testing.T) {
	var names []string
	for _, root := range []string{"../../testdata", "../../resolver/testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch filepath.Ext(p) {
			case ".yaml", ".yml", ".json":
				names = append(names, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(names) < 100 {
		t.Fatalf("only %d files found under testdata", len(names))
	}
	var all [][]byte
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		compareDecodeReader(t, name, src)
		if _, err := DecodeDocuments(name, src, 0); err == nil && !bytes.HasPrefix(bytes.TrimSpace(src), []byte("{")) && !bytes.HasPrefix(bytes.TrimSpace(src), []byte("[")) {
			all = append(all, src)
		}
	}
	// Streams of several files, each opened by a marker: lines counted
	// across parts.
	compareDecodeReader(t, "joined.yaml", bytes.Join(all[:min(len(all), 60)], []byte("\n---\n")))
	for name, src := range map[string]string{
		"markers.yaml":      "# head\n---\na: 1\n--- \nb: [2]\n...\n---\n\n---\n# only a comment\n--- {c: 3}\n",
		"late-error.yaml":   "a: 1\n---\nb: 2\n---\nc: [\n",
		"late-dup.yaml":     "a: 1\n---\nb: 2\nb: 3\n",
		"late-number.yaml":  "a: 1\n---\nb: 1e999999\n",
		"late-nul.yaml":     "a: 1\n---\nb: \"x\x00\"\n",
		"json-stream.json":  "\n\n  {\"a\": 1}\n{\"b\": [1,\n2]}\n",
		"json-then-yaml":    "{\"a\": 1}\n---\nb: 2\n",
		"no-newline.yaml":   "a: 1\n---\nb: 2",
		"crlf.yaml":         "a: 1\r\n---\r\nb: 2\r\n",
		"block-scalar.yaml": "a: |\n  ---\n  x\n---\nb: 1\n",
		"bom.yaml":          "\xef\xbb\xbfa: 1\n---\nb: 2\n",
		"empty.yaml":        "",
		"blank.yaml":        "\n\n   \n",
		"alias.yaml":        "a: &x [1, 2]\nb: *x\n---\nc: *y\n",
	} {
		compareDecodeReader(t, name, []byte(src))
	}
}

// withoutPlace is the first line of an error without its file:line:col.
func withoutPlace(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	if i := strings.Index(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// errorLine is the line of the first *Error in err.
func errorLine(err error) int {
	var list ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return list[0].Pos.Line
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Pos.Line
	}
	return 0
}

func compareDecodeReader(t *testing.T, name string, src []byte) {
	t.Helper()
	want, wantErr := DecodeDocuments(name, src, 0)
	for _, r := range []io.Reader{bytes.NewReader(src), iotest.OneByteReader(bytes.NewReader(src))} {
		var got []Decoded
		var gotErr error
		for d, err := range DecodeReader(name, r, 0) {
			if err != nil {
				gotErr = err
				break
			}
			got = append(got, d)
		}
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: DecodeDocuments error %v, DecodeReader error %v", name, wantErr, gotErr)
			return
		}
		if wantErr != nil {
			// DecodeDocuments lists every unreadable number of the file;
			// DecodeReader stops at the document that holds the first.
			// Where yaml.v3 gives no line, the part's first line is
			// nearer than the file's.
			first := strings.Split(wantErr.Error(), "\n")[0]
			if withoutPlace(gotErr.Error()) != withoutPlace(first) || errorLine(gotErr) < errorLine(wantErr) {
				t.Errorf("%s: DecodeReader error\n%v\nwant what DecodeDocuments says first:\n%v", name, gotErr, first)
			}
			continue
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d documents, want %d", name, len(got), len(want))
			return
		}
		for i := range want {
			if !reflect.DeepEqual(got[i].Value, want[i].Value) {
				t.Errorf("%s: document %d differs", name, i+1)
			}
			if got[i].d.Index != want[i].d.Index {
				t.Errorf("%s: document %d: index %d, want %d", name, i+1, got[i].d.Index, want[i].d.Index)
			}
			if !reflect.DeepEqual(got[i].d.Pos, want[i].d.Pos) {
				for k, p := range want[i].d.Pos {
					if got[i].d.Pos[k] != p {
						t.Errorf("%s: document %d: %q at %v, want %v", name, i+1, k, got[i].d.Pos[k], p)
						break
					}
				}
				t.Errorf("%s: document %d: positions differ (%d and %d of them)", name, i+1, len(got[i].d.Pos), len(want[i].d.Pos))
			}
		}
	}
}
