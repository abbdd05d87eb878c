package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// DefaultLimit is the largest file a Reader reads unless told otherwise.
const DefaultLimit = 64 << 20

// Sentinel errors. Every *Error wraps one of these or an fs error
// (fs.ErrNotExist, fs.ErrPermission), so callers match with errors.Is.
var (
	// ErrNotRegular: the path is a directory, FIFO, device, socket or
	// symlink where a regular file is needed.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the reader's limit.
	ErrTooLarge = errors.New("file too large")
	// ErrOutsideRoot: the path, or the file it leads to through symlinks,
	// is outside the project root.
	ErrOutsideRoot = errors.New("outside the project root")
	// ErrNotOwned: an existing file does not start with the generated
	// header, so it is not this tool's to replace or remove.
	ErrNotOwned = errors.New("not a file this tool generated")
	// ErrIsInput: the output would overwrite a file the same run reads.
	ErrIsInput = errors.New("output is an input of this run")
	// ErrDanglingLink: the path is a symbolic link to nothing (the error
	// also matches fs.ErrNotExist).
	ErrDanglingLink = errors.New("dangling symbolic link")
	// ErrInterrupted: the process is being stopped by a signal.
	ErrInterrupted = errors.New("interrupted")
)

// Error is a refused or failed file operation. Path is the name as the
// user knows it (relative to the root when below it).
type Error struct {
	Path string
	// Msg completes the sentence "Path ...", e.g. "is a FIFO (named pipe),
	// not a regular file".
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Path + " " + e.Msg }

// Unwrap returns the cause, a sentinel of this package or an fs error.
func (e *Error) Unwrap() error { return e.Err }

// Reader reads input files: regular files only, at most Limit bytes each,
// confined to Root unless AllowOutside. A Reader is safe for concurrent
// use; it keeps the root directory open until Close.
type Reader struct {
	root         string
	allowOutside bool
	limit        int64

	once    sync.Once
	handle  *os.Root
	rootErr error

	mu   sync.Mutex
	dirs map[string]*os.Root // directories below the root, opened once (nil: could not be)
}

// NewReader returns a Reader confined to root (made absolute). limit <= 0
// means DefaultLimit.
func NewReader(root string, allowOutside bool, limit int64) *Reader {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Reader{root: absClean(root), allowOutside: allowOutside, limit: limit}
}

// Root returns the directory the reader is confined to.
func (r *Reader) Root() string { return r.root }

// Limit returns the largest number of bytes the reader reads from a file.
func (r *Reader) Limit() int64 { return r.limit }

// Close releases the root directory handle.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, d := range r.dirs {
		if d != nil {
			errs = append(errs, d.Close())
		}
	}
	r.dirs = nil
	if r.handle != nil {
		errs = append(errs, r.handle.Close())
	}
	return errors.Join(errs...)
}

// Display names abs for messages: relative to the root when below it.
func (r *Reader) Display(abs string) string { return display(r.root, abs) }

// ReadFile reads the whole file name (absolute, or relative to the working
// directory).
func (r *Reader) ReadFile(name string) ([]byte, error) { return r.AppendFile(nil, name) }

// AppendFile is ReadFile appending to dst, whose spare capacity it reads
// into (a caller reading many files reuses one buffer); it returns the
// extended slice. The limit applies to the file, not to dst. On an error
// it returns dst as it was.
func (r *Reader) AppendFile(dst []byte, name string) ([]byte, error) {
	f, fi, shown, err := r.open(name)
	if err != nil {
		return dst, err
	}
	defer f.Close()
	// The size the opened file states (its check's fstat) sizes the
	// buffer (reading grows it by doubling otherwise, clearing each copy);
	// the limit is enforced on what is read, whatever the file says.
	b, err := readLimitedHint(dst, f, shown, r.limit, fi.Size())
	if err != nil {
		return dst, err
	}
	return b, nil
}

// ReadHead reads at most n bytes from the start of the file name, for
// looking at a header without reading a large file whole.
func (r *Reader) ReadHead(name string, n int) ([]byte, error) {
	f, _, shown, err := r.open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(n)))
	if err != nil {
		return nil, &Error{Path: shown, Msg: "cannot be read: " + err.Error(), Err: err}
	}
	return b, nil
}

// ReadFrom reads all of rd (standard input), at most the reader's limit;
// name is used in messages.
func (r *Reader) ReadFrom(name string, rd io.Reader) ([]byte, error) {
	return readLimited(rd, name, r.limit)
}

// StreamFrom is ReadFrom for a reader consumed as it arrives (the
// companion's request, validated while it is written): reading past the
// limit fails with the error ReadFrom gives, and so does a failing rd.
func (r *Reader) StreamFrom(name string, rd io.Reader) io.Reader {
	return &limitedStream{rd: io.LimitReader(rd, r.limit+1), shown: name, limit: r.limit}
}

type limitedStream struct {
	rd    io.Reader
	shown string
	limit int64
	n     int64
}

func (l *limitedStream) Read(p []byte) (int, error) {
	n, err := l.rd.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		return 0, &Error{Path: l.shown, Msg: fmt.Sprintf("is larger than the %s limit", formatLimit(l.limit)), Err: ErrTooLarge}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n, &Error{Path: l.shown, Msg: "cannot be read: " + errText(err), Err: err}
	}
	return n, err
}

// Stat returns what name leads to, confined like ReadFile but without
// opening it. It is for choices such as "is there a patch beside this
// template"; what is then read goes through ReadFile, which checks again
// on the opened file.
func (r *Reader) Stat(name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	_, err := r.confined(name, func(fsys filesystem, p, shown string) error {
		var err error
		fi, err = fsys.Stat(p)
		return describeOpenError(fsys, p, shown, err)
	})
	return fi, err
}

// DirNames lists the names in directory dir, confined like ReadFile (for
// did-you-mean suggestions).
func (r *Reader) DirNames(dir string) ([]string, error) {
	var names []string
	_, err := r.confined(dir, func(fsys filesystem, p, shown string) error {
		d, err := fsys.OpenFile(p, os.O_RDONLY|readFlags, 0)
		if err != nil {
			return describeOpenError(fsys, p, shown, err)
		}
		defer d.Close()
		names, err = d.Readdirnames(-1)
		return err
	})
	return names, err
}

func (r *Reader) rootHandle() (*os.Root, error) {
	r.once.Do(func() { r.handle, r.rootErr = openRoot(r.root, r.allowOutside) })
	return r.handle, r.rootErr
}

// Open opens the reader's root now, as its first read would: an error
// says why nothing below it can be read (it is no directory, or a
// symbolic link placed in a repository leads it out, see openRoot). A
// caller that lists the root's directories itself (a walk) opens it
// first, so that it never reports finding nothing where the door would
// have refused.
func (r *Reader) Open() error {
	if _, err := r.rootHandle(); err != nil {
		return rootError(r.root, err)
	}
	return nil
}

// openRoot opens dir, the root a Reader or Writer confines paths to. A
// root that lies in a git work tree is opened through that work tree
// (and a work tree that lies in another through that one), so no
// symbolic link placed in a repository makes a root of a directory
// outside it: whether dir is a project's directory, a directory typed on
// the command line or the working directory, what lies in a repository
// is the repository's, and a link it commits is its content, not the
// user's intent. This is the one place the rule is applied; every root of
// the door is opened here. allowOutside (--allow-outside-root) opens dir
// wherever it leads.
func openRoot(dir string, allowOutside bool) (*os.Root, error) {
	top := GitTop(dir)
	if top == dir {
		top = ""
		if parent := filepath.Dir(dir); parent != dir {
			top = GitTop(parent) // a work tree nested in another
		}
	}
	if top == "" || allowOutside {
		return os.OpenRoot(dir)
	}
	outer, err := openRoot(top, false)
	if err != nil {
		return nil, err
	}
	defer outer.Close()
	rel, _ := within(top, dir)
	d, err := outer.OpenRoot(rel)
	if isEscape(err) {
		msg := "leads outside the git work tree " + top + " (through a symbolic link committed there, which is repository content, not a path you chose)"
		if real, rerr := filepath.EvalSymlinks(dir); rerr == nil {
			msg += "; give the path it leads to, " + real + ", or pass --allow-outside-root"
		} else {
			msg += "; pass --allow-outside-root to follow it"
		}
		return nil, &Error{Path: dir, Msg: msg, Err: ErrOutsideRoot}
	}
	return d, err
}

// maxDirHandles bounds the directory handles a Reader keeps open: a
// repository's $refs may reach into any number of directories, and each
// handle is a file descriptor.
const maxDirHandles = 64

// dirHandle returns the handle of dir (relative to the root, below it),
// opened through root on first use; nil when it cannot be opened (the
// root's handle then does the work, and reports what is wrong).
func (r *Reader) dirHandle(root *os.Root, dir string) *os.Root {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.dirs[dir]
	if !ok {
		if len(r.dirs) >= maxDirHandles {
			return nil // a descriptor each: enough for the directories a build reads
		}
		var err error
		if d, err = root.OpenRoot(dir); err != nil {
			d = nil
		}
		if r.dirs == nil {
			r.dirs = map[string]*os.Root{}
		}
		r.dirs[dir] = d
	}
	return d
}

// open opens name for reading after the checks of the package doc; it
// returns what the opened file's fstat said of it too.
func (r *Reader) open(name string) (*os.File, fs.FileInfo, string, error) {
	var f *os.File
	var fi fs.FileInfo
	shown, err := r.confined(name, func(fsys filesystem, p, shown string) error {
		var err error
		f, fi, err = openRegular(fsys, p, shown)
		return err
	})
	return f, fi, shown, err
}

// confined runs op on name (absolute, or relative to the working
// directory) where the confinement rules allow it: below the root through
// the root's handle, so no symlink leads out; elsewhere, or where a
// symlink leads out, by its absolute path only when AllowOutside. It
// returns the name as shown in messages.
func (r *Reader) confined(name string, op func(fsys filesystem, p, shown string) error) (string, error) {
	abs := absClean(name)
	shown := r.Display(abs)
	rel, inside := within(r.root, abs)
	if inside {
		root, err := r.rootHandle()
		if err != nil {
			return shown, rootError(r.root, err)
		}
		// Through the file's directory, opened below the root once per
		// Reader: the root's handle walks every element of the path with
		// a system call each, and does it twice per file (the stat, then
		// the open), which cost a one-file run reading three files of a
		// directory 5% of its time. Where the directory's handle refuses
		// (a symbolic link out of the directory), the root's decides.
		var fsys filesystem = root
		p := rel
		if dir, base := filepath.Split(rel); dir != "" && base != "" {
			if d := r.dirHandle(root, filepath.Clean(dir)); d != nil {
				fsys, p = d, base
			}
		}
		err = op(fsys, p, shown)
		if isEscape(err) && fsys != filesystem(root) {
			err = op(root, rel, shown)
		}
		if !isEscape(err) {
			return shown, err
		}
	}
	if !r.allowOutside {
		return shown, outsideError(shown, r.root, inside)
	}
	return shown, op(hostFS{}, abs, shown)
}

// filesystem is what the reader needs of a directory tree: an *os.Root
// (confined) or hostFS (the whole file system, for allowed outside paths).
type filesystem interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
}

type hostFS struct{}

func (hostFS) Stat(name string) (fs.FileInfo, error)  { return os.Stat(name) }
func (hostFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (hostFS) Readlink(name string) (string, error)   { return os.Readlink(name) }
func (hostFS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

func rootError(root string, err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		return err // openRoot's refusal says what it is
	}
	return &Error{Path: root, Msg: "(the project root) cannot be opened: " + errText(err), Err: err}
}

func outsideError(shown, root string, viaLink bool) error {
	msg := "is outside the project root " + root
	if viaLink {
		msg = "leads outside the project root " + root + " (through a symbolic link)"
	}
	return &Error{Path: shown, Msg: msg + "; move the file into the project, or pass --allow-outside-root", Err: ErrOutsideRoot}
}

// openRegular opens p in fsys: a stat first, so a FIFO or device is never
// opened at all, then the open (non-blocking, so a FIFO swapped in cannot
// hang it) and a check of what was actually opened, whose FileInfo it
// returns (its size sizes the read: no second fstat).
func openRegular(fsys filesystem, p, shown string) (*os.File, fs.FileInfo, error) {
	fi, err := fsys.Stat(p)
	if err != nil {
		return nil, nil, describeOpenError(fsys, p, shown, err)
	}
	if err := regular(fi, shown); err != nil {
		return nil, nil, err
	}
	f, err := fsys.OpenFile(p, os.O_RDONLY|readFlags, 0)
	if err != nil {
		return nil, nil, describeOpenError(fsys, p, shown, err)
	}
	if fi, err = f.Stat(); err == nil {
		err = regular(fi, shown)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func regular(fi fs.FileInfo, shown string) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &Error{Path: shown, Msg: "is " + Kind(fi.Mode()) + ", not a regular file", Err: ErrNotRegular}
}

// Kind names the type of a file mode for messages: "a directory", "a FIFO
// (named pipe)", ...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file"
}

// describeOpenError turns a failed stat or open into an *Error; for a
// missing file it tells a dangling symlink from a missing name.
func describeOpenError(fsys filesystem, name, shown string, err error) error {
	if err == nil || isEscape(err) {
		return err // an escape is the caller's to word (see confined)
	}
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := fsys.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := fsys.Readlink(name)
			return &Error{Path: shown, Msg: fmt.Sprintf("is a symbolic link to %s, which does not exist", target), Err: fmt.Errorf("%w: %w", ErrDanglingLink, err)}
		}
		return &Error{Path: shown, Msg: "does not exist", Err: err}
	}
	return &Error{Path: shown, Msg: "cannot be read: " + errText(err), Err: err}
}

// errText is the cause of an *fs.PathError without the repeated path.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// isEscape reports whether err is os.Root refusing a path that leaves it.
// The error is unexported; its text is stable.
// Some os.Root operations (MkdirAll) wrap the refusal of an inner step in
// a PathError of their own, so every PathError in the chain is looked at.
func isEscape(err error) bool {
	var pe *fs.PathError
	for errors.As(err, &pe) {
		if pe.Err.Error() == "path escapes from parent" {
			return true
		}
		err = pe.Err
	}
	return false
}

func readLimited(rd io.Reader, shown string, limit int64) ([]byte, error) {
	return readLimitedHint(nil, rd, shown, limit, 0)
}

// readLimitedHint is readLimited appending to dst, with room made for
// hint bytes (a file's stated size; at most the limit), grown as reading
// needs.
func readLimitedHint(dst []byte, rd io.Reader, shown string, limit, hint int64) ([]byte, error) {
	start := len(dst)
	b := dst
	if want := start + int(min(max(hint, 0), limit)) + 1; cap(b) < want {
		b = make([]byte, start, want)
		copy(b, dst)
	}
	var err error
	lr := io.LimitReader(rd, limit+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		var n int
		n, err = lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			break
		}
	}
	if err != nil {
		return nil, &Error{Path: shown, Msg: "cannot be read: " + errText(err), Err: err}
	}
	if int64(len(b)-start) > limit {
		return nil, &Error{Path: shown, Msg: fmt.Sprintf("is larger than the %s limit", formatLimit(limit)), Err: ErrTooLarge}
	}
	return b, nil
}

func formatLimit(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d-byte", n)
}

func absClean(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return filepath.Clean(name)
}

// within returns path relative to root when path is root or below it
// (lexically).
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Within reports whether path is root or lexically below it.
func Within(root, path string) bool {
	_, ok := within(root, path)
	return ok
}

// Rel names abs relative to root, slash-separated, when it is root or
// below it; otherwise abs itself.
func Rel(root, abs string) string { return display(root, abs) }

func display(root, abs string) string {
	if rel, ok := within(root, abs); ok {
		return filepath.ToSlash(rel)
	}
	return abs
}

// GitTop returns the nearest ancestor of dir (itself included) that holds
// .git, or "".
func GitTop(dir string) string {
	for d := absClean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// ProjectRoot is the default root for a file living in dir: the git top
// level of dir, else workDir when it holds dir, else dir.
func ProjectRoot(dir, workDir string) string {
	if top := GitTop(dir); top != "" {
		return top
	}
	if Within(workDir, dir) {
		return absClean(workDir)
	}
	return absClean(dir)
}
