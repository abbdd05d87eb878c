package fileio

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWriteAll: every file is staged before any is renamed; a failure at
// any file leaves every target as it was and no temporary file behind;
// StageKeep's unchanged files are not counted, nor touched.
func TestWriteAll(t *testing.T) {
	owned := func(line []byte) bool { return bytes.Equal(line, []byte("# ours")) }
	content := func(s string) func(io.Writer) error {
		return func(wr io.Writer) error { _, err := io.WriteString(wr, s); return err }
	}
	names := []string{"a.yaml", "sub/b.yaml", "c.yaml"}
	setup := func(t *testing.T) (string, *Writer) {
		root := t.TempDir()
		put(t, filepath.Join(root, "a.yaml"), "# ours\nold a\n")
		put(t, filepath.Join(root, "c.yaml"), "# ours\nc\n")
		w := NewWriter(WriterOptions{Root: root, Owned: owned})
		t.Cleanup(func() { w.Close() })
		return root, w
	}
	// state lists every file below root with its content.
	state := func(t *testing.T, root string) map[string]string {
		t.Helper()
		got := map[string]string{}
		for _, dir := range []string{root, filepath.Join(root, "sub")} {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.IsDir() {
					continue
				}
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				rel, _ := filepath.Rel(root, filepath.Join(dir, e.Name()))
				got[filepath.ToSlash(rel)] = string(b)
			}
		}
		return got
	}

	t.Run("all written", func(t *testing.T) {
		root, w := setup(t)
		c, _ := os.Stat(filepath.Join(root, "c.yaml"))
		var visible []map[string]string // what each stage call saw
		written, err := WriteAll(len(names), func(i int) (*Staged, error) {
			visible = append(visible, state(t, root))
			want := "# ours\nnew " + names[i] + "\n"
			if names[i] == "c.yaml" {
				want = "# ours\nc\n" // the bytes it holds
			}
			return w.StageKeep(filepath.Join(root, names[i]), content(want))
		})
		if err != nil || written != 2 {
			t.Fatalf("written %d, %v; want 2, nil", written, err)
		}
		for i, v := range visible {
			// Before the last stage, nothing is renamed yet: the targets
			// hold what they held (temporary files aside).
			if v["a.yaml"] != "# ours\nold a\n" || v["sub/b.yaml"] != "" {
				t.Errorf("stage %d saw a renamed file: %q", i, v)
			}
		}
		want := map[string]string{"a.yaml": "# ours\nnew a.yaml\n", "sub/b.yaml": "# ours\nnew sub/b.yaml\n", "c.yaml": "# ours\nc\n"}
		if got := state(t, root); !maps.Equal(got, want) {
			t.Errorf("files: %q, want %q", got, want)
		}
		if after, _ := os.Stat(filepath.Join(root, "c.yaml")); !os.SameFile(c, after) {
			t.Error("an unchanged file was replaced")
		}
	})

	// A failure at each file in turn: a refused target (not ours), an
	// error of the caller's own, or a write function failing mid-way.
	for at := range names {
		for _, how := range []string{"refused", "caller", "write"} {
			t.Run(how+" at "+names[at], func(t *testing.T) {
				root, w := setup(t)
				if how == "refused" {
					put(t, filepath.Join(root, names[at]), "hand-written\n")
				}
				before := state(t, root)
				boom := errors.New("boom")
				var asked []int
				written, err := WriteAll(len(names), func(i int) (*Staged, error) {
					asked = append(asked, i)
					name := filepath.Join(root, names[i])
					switch {
					case i == at && how == "caller":
						return nil, boom
					case i == at && how == "write":
						return w.Stage(name, func(wr io.Writer) error {
							io.WriteString(wr, "# ours\nhalf")
							return boom
						})
					}
					return w.Stage(name, content("# ours\nnew\n"))
				})
				switch {
				case err == nil || written != 0:
					t.Fatalf("written %d, %v; want an error", written, err)
				case how == "refused" && !errors.Is(err, ErrNotOwned), how != "refused" && !errors.Is(err, boom):
					t.Errorf("error %v", err)
				}
				if want := []int{0, 1, 2}[:at+1]; !slices.Equal(asked, want) {
					t.Errorf("stage asked for %v, want %v", asked, want)
				}
				if got := state(t, root); !maps.Equal(got, before) {
					t.Errorf("files after the failure: %q, want %q (no temporary file either)", got, before)
				}
			})
		}
	}

	t.Run("files staged before", func(t *testing.T) {
		root, w := setup(t)
		var early []*Staged
		for _, n := range names {
			s, err := w.Stage(filepath.Join(root, n), content("# ours\nearly\n"))
			if err != nil {
				t.Fatal(err)
			}
			early = append(early, s)
		}
		written, err := WriteAll(len(early), func(i int) (*Staged, error) { return early[i], nil })
		if err != nil || written != 3 {
			t.Fatalf("written %d, %v", written, err)
		}
		for _, n := range names {
			if b, _ := os.ReadFile(filepath.Join(root, n)); string(b) != "# ours\nearly\n" {
				t.Errorf("%s: %q", n, b)
			}
		}
	})

	t.Run("none", func(t *testing.T) {
		if written, err := WriteAll(0, nil); written != 0 || err != nil {
			t.Errorf("written %d, %v", written, err)
		}
	})
}
