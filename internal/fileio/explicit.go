package fileio

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Paths the invoking user typed (an -o, a DST, diff's and validate's file
// arguments, a --config or -j) are intent, not repository content: they
// are read and written wherever they point, as cp and go build -o do. The
// confinement that protects against repository content still applies to
// the part of such a path that lies in a repository: below the Reader's or
// Writer's root, or below the git work tree the path is in, no symbolic
// link may lead out. A path in no project (a temporary directory, /dev,
// /proc) is followed wherever it leads.
//
// The type checks stay: an explicit input is a regular file or a pipe (a
// process substitution, a FIFO: read as a stream, within the size limit);
// an explicit output that is a device, a FIFO or a socket (/dev/stdout,
// /dev/null, /dev/fd/N) is written in place and never replaced, and a
// regular file reached through a symbolic link outside every project is
// rewritten in place, after the same ownership check as any other output.

// explicitRoot returns the directory an explicit path stays confined to:
// root when the path is below it, else the git work tree holding it, else
// "" (the path is in no project).
func explicitRoot(abs, root string) string {
	if Within(root, abs) {
		return root
	}
	return GitTop(filepath.Dir(abs))
}

// ReadExplicit reads name, a path the invoking user gave on the command
// line: confined below the reader's root or the git work tree holding it
// (no symbolic link placed there leads out), followed wherever it leads
// elsewhere. It reads regular files, and pipes as streams; the size limit
// applies either way.
func (r *Reader) ReadExplicit(name string) ([]byte, error) {
	f, hint, shown, err := r.openExplicit(name, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimitedHint(nil, f, shown, r.limit, hint)
}

// OpenExplicit opens name as ReadExplicit reads it (the same confinement
// and type checks, on the handle opened) and returns a reader of it that
// fails, as ReadExplicit does, once past the size limit: for a caller
// that decodes a large stream as it reads it. The caller closes it.
func (r *Reader) OpenExplicit(name string) (io.ReadCloser, error) {
	return r.openLimited(name, true)
}

// openLimited is OpenExplicit, without pipes when !pipes (readExplicit).
func (r *Reader) openLimited(name string, pipes bool) (io.ReadCloser, error) {
	f, _, shown, err := r.openExplicit(name, pipes)
	if err != nil {
		return nil, err
	}
	return &limitedFile{limitedStream: limitedStream{rd: io.LimitReader(f, r.limit+1), shown: shown, limit: r.limit}, f: f}, nil
}

// limitedFile is an opened file read within a limit.
type limitedFile struct {
	limitedStream
	f *os.File
}

func (l *limitedFile) Close() error { return l.f.Close() }

// readExplicit is ReadExplicit; without pipes, a path outside every
// project must be a regular file too (checked on the handle opened without
// blocking), as for a name found by listing a directory.
func (r *Reader) readExplicit(name string, pipes bool) ([]byte, error) {
	f, hint, shown, err := r.openExplicit(name, pipes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimitedHint(nil, f, shown, r.limit, hint)
}

// openExplicit opens name for readExplicit after its checks, and returns
// the size the opened file states (0 for a pipe) and its name for
// messages.
func (r *Reader) openExplicit(name string, pipes bool) (*os.File, int64, string, error) {
	abs := absClean(name)
	switch top := explicitRoot(abs, r.root); top {
	case r.root:
		f, fi, shown, err := r.open(abs)
		if err != nil {
			return nil, 0, "", err
		}
		return f, fi.Size(), shown, nil
	case "":
	default:
		sub := &Reader{root: top, limit: r.limit}
		defer sub.Close() // the opened file outlives the directory handles
		f, fi, _, err := sub.open(abs)
		if err != nil {
			return nil, 0, "", reshow(err, abs)
		}
		return f, fi.Size(), abs, nil
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, 0, "", describeOpenError(hostFS{}, abs, abs, err)
	}
	if !pipes || fi.Mode()&fs.ModeNamedPipe == 0 {
		f, ofi, err := openRegular(hostFS{}, abs, abs)
		if err != nil {
			return nil, 0, "", err
		}
		return f, ofi.Size(), abs, nil
	}
	// A pipe is opened as cat opens it: blocking until its writer is
	// there (a process substitution's always is).
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, 0, "", describeOpenError(hostFS{}, abs, abs, err)
	}
	if ofi, err := f.Stat(); err != nil || ofi.Mode()&fs.ModeNamedPipe == 0 {
		f.Close()
		return nil, 0, "", &Error{Path: abs, Msg: "changed while it was being opened; refusing to read it", Err: ErrNotRegular}
	}
	return f, 0, abs, nil
}

// reshow names a sub-reader's or sub-writer's error by the absolute path,
// the way the user typed it, rather than relative to another project.
func reshow(err error, abs string) error {
	var fe *Error
	if errors.As(err, &fe) && !filepath.IsAbs(fe.Path) {
		fe.Path = abs
	}
	return err
}

// WriteExplicit writes what write produces to name, a path the invoking
// user gave on the command line (-o, DST). Below the writer's root, or
// below the git work tree holding it, it is written as WriteFile writes
// (staged, renamed, never through a symbolic link leading out). Elsewhere
// it is the user's to point anywhere: a device, FIFO or socket is written
// in place, a regular file reached through a symbolic link is rewritten in
// place, and any other file is replaced through a temporary file; the
// ownership and same-run-input checks apply to every regular file. A name
// ending in a slash, or naming a directory, is an error.
func (w *Writer) WriteExplicit(name string, write func(io.Writer) error) (changed bool, err error) {
	abs := absClean(name)
	if strings.HasSuffix(name, "/") || strings.HasSuffix(name, string(filepath.Separator)) {
		return false, &Error{Path: name, Msg: "names a directory; give the output file's name", Err: ErrNotRegular}
	}
	top := explicitRoot(abs, w.opts.Root)
	if top == w.opts.Root {
		return w.WriteFile(abs, write)
	}
	sub := &Writer{opts: w.opts, inputs: w.inputs, dirs: map[string]*os.Root{}, cleaned: map[*os.Root]bool{}, shownRoot: w.opts.Root}
	defer sub.Close()
	if top != "" {
		sub.opts.Root, sub.opts.AllowOutside = top, false
		return sub.WriteFile(abs, write)
	}
	dir := filepath.Dir(abs)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		msg := "does not exist (it is the directory of the output " + abs + ")"
		if err == nil {
			msg = "is not a directory (it is where the output " + abs + " would go)"
		} else if !errors.Is(err, fs.ErrNotExist) {
			msg = "cannot be examined: " + errText(err)
		}
		return false, &Error{Path: dir, Msg: msg, Err: fs.ErrNotExist}
	}
	fi, err := os.Lstat(abs)
	if err == nil && (fi.Mode()&fs.ModeSymlink != 0 || !fi.Mode().IsRegular()) {
		return true, sub.writeInPlace(abs, write)
	}
	sub.opts.Root, sub.opts.AllowOutside = dir, false
	return sub.WriteFile(abs, write)
}

// writeInPlace writes to the file abs leads to without replacing it: a
// stream (device, FIFO, socket) as it is, a regular file truncated and
// rewritten once it passes the checks every replaced file passes.
func (w *Writer) writeInPlace(abs string, write func(io.Writer) error) error {
	fi, err := os.Stat(abs)
	if err != nil {
		return describeOpenError(hostFS{}, abs, abs, err)
	}
	if fi.IsDir() {
		return &Error{Path: abs, Msg: "is a directory, not a regular file", Err: ErrNotRegular}
	}
	flag := os.O_WRONLY
	if fi.Mode().IsRegular() {
		flag = os.O_RDWR
	}
	f, err := os.OpenFile(abs, flag|syscall.O_NOCTTY, 0)
	if err != nil {
		return &Error{Path: abs, Msg: "cannot be opened for writing: " + errText(err), Err: err}
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil || ofi.Mode().Type() != fi.Mode().Type() || ofi.IsDir() {
		return &Error{Path: abs, Msg: "changed while it was being opened; refusing to write it", Err: ErrNotRegular}
	}
	if ofi.Mode().IsRegular() {
		if err := w.mayReplace(f, ofi, abs, abs, true); err != nil {
			return err
		}
		if err := f.Truncate(0); err != nil {
			return &Error{Path: abs, Msg: "cannot be written: " + errText(err), Err: err}
		}
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return &Error{Path: abs, Msg: "cannot be written: " + errText(err), Err: err}
	}
	return nil
}
