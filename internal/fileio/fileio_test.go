package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func put(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReader(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	put(t, filepath.Join(root, "a/ten.txt"), "0123456789")
	put(t, filepath.Join(root, "eleven.txt"), "0123456789X")
	put(t, filepath.Join(outside, "x.txt"), "outside")
	put(t, filepath.Join(root, "b/c/ten.txt"), "0123456789")
	for _, l := range [][2]string{
		{"a/ten.txt", "root/in.txt"},         // a link that stays inside
		{"../outside/x.txt", "root/out.txt"}, // a link that leaves
		{"../outside", "root/dir"},           // a directory link that leaves
		{"missing.txt", "root/dangling.txt"}, // a link to nothing
		// Below the root, where the reader goes through the directory's
		// own handle: links out of the directory, in the root or not.
		{"../a/ten.txt", "root/b/up.txt"},
		{"../../outside/x.txt", "root/b/out.txt"},
		{"../../outside", "root/b/dir"},
		{"missing.txt", "root/b/dangling.txt"},
	} {
		if err := os.Symlink(l[0], filepath.Join(base, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(root, false, 10)
	defer r.Close()
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{name: "a/ten.txt", want: "0123456789"},
		{name: "in.txt", want: "0123456789"},
		{name: "eleven.txt", err: ErrTooLarge},
		{name: "out.txt", err: ErrOutsideRoot},
		{name: "dir/x.txt", err: ErrOutsideRoot},
		{name: "../outside/x.txt", err: ErrOutsideRoot},
		{name: "dangling.txt", err: ErrDanglingLink},
		{name: "nothing.txt", err: fs.ErrNotExist},
		{name: "a", err: ErrNotRegular},
		{name: "b/up.txt", want: "0123456789"},
		{name: "b/c/ten.txt", want: "0123456789"},
		{name: "b/c/../up.txt", want: "0123456789"},
		{name: "b/out.txt", err: ErrOutsideRoot},
		{name: "b/dir/x.txt", err: ErrOutsideRoot},
		{name: "b/dangling.txt", err: ErrDanglingLink},
		{name: "b/nothing.txt", err: fs.ErrNotExist},
		{name: "b/c", err: ErrNotRegular},
		{name: "b/up.txt", want: "0123456789"}, // again, through the kept handle
		{name: "b/out.txt", err: ErrOutsideRoot},
	} {
		got, err := r.ReadFile(filepath.Join(root, tc.name))
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: error %v, want %v", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %q, %v", tc.name, got, err)
		}
	}
	if _, err := r.ReadFile(filepath.Join(root, "a")); err == nil || !strings.HasSuffix(err.Error(), "a is a directory, not a regular file") {
		t.Errorf("directory: %v", err)
	}
	if head, err := r.ReadHead(filepath.Join(root, "eleven.txt"), 4); err != nil || string(head) != "0123" {
		t.Errorf("ReadHead: %q, %v", head, err)
	}
	if _, err := r.ReadFrom("<stdin>", strings.NewReader("0123456789X")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFrom over the limit: %v", err)
	}
	// AllowOutside relaxes confinement, never type and size.
	all := NewReader(root, true, 10)
	defer all.Close()
	if got, err := all.ReadFile(filepath.Join(root, "out.txt")); err != nil || string(got) != "outside" {
		t.Errorf("allowed outside: %q, %v", got, err)
	}
	if _, err := all.ReadFile(filepath.Join(root, "eleven.txt")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("allowed outside, too large: %v", err)
	}
	if _, err := all.ReadFile("/dev/null"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("allowed outside, /dev/null: %v", err)
	}
}

// TestAppendFile: a read into a reused buffer appends in place when it has
// room, applies the limit to the file (not to what dst holds), and leaves
// dst as it was on a refusal.
func TestAppendFile(t *testing.T) {
	root := t.TempDir()
	put(t, filepath.Join(root, "ten.txt"), "0123456789")
	put(t, filepath.Join(root, "eleven.txt"), "0123456789X")
	r := NewReader(root, false, 10)
	defer r.Close()
	buf := make([]byte, 0, 64)
	buf = append(buf, "prefix:"...)
	got, err := r.AppendFile(buf, filepath.Join(root, "ten.txt"))
	if err != nil || string(got) != "prefix:0123456789" || &got[0] != &buf[0] {
		t.Errorf("AppendFile = %q, %v (in place: %t)", got, err, err == nil && &got[0] == &buf[0])
	}
	if got, err := r.AppendFile(buf, filepath.Join(root, "eleven.txt")); !errors.Is(err, ErrTooLarge) || string(got) != "prefix:" {
		t.Errorf("over the limit: %q, %v", got, err)
	}
	if got, err := r.AppendFile(buf, root); err == nil || string(got) != "prefix:" {
		t.Errorf("a directory: %q, %v", got, err)
	}
	if got, err := r.AppendFile(nil, filepath.Join(root, "ten.txt")); err != nil || string(got) != "0123456789" {
		t.Errorf("into nil: %q, %v", got, err)
	}
}

func TestWriter(t *testing.T) {
	root := t.TempDir()
	owned := func(line []byte) bool { return bytes.Equal(line, []byte("# ours")) }
	w := NewWriter(WriterOptions{Root: root, Owned: owned, Inputs: []string{filepath.Join(root, "in.yaml")}})
	defer w.Close()
	content := func(s string) func(io.Writer) error {
		return func(wr io.Writer) error { _, err := io.WriteString(wr, s); return err }
	}
	out := filepath.Join(root, "sub/dir/out.yaml")
	if _, err := w.WriteFile(out, content("# ours\nv1\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file: %v, %v", fi, err)
	}
	if err := os.Chmod(out, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteFile(out, content("# ours\nv2\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
	// The same bytes again: nothing is written (same inode, no temporary
	// file). Any other output, shorter, longer or differing anywhere,
	// replaces the file, whose bytes are then exactly the new output.
	before, _ := os.Stat(out)
	changed, err := w.WriteFile(out, content("# ours\nv2\n"))
	if err != nil || changed {
		t.Fatalf("same bytes: changed %v, %v", changed, err)
	}
	if after, _ := os.Stat(out); !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("same bytes: the file was replaced")
	}
	long := "# ours\n" + strings.Repeat("0123456789abcdef", 10<<10) + "\n" // over the compare buffer
	for i, next := range []string{"# ours\nv2\nmore\n", "# ours\nv", "# ours\nv3\n", long, long[:len(long)-1] + "x", long, long, long, "# ours\nv2\n"} {
		before, _ := os.Stat(out)
		changed, err := w.WriteFile(out, func(wr io.Writer) error {
			// In pieces, as the emitter writes; every other time in
			// pieces larger than the buffer the comparison reads into.
			piece := 5000
			if i%2 == 1 {
				piece = 100000
			}
			for rest := next; rest != ""; {
				n := min(len(rest), piece)
				if _, err := io.WriteString(wr, rest[:n]); err != nil {
					return err
				}
				rest = rest[n:]
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(out)
		after, _ := os.Stat(out)
		if string(got) != next || changed == os.SameFile(before, after) || after.Mode().Perm() != 0o600 {
			t.Errorf("after writing %d bytes: %d bytes on disk, changed %v, replaced %v, mode %v", len(next), len(got), changed, !os.SameFile(before, after), after.Mode())
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
			t.Errorf("%d entries left", len(entries))
		}
	}
	if changed, err := w.WriteFile(out, content("# ours\nv2\n")); err != nil || changed {
		t.Errorf("same bytes again: changed %v, %v", changed, err)
	}
	// A staged file is invisible until Commit; Abort leaves the target.
	s, err := w.Stage(out, content("# ours\nv3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != "# ours\nv2\n" {
		t.Errorf("visible before Commit: %q", got)
	}
	s.Abort()
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("Abort left %d entries", len(entries))
	}
	// Not ours: refused; Force replaces, but never removes.
	put(t, filepath.Join(root, "mine.yaml"), "hand-written\n")
	if _, err := w.WriteFile(filepath.Join(root, "mine.yaml"), content("x")); !errors.Is(err, ErrNotOwned) {
		t.Errorf("over a file not ours: %v", err)
	}
	if err := w.Remove(filepath.Join(root, "mine.yaml")); !errors.Is(err, ErrNotOwned) {
		t.Errorf("removing a file not ours: %v", err)
	}
	forced := NewWriter(WriterOptions{Root: root, Owned: owned, Force: true})
	defer forced.Close()
	if err := forced.Remove(filepath.Join(root, "mine.yaml")); !errors.Is(err, ErrNotOwned) {
		t.Errorf("Force removed a file not ours: %v", err)
	}
	if _, err := forced.WriteFile(filepath.Join(root, "mine.yaml"), content("# ours\n")); err != nil {
		t.Errorf("Force: %v", err)
	}
	// An input is never overwritten, whatever its header.
	put(t, filepath.Join(root, "in.yaml"), "# ours\n")
	w2 := NewWriter(WriterOptions{Root: root, Owned: owned, Force: true, Inputs: []string{filepath.Join(root, "in.yaml")}})
	defer w2.Close()
	if _, err := w2.WriteFile(filepath.Join(root, "in.yaml"), content("# ours\n")); !errors.Is(err, ErrIsInput) {
		t.Errorf("over an input: %v", err)
	}
	// Whatever name it is reached by (a hard link), among many inputs;
	// a file that is none of them is written.
	if err := os.Link(filepath.Join(root, "in.yaml"), filepath.Join(root, "alias.yaml")); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(root, "other.yaml"), "# ours\n")
	var many []string
	for i := range 200 {
		many = append(many, filepath.Join(root, fmt.Sprintf("missing%d.yaml", i)))
	}
	many = append(many, filepath.Join(root, "in.yaml"))
	w3 := NewWriter(WriterOptions{Root: root, Owned: owned, Inputs: many})
	defer w3.Close()
	if _, err := w3.WriteFile(filepath.Join(root, "alias.yaml"), content("# ours\n")); !errors.Is(err, ErrIsInput) {
		t.Errorf("over a hard link to an input: %v", err)
	}
	if _, err := w3.WriteFile(filepath.Join(root, "other.yaml"), content("# ours, new\n")); err != nil {
		t.Errorf("over a file that is no input: %v", err)
	}
	// Remove takes ours, and a missing file is no error.
	if err := w.Remove(out); err != nil {
		t.Errorf("Remove: %v", err)
	}
	if err := w.Remove(out); err != nil {
		t.Errorf("Remove again: %v", err)
	}
	// Outside the root: refused unless AllowOutside.
	other := filepath.Join(t.TempDir(), "x.yaml")
	if _, err := w.WriteFile(other, content("# ours\n")); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("outside: %v", err)
	}
	free := NewWriter(WriterOptions{Root: root, Owned: owned, AllowOutside: true})
	defer free.Close()
	if _, err := free.WriteFile(other, content("# ours\n")); err != nil {
		t.Errorf("outside, allowed: %v", err)
	}
}

// TestRootsStayInTheirWorkTree: a Reader's or Writer's root that lies in a
// git work tree is opened through it (openRoot): a root reached through a
// symbolic link committed there, to a plain directory or to another
// checkout (a work tree of its own), is refused for reading and writing
// alike; a link that stays in the work tree, and --allow-outside-root,
// open it.
func TestRootsStayInTheirWorkTree(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	put(t, filepath.Join(repo, ".git/HEAD"), "ref: refs/heads/main\n")
	put(t, filepath.Join(repo, "api/t.yaml"), "inside")
	put(t, filepath.Join(base, "plain/t.yaml"), "outside")
	put(t, filepath.Join(base, "checkout/.git/HEAD"), "ref: refs/heads/main\n")
	put(t, filepath.Join(base, "checkout/t.yaml"), "outside")
	for link, target := range map[string]string{"in": "api", "plain": "../plain", "checkout": "../checkout"} {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		dir          string
		allowOutside bool
		want         string // "" for refused
	}{
		{dir: "in", want: "inside"},
		{dir: "plain"},
		{dir: "checkout"},
		{dir: "plain", allowOutside: true, want: "outside"},
		{dir: "checkout", allowOutside: true, want: "outside"},
	} {
		t.Run(fmt.Sprintf("%s allowOutside=%v", tc.dir, tc.allowOutside), func(t *testing.T) {
			root := filepath.Join(repo, tc.dir)
			r := NewReader(root, tc.allowOutside, 0)
			defer r.Close()
			got, err := r.ReadFile(filepath.Join(root, "t.yaml"))
			w := NewWriter(WriterOptions{Root: root, AllowOutside: tc.allowOutside})
			defer w.Close()
			_, werr := w.WriteFile(filepath.Join(root, "new.yaml"), func(out io.Writer) error { _, err := out.Write([]byte("x")); return err })
			if tc.want == "" {
				for _, err := range []error{err, werr, r.Open()} {
					if !errors.Is(err, ErrOutsideRoot) || !strings.Contains(err.Error(), "leads outside the git work tree "+repo) {
						t.Fatalf("want a refusal naming the work tree, got %v", err)
					}
				}
				if _, err := os.Lstat(filepath.Join(root, "new.yaml")); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("written outside the work tree: %v", err)
				}
				return
			}
			if err != nil || string(got) != tc.want || werr != nil {
				t.Fatalf("got %q, %v; write: %v", got, err, werr)
			}
		})
	}
}

// TestOpenExplicitReadsAsReadExplicit: the readers OpenExplicit and
// OpenListed return give what ReadExplicit and ReadListed read, and fail
// where they fail (confinement and type on opening, the size limit while
// reading), with the same message.
func TestOpenExplicitReadsAsReadExplicit(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	put(t, filepath.Join(root, "a/ten.yaml"), "0123456789")
	put(t, filepath.Join(root, "eleven.yaml"), "0123456789X")
	put(t, filepath.Join(outside, "x.yaml"), "outside")
	put(t, filepath.Join(outside, "big.yaml"), "0123456789X")
	if err := os.Symlink("../outside/x.yaml", filepath.Join(root, "out.yaml")); err != nil {
		t.Fatal(err)
	}
	r := NewReader(root, false, 10)
	defer r.Close()
	readAll := func(open func(string) (io.ReadCloser, error), name string) ([]byte, error) {
		f, err := open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	for _, name := range []string{"a/ten.yaml", "eleven.yaml", "out.yaml", "a", "missing.yaml", "../outside/x.yaml", "../outside/big.yaml", "/dev/null"} {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, name)
		}
		want, wantErr := r.ReadExplicit(p)
		got, err := readAll(r.OpenExplicit, p)
		if fmt.Sprint(wantErr) != fmt.Sprint(err) || !bytes.Equal(got, want) {
			t.Errorf("%s: OpenExplicit read %q, %v; ReadExplicit %q, %v", name, got, err, want, wantErr)
		}
	}
	_, _, wantErr := r.ReadListed(root)
	if !errors.Is(wantErr, ErrTooLarge) {
		t.Fatalf("ReadListed: %v, want the eleven-byte file too large", wantErr)
	}
	listed, err := ListNames(root)
	if err != nil || len(listed) != 2 {
		t.Fatalf("ListNames = %q, %v", listed, err)
	}
	for _, n := range listed {
		want, wantErr := r.ReadExplicit(n)
		got, err := readAll(r.OpenListed, n)
		if fmt.Sprint(wantErr) != fmt.Sprint(err) || !bytes.Equal(got, want) {
			t.Errorf("%s: OpenListed read %q, %v; want %q, %v", n, got, err, want, wantErr)
		}
	}
}
