package fileio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// WriterOptions configure a Writer.
type WriterOptions struct {
	// Root is the directory outputs may not leave (after resolving
	// symlinks) unless AllowOutside.
	Root         string
	AllowOutside bool
	// Owned reports whether an existing file, whose first line (without
	// its newline) is given, may be replaced or removed. nil accepts none.
	Owned func(firstLine []byte) bool
	// Verify, when set, must also accept the whole content of a file
	// Owned accepts (its seal: see Verify) before it is replaced or
	// removed; a file that fails it is replaced only as Replaces or Force
	// allow, and removed only with Force.
	Verify func(content []byte) bool
	// Replaces reports whether an existing file Owned refuses may still
	// be replaced (never removed): the caller's rule, e.g. "a
	// CustomResourceDefinition of the name being written" (the Python
	// tool's outputs). abs is the file's path, old its content. nil
	// accepts none.
	Replaces func(abs string, old *io.SectionReader) bool
	// Force lets a file Owned refuses be replaced (never removed), and a
	// file Owned accepts and Verify refuses be replaced or removed.
	Force bool
	// Inputs are the files the run has read; none of them is ever
	// replaced, whatever name it is reached by.
	Inputs []string
}

// Writer writes and removes output files as the package doc describes.
// Stage is safe for concurrent use (build stages its files on every core);
// the other methods are not.
type Writer struct {
	opts     WriterOptions
	inputs   []fs.FileInfo             // the inputs without a device and inode (see input)
	inputIDs map[[2]uint64]fs.FileInfo // the others, by device and inode

	// shownRoot, when set, names files in messages instead of Root (a
	// writer for one explicit path outside the caller's root).
	shownRoot string

	mu      sync.Mutex // guards what follows
	root    *os.Root
	dirs    map[string]*os.Root // output directory -> its handle
	cleaned map[*os.Root]bool   // directories rid of leftovers
}

// NewWriter returns a Writer for opts. Inputs that do not exist are
// ignored.
func NewWriter(opts WriterOptions) *Writer {
	opts.Root = absClean(opts.Root)
	w := &Writer{opts: opts, dirs: map[string]*os.Root{}, cleaned: map[*os.Root]bool{}}
	for _, in := range opts.Inputs {
		fi, err := os.Stat(in)
		if err != nil {
			continue
		}
		if id, ok := fileID(fi); ok {
			if w.inputIDs == nil {
				w.inputIDs = map[[2]uint64]fs.FileInfo{}
			}
			w.inputIDs[id] = fi
		} else {
			w.inputs = append(w.inputs, fi)
		}
	}
	return w
}

// input returns the input of the run that fi is, if any: looked up by
// device and inode where the system has them (a pass over every input for
// every replaced file made 1,000 stale outputs against 1,000 inputs a
// million comparisons), else compared by os.SameFile.
func (w *Writer) input(fi fs.FileInfo) fs.FileInfo {
	if id, ok := fileID(fi); ok {
		if in := w.inputIDs[id]; in != nil {
			return in
		}
	}
	for _, in := range w.inputs {
		if os.SameFile(fi, in) {
			return in
		}
	}
	return nil
}

// Close releases the directory handles.
func (w *Writer) Close() error {
	for _, d := range w.dirs {
		d.Close()
	}
	if w.root != nil {
		w.root.Close()
	}
	return nil
}

// Display names abs for messages: relative to the root when below it.
func (w *Writer) Display(abs string) string {
	if w.shownRoot != "" {
		return display(w.shownRoot, abs)
	}
	return display(w.opts.Root, abs)
}

// dirPath returns the absolute path of a directory handle of w.
func (w *Writer) dirPath(d *os.Root) string {
	if d == w.root {
		return w.opts.Root
	}
	return d.Name()
}

// dir returns a handle on the directory absDir, created when create. The
// handle is confined: below the root, no symlink leads out of it.
func (w *Writer) dir(absDir string, create bool) (*os.Root, error) {
	if d, ok := w.dirs[absDir]; ok {
		return d, nil
	}
	shown := w.Display(absDir)
	var d *os.Root
	rel, inside := within(w.opts.Root, absDir)
	if inside {
		if w.root == nil {
			r, err := openRoot(w.opts.Root, w.opts.AllowOutside)
			if err != nil {
				return nil, rootError(w.opts.Root, err)
			}
			w.root = r
		}
		var err error
		if create {
			if err = w.root.MkdirAll(rel, 0o755); err != nil && !isEscape(err) {
				return nil, &Error{Path: shown, Msg: "cannot be created: " + errText(err), Err: err}
			}
		}
		if err == nil {
			d, err = w.root.OpenRoot(rel)
		}
		switch {
		case isEscape(err) && !w.opts.AllowOutside:
			return nil, &Error{Path: shown, Msg: "leads outside the project root " + w.opts.Root + " (through a symbolic link); refusing to write there, pass --allow-outside-root to allow it", Err: ErrOutsideRoot}
		case err != nil && !isEscape(err):
			return nil, dirError(shown, err)
		}
	} else if !w.opts.AllowOutside {
		return nil, &Error{Path: shown, Msg: "is outside the project root " + w.opts.Root + "; refusing to write there, pass --allow-outside-root to allow it", Err: ErrOutsideRoot}
	}
	if d == nil {
		if create {
			if err := os.MkdirAll(absDir, 0o755); err != nil {
				return nil, &Error{Path: shown, Msg: "cannot be created: " + errText(err), Err: err}
			}
		}
		var err error
		if d, err = os.OpenRoot(absDir); err != nil {
			return nil, dirError(shown, err)
		}
	}
	w.dirs[absDir] = d
	return d, nil
}

func dirError(shown string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{Path: shown, Msg: "does not exist", Err: err}
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return &Error{Path: shown, Msg: "is not a directory", Err: ErrNotRegular}
	}
	return &Error{Path: shown, Msg: "cannot be opened: " + errText(err), Err: err}
}

// existing checks the file base in d before it is replaced or removed. It
// returns its mode, or 0 when there is no file.
func (w *Writer) existing(d *os.Root, base, shown string, replace bool) (fs.FileMode, error) {
	fi, err := d.Lstat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, &Error{Path: shown, Msg: "cannot be examined: " + errText(err), Err: err}
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return 0, &Error{Path: shown, Msg: "is a symbolic link; refusing to write through it (remove the link, or point the output elsewhere)", Err: ErrNotRegular}
	case !fi.Mode().IsRegular():
		return 0, &Error{Path: shown, Msg: "is " + Kind(fi.Mode()) + ", not a regular file; refusing to replace it", Err: ErrNotRegular}
	}
	f, err := d.OpenFile(base, os.O_RDONLY|readFlags|noFollow, 0)
	if err != nil {
		return 0, &Error{Path: shown, Msg: "cannot be read: " + errText(err), Err: err}
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil || !ofi.Mode().IsRegular() || !os.SameFile(fi, ofi) {
		return 0, &Error{Path: shown, Msg: "changed while it was being examined; refusing to replace it", Err: ErrNotRegular}
	}
	if err := w.mayReplace(f, ofi, filepath.Join(w.dirPath(d), base), shown, replace); err != nil {
		return 0, err
	}
	return fi.Mode().Perm(), nil
}

// mayReplace checks the open regular file f (abs, shown in messages)
// before it is replaced (replace) or removed: it is no input of the run,
// and it is this tool's to replace — its first line is the generated
// header (Owned), or, to replace only, it is empty, Replaces accepts it
// (a CRD of the name being regenerated), or Force.
func (w *Writer) mayReplace(f *os.File, fi fs.FileInfo, abs, shown string, replace bool) error {
	if in := w.input(fi); in != nil {
		return &Error{Path: shown, Msg: "is an input of this run (" + in.Name() + "); refusing to overwrite it with output", Err: ErrIsInput}
	}
	line, err := firstLineOf(f)
	if err != nil {
		return &Error{Path: shown, Msg: "cannot be read: " + errText(err), Err: err}
	}
	owned := w.opts.Owned != nil && w.opts.Owned(line)
	if owned && w.opts.Verify != nil {
		sealed, err := w.verify(f, fi)
		if err != nil {
			return &Error{Path: shown, Msg: "cannot be read: " + errText(err), Err: err}
		}
		switch {
		case sealed || w.opts.Force:
			return nil
		case replace && w.opts.Replaces != nil && w.opts.Replaces(abs, io.NewSectionReader(f, 0, fi.Size())):
			return nil
		}
		verb := "remove"
		if replace {
			verb = "overwrite"
		}
		return &Error{Path: shown, Msg: "carries the generated header, but its sha256 seal does not match what follows it (edited since it was generated, or generated by a k8s-crd-resolver older than seals); refusing to " + verb + " it: move it away, or pass --force", Err: ErrNotOwned}
	}
	if owned {
		return nil
	}
	if replace && (w.opts.Force || fi.Size() == 0 || (w.opts.Replaces != nil && w.opts.Replaces(abs, io.NewSectionReader(f, 0, fi.Size())))) {
		return nil
	}
	msg := "was not generated by k8s-crd-resolver (its first line is not the generated header"
	if replace {
		if w.opts.Replaces != nil {
			msg += ", and it is not a CustomResourceDefinition of the name being written"
		}
		msg += "); refusing to overwrite it: move it away, or pass --force to take it over"
	} else {
		msg += "); refusing to remove it"
	}
	return &Error{Path: shown, Msg: msg, Err: ErrNotOwned}
}

// verify reads the open regular file f whole (at most the input limit)
// and runs Verify on it.
func (w *Writer) verify(f *os.File, fi fs.FileInfo) (bool, error) {
	if fi.Size() > maxSealedBytes {
		return false, nil
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, maxSealedBytes+1))
	if err != nil {
		return false, err
	}
	return int64(len(data)) <= maxSealedBytes && w.opts.Verify(data), nil
}

// maxSealedBytes bounds the file verify reads: far above any CRD etcd
// stores, even as indented YAML.
const maxSealedBytes = 64 << 20

// headerLimit bounds how much of an existing file is read to find its
// first line.
const headerLimit = 4096

func firstLine(d *os.Root, base string) ([]byte, error) {
	f, err := d.OpenFile(base, os.O_RDONLY|readFlags|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return firstLineOf(f)
}

// firstLineOf returns the first line of f, read from its start.
func firstLineOf(f *os.File) ([]byte, error) {
	line, err := bufio.NewReaderSize(io.NewSectionReader(f, 0, headerLimit), headerLimit).ReadSlice('\n')
	if err != nil {
		return nil, nil // no newline within the limit: no header
	}
	return line[:len(line)-1], nil
}

// Staged is an output written to a temporary file, waiting for Commit.
type Staged struct {
	d         *os.Root
	tmp, base string
	shown     string
	unchanged bool // the file held the output already: nothing to commit
	aside     bool // a file moved aside (Aside): Commit removes it, Abort puts it back
}

// Stage writes what write produces into a temporary file beside name,
// after checking that name may be replaced. Nothing is visible at name
// until Commit.
func (w *Writer) Stage(name string, write func(io.Writer) error) (*Staged, error) {
	return w.stage(name, write, false)
}

// stage is Stage; with keepSame, an existing file that already holds
// exactly what write produces is left as it is (the Staged is Unchanged).
func (w *Writer) stage(name string, write func(io.Writer) error, keepSame bool) (*Staged, error) {
	abs := absClean(name)
	shown := w.Display(abs)
	w.mu.Lock()
	d, err := w.dir(filepath.Dir(abs), true)
	if err == nil && !w.cleaned[d] {
		// Only a run that writes cleans up: check writes nothing.
		removeLeftovers(d)
		w.cleaned[d] = true
	}
	w.mu.Unlock()
	if err != nil {
		return nil, err
	}
	base := filepath.Base(abs)
	mode, err := w.existing(d, base, shown, true)
	if err != nil {
		return nil, err
	}
	s := &Staged{d: d, base: base, shown: shown}
	sw := &stagingWriter{s: s, mode: mode}
	if mode == 0 {
		sw.mode = 0o644
	} else if keepSame {
		sw.old = openSame(d, base)
	}
	var dst io.Writer = sw
	if sw.old != nil {
		// Compared as it comes: no patching (WriteSealed hashes first).
		dst = struct{ io.Writer }{sw}
	}
	err = write(dst)
	if err == nil {
		err = sw.finish()
	}
	if sw.old != nil {
		sw.old.Close()
	}
	if sw.f != nil {
		if err == nil {
			err = sw.f.Chmod(sw.mode)
		}
		if cerr := sw.f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		if s.tmp != "" {
			s.Abort()
		}
		if errors.Is(err, ErrInterrupted) {
			return nil, &Error{Path: shown, Msg: "not written: " + ErrInterrupted.Error(), Err: ErrInterrupted}
		}
		return nil, &Error{Path: shown, Msg: "cannot be written: " + errText(err), Err: err}
	}
	return s, nil
}

// openSame opens the existing file base to compare output with; nil when
// it cannot be (then the output is written without comparing). It is
// opened without following a symlink and must be a regular file: existing
// checked the name, and what is there now is what is compared.
func openSame(d *os.Root, base string) *os.File {
	f, err := d.OpenFile(base, os.O_RDONLY|readFlags|noFollow, 0)
	if err != nil {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil
	}
	return f
}

// stagingWriter is the io.Writer a Stage's write function gets. Comparing
// with an existing file (old), it reads instead of writing for as long as
// the output matches; the temporary file is created at the first byte
// that differs, and the matched part copied into it from old.
type stagingWriter struct {
	s       *Staged
	mode    fs.FileMode
	old     *os.File // the file being replaced, while the output matches it
	matched int64    // bytes of output equal to old's first bytes
	scratch []byte
	f       *os.File // the temporary file, once started
}

func (sw *stagingWriter) Write(p []byte) (int, error) {
	if sw.f == nil && sw.old != nil {
		same, err := sw.matches(p)
		if err != nil {
			return 0, err
		}
		if same {
			sw.matched += int64(len(p))
			return len(p), nil
		}
	}
	if sw.f == nil {
		if err := sw.start(); err != nil {
			return 0, err
		}
	}
	return sw.f.Write(p)
}

// Patch rewrites bytes already written (Patcher): in the temporary file,
// started now if the output matched old so far.
func (sw *stagingWriter) Patch(off int64, p []byte) error {
	if sw.f == nil {
		if err := sw.start(); err != nil {
			return err
		}
	}
	_, err := sw.f.WriteAt(p, off)
	return err
}

// matches reports whether old's next bytes are p.
func (sw *stagingWriter) matches(p []byte) (bool, error) {
	if sw.scratch == nil {
		// The emitter writes some 33-40 KiB at a time: one read each.
		sw.scratch = make([]byte, 48<<10)
	}
	off := sw.matched
	for len(p) > 0 {
		n := min(len(p), len(sw.scratch))
		got, err := sw.old.ReadAt(sw.scratch[:n], off)
		if got < n {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
		if !bytes.Equal(sw.scratch[:n], p[:n]) {
			return false, nil
		}
		p, off = p[n:], off+int64(n)
	}
	return true, nil
}

// start creates the temporary file and copies into it the part of the
// output that matched old.
func (sw *stagingWriter) start() error {
	s := sw.s
	s.tmp = tempName(s.base)
	if !temps.add(s) {
		s.tmp = ""
		return ErrInterrupted
	}
	f, err := s.d.OpenFile(s.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, sw.mode)
	if err != nil {
		temps.remove(s)
		s.tmp = ""
		return err
	}
	sw.f = f
	if sw.matched > 0 {
		if _, err := io.Copy(f, io.NewSectionReader(sw.old, 0, sw.matched)); err != nil {
			return err
		}
	}
	sw.old = nil // closed by stage
	return nil
}

// finish ends the output: when it matched old to old's last byte, nothing
// is written; otherwise the temporary file is started if it was not yet
// (an output that is a prefix of old, or an empty one).
func (sw *stagingWriter) finish() error {
	if sw.f != nil {
		return nil
	}
	if sw.old != nil {
		var one [1]byte
		n, err := sw.old.ReadAt(one[:], sw.matched)
		if n == 0 && err == io.EOF {
			sw.s.unchanged = true
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
	}
	return sw.start()
}

// Unchanged reports whether the file already held the output, so that
// nothing was written and Commit leaves it as it is.
func (s *Staged) Unchanged() bool { return s.unchanged }

// Commit renames the temporary file over the target, which Stage has
// checked. The rename replaces the directory entry itself: it never
// follows a symlink put there since.
func (s *Staged) Commit() error {
	if s.unchanged {
		return nil
	}
	defer temps.remove(s)
	if s.aside {
		if err := s.d.Remove(s.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &Error{Path: s.shown, Msg: "cannot be removed: " + errText(err), Err: err}
		}
		return nil
	}
	if err := s.d.Rename(s.tmp, s.base); err != nil {
		s.d.Remove(s.tmp)
		return &Error{Path: s.shown, Msg: "cannot be replaced: " + errText(err), Err: err}
	}
	return nil
}

// CommitAll commits staged in order as one step against SIGINT and
// SIGTERM: the handler HandleSignals installs waits until every rename is
// done, so an interrupt leaves all of them in place or none (before
// CommitAll, the handler removes every temporary file and CommitAll never
// runs). When a rename fails, the files after it are aborted and the
// error returned. A crash (SIGKILL, power loss) between two renames still
// leaves the first ones renamed: callers order staged so that any prefix
// is a state the next run recovers from.
func CommitAll(staged []*Staged) error {
	commitMu.Lock()
	defer commitMu.Unlock()
	for i, s := range staged {
		if err := s.Commit(); err != nil {
			for _, r := range staged[i+1:] {
				r.Abort()
			}
			return err
		}
	}
	return nil
}

// WriteAll writes n files as one update: stage(i), called for each i in
// order, stages the i-th (through a Writer's Stage or StageKeep, or hands
// over a file staged earlier), and only when every one is staged are they
// renamed into place, as one step against SIGINT and SIGTERM (CommitAll).
// When stage(i) fails, the files staged before it are removed (Abort), none
// after it is asked for, nothing is renamed and its error is returned:
// every target is as it was. It returns how many files were renamed (a
// StageKeep that found its bytes there already is not). This is the one
// stage-then-commit loop: build, export and migrate write their several
// files through it.
func WriteAll(n int, stage func(i int) (*Staged, error)) (written int, err error) {
	staged := make([]*Staged, 0, n)
	for i := range n {
		s, err := stage(i)
		if err != nil {
			for _, s := range staged {
				s.Abort()
			}
			return 0, err
		}
		staged = append(staged, s)
	}
	if err := CommitAll(staged); err != nil {
		return 0, err
	}
	for _, s := range staged {
		if !s.unchanged {
			written++
		}
	}
	return written, nil
}

// commitMu is held by CommitAll while it renames, and taken for good by
// the signal handler before it removes the temporary files.
var commitMu sync.Mutex

// Abort removes the temporary file.
func (s *Staged) Abort() {
	if s.unchanged {
		return
	}
	s.undo()
	temps.remove(s)
}

// undo removes the temporary file, or puts a file moved aside back.
func (s *Staged) undo() {
	if s.aside {
		s.d.Rename(s.tmp, s.base)
		return
	}
	s.d.Remove(s.tmp)
}

// Aside moves name, a file Remove would remove, aside: it is renamed to a
// temporary name in its directory (IsTemp), so that what makes a removal
// fail (a read-only directory) shows before any output is replaced, and
// the removal itself can come last. Committing the result (CommitAll,
// WriteAll) removes the file; aborting it, or SIGINT or SIGTERM before the
// commit, puts it back. nil, nil when there is no file. A run killed in
// between leaves the temporary name, which the next run's clean-up
// removes: the file was to go.
func (w *Writer) Aside(name string) (*Staged, error) {
	abs := absClean(name)
	shown := w.Display(abs)
	w.mu.Lock()
	d, err := w.dir(filepath.Dir(abs), false)
	w.mu.Unlock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	base := filepath.Base(abs)
	mode, err := w.existing(d, base, shown, false)
	if err != nil || mode == 0 {
		return nil, err
	}
	s := &Staged{d: d, base: base, shown: shown, aside: true, tmp: tempName(base)}
	if !temps.add(s) {
		return nil, &Error{Path: shown, Msg: "not removed: " + ErrInterrupted.Error(), Err: ErrInterrupted}
	}
	if err := d.Rename(base, s.tmp); err != nil {
		temps.remove(s)
		return nil, &Error{Path: shown, Msg: "cannot be removed: " + errText(err), Err: err}
	}
	return s, nil
}

// WriteFile writes what write produces to name: into a temporary file
// beside it, renamed over it. When name already holds exactly those bytes
// nothing is written, and the file keeps its time stamps (as `build`
// leaves an unchanged output alone); changed is false then.
func (w *Writer) WriteFile(name string, write func(io.Writer) error) (changed bool, err error) {
	s, err := w.stage(name, write, true)
	if err != nil {
		return false, err
	}
	return !s.unchanged, s.Commit()
}

// Remove removes name, a regular file Owned (and Verify) accept; Force
// applies only to a file Owned accepts.
// A missing file is not an error.
func (w *Writer) Remove(name string) error {
	abs := absClean(name)
	shown := w.Display(abs)
	d, err := w.dir(filepath.Dir(abs), false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	base := filepath.Base(abs)
	mode, err := w.existing(d, base, shown, false)
	if err != nil || mode == 0 {
		return err
	}
	if err := d.Remove(base); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &Error{Path: shown, Msg: "cannot be removed: " + errText(err), Err: err}
	}
	return nil
}

// ReadDir lists the directory absDir (confined like writes), sorted by
// name; a missing directory has no entries.
func (w *Writer) ReadDir(absDir string) ([]fs.DirEntry, error) {
	d, err := w.dir(absDir, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	f, err := d.Open(".")
	if err != nil {
		return nil, dirError(w.Display(absDir), err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, dirError(w.Display(absDir), err)
	}
	sortEntries(entries)
	return entries, nil
}

// FirstLine returns the first line of the regular file name (without its
// newline; nil when there is none within a few KiB), confined like writes.
func (w *Writer) FirstLine(name string) ([]byte, error) {
	abs := absClean(name)
	d, err := w.dir(filepath.Dir(abs), false)
	if err != nil {
		return nil, err
	}
	line, err := firstLine(d, filepath.Base(abs))
	if err != nil {
		return nil, &Error{Path: w.Display(abs), Msg: "cannot be read: " + errText(err), Err: err}
	}
	return line, nil
}

func sortEntries(e []fs.DirEntry) {
	slices.SortFunc(e, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// Temporary files are named ".NAME.k8s-crd-resolver-PID-RANDOM.tmp"
// (RANDOM: 16 hex digits) beside their target.
const tempMarker = ".k8s-crd-resolver-"

// TempPID reports whether name is exactly such a temporary file name, and
// the pid in it. Hand-written rather than a regexp: it runs on every
// directory entry of every output directory, and a regexp compiled at
// start-up costs every process.
func TempPID(name string) (int, bool) {
	rest, ok := strings.CutSuffix(name, ".tmp")
	if !ok || !strings.HasPrefix(rest, ".") || len(rest) < 1+len(tempMarker)+1+1+16 {
		return 0, false
	}
	hexPart := rest[len(rest)-16:]
	for _, c := range []byte(hexPart) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return 0, false
		}
	}
	rest = rest[:len(rest)-16]
	rest, ok = strings.CutSuffix(rest, "-")
	if !ok {
		return 0, false
	}
	i := strings.LastIndex(rest, tempMarker)
	if i < 1 {
		return 0, false
	}
	pid, err := strconv.Atoi(rest[i+len(tempMarker):])
	if err != nil || pid <= 0 || strconv.Itoa(pid) != rest[i+len(tempMarker):] {
		return 0, false
	}
	return pid, true
}

// IsTemp reports whether name is a temporary file name of this package.
func IsTemp(name string) bool {
	_, ok := TempPID(name)
	return ok
}

// leftoverAge is how old a temporary file of a live process must be to
// count as a leftover (its pid may have been reused).
const leftoverAge = time.Hour

func tempName(base string) string {
	if len(base) > 120 {
		base = base[:120]
	}
	// math/rand/v2's generator is ChaCha8 seeded from the system's entropy:
	// names nobody else can guess, without linking crypto/rand (whose
	// package inits every run paid for). A name that exists anyway only
	// fails the O_EXCL create; it is never written through.
	return fmt.Sprintf(".%s.k8s-crd-resolver-%d-%016x.tmp", base, os.Getpid(), rand.Uint64())
}

// removeLeftovers removes the temporary files of runs that were killed
// (their process is gone, or the file is over an hour old).
func removeLeftovers(d *os.Root) {
	f, err := d.Open(".")
	if err != nil {
		return
	}
	// Names only: ReadDir of a directory opened through an os.Root lstats
	// every entry, and an output directory of 1,000 CRDs holds 1,000 of
	// them; only a temporary file's name is looked at further.
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return
	}
	for _, name := range names {
		pid, ok := TempPID(name)
		if !ok || pid == os.Getpid() {
			continue
		}
		info, err := d.Lstat(name)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if processGone(pid) || time.Since(info.ModTime()) > leftoverAge {
			d.Remove(name)
		}
	}
}

// temps are the live temporary files of the process, removed on a signal.
var temps = &tempSet{live: map[*Staged]struct{}{}}

type tempSet struct {
	mu      sync.Mutex
	live    map[*Staged]struct{}
	stopped bool
}

func (t *tempSet) add(s *Staged) bool {
	installHandler()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	t.live[s] = struct{}{}
	return true
}

func (t *tempSet) remove(s *Staged) {
	t.mu.Lock()
	delete(t.live, s)
	t.mu.Unlock()
}

// RemoveTemps removes every temporary file the process has staged and not
// committed, and makes later Stage calls fail with ErrInterrupted.
func RemoveTemps() {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	temps.stopped = true
	for s := range temps.live {
		s.undo()
	}
	clear(temps.live)
}

// The signal handling HandleSignals arms, installed with the first
// temporary file.
var (
	signalExit func(code int) // set by HandleSignals; nil: not armed
	handleOnce sync.Once
	handlerMu  sync.Mutex
)

// HandleSignals makes SIGINT and SIGTERM remove the process's temporary
// files and then call exit with 128 + the signal number. The handler is
// installed when the first temporary file is created: before that there is
// nothing to remove, and a run that writes nothing (its outputs already
// hold their bytes) never pays for one. Calling it again does nothing.
//
// Installing it costs a one-file run about 0.15 to 0.3 ms (the runtime
// starts a thread for the signal masks, and its template thread, and waits
// for the first to answer). Tried: installing it in the background, from
// the start of the run or from the start of the write, the first
// temporary file waiting for it. The wait in the write shrank to 0.06 ms,
// but the Dask hook (four processes, interleaved, a fresh copy of each
// binary every round) was no faster, within 1%: the threads then start
// beside the run's work on this 2-core machine instead of while it waits.
func HandleSignals(exit func(code int)) {
	handlerMu.Lock()
	defer handlerMu.Unlock()
	if signalExit == nil {
		signalExit = exit
	}
}

// installHandler installs the handler HandleSignals armed, once; temps.add
// calls it before the first temporary file is created.
func installHandler() {
	handlerMu.Lock()
	exit := signalExit
	handlerMu.Unlock()
	if exit == nil {
		return
	}
	handleOnce.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			sig := <-ch
			commitMu.Lock() // a CommitAll under way finishes first; none starts after
			RemoveTemps()
			code := 130
			if sig == syscall.SIGTERM {
				code = 143
			}
			exit(code)
		}()
	})
}
