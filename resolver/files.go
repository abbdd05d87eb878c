package resolver

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
)

// Reading the files $refs point at. Every read goes through the one
// reader (internal/fileio).

func (r *run) fileTarget(abs, frag string) (target, error) {
	abs = filepath.Clean(abs)
	if !r.c.opts.AllowOutsideRoot {
		if !fileio.Within(r.root, abs) || !fileio.Within(r.realPath(r.root), r.realPath(abs)) {
			return target{}, fmt.Errorf("%w: %s is outside the project root %s; move the file into the project or pass --allow-outside-root", ErrOutsideRoot, r.relative(abs), r.relative(r.root))
		}
	}
	if frag != "" {
		if _, err := splitPointer(frag); err != nil {
			return target{}, fmt.Errorf("%w: %w", ErrUnresolved, err)
		}
	}
	return target{file: abs, pointer: frag}, nil
}

// realPath is the package's realPath, asked once per path and compile:
// every $ref to a file asks it of the root and of the file, and each
// answer costs a stat of every element of the path. The file itself is
// read through the reader, which confines what it opens as it opens it:
// this is the early check, for a clear message.
func (r *run) realPath(p string) string {
	rp, ok := r.real[p]
	if !ok {
		if r.real == nil {
			r.real = map[string]string{}
		}
		rp = realPath(p)
		r.real[p] = rp
	}
	return rp
}

// realPath resolves symlinks as far as the path exists.
func realPath(p string) string {
	if rp, err := filepath.EvalSymlinks(p); err == nil {
		return rp
	}
	dir, base := filepath.Split(p)
	if dir == "" || filepath.Clean(dir) == p {
		return p
	}
	return filepath.Join(realPath(filepath.Clean(dir)), base)
}

// loadFile reads and parses a referenced file once per Compiler.
func (r *run) loadFile(abs string) ([]*document, error) {
	r.readLog = append(r.readLog, abs)
	if _, ok := r.display[abs]; !ok {
		r.display[abs] = fileio.Rel(r.c.opts.WorkDir, abs)
	}
	if docs, ok := r.c.files[abs]; ok {
		return docs, nil
	}
	src, err := r.reader().ReadFile(abs)
	if err != nil {
		return nil, r.readError(abs, err)
	}
	// Parsed once per Compiler (cached), so bounded by a budget of its
	// own; what the compile takes from it counts against the compile.
	// A parse the caller made of the same bytes is that parse.
	b := newBudget(r.c.opts.Budget)
	var docs []*document
	if s := r.c.opts.Parsed[abs]; s.reusable(r.display[abs], b.Limit) && s.holds(src) {
		docs, err = s.docs, s.err
	} else {
		docs, err = docread.ParseWithin(r.display[abs], src, b)
	}
	if err != nil { // an *Error or a non-empty ErrorList
		r.errs = append(r.errs, asList(err)...)
		r.c.files[abs] = []*document{}
		return nil, fmt.Errorf("%w: %s cannot be read (see above)", ErrUnresolved, r.display[abs])
	}
	r.c.files[abs] = docs
	return docs, nil
}

// reader is the run's door for reading files: regular files only, at most
// MaxInputBytes, confined to the root unless AllowOutsideRoot.
func (r *run) reader() *fileio.Reader {
	if r.files == nil {
		r.files = fileio.NewReader(r.root, r.c.opts.AllowOutsideRoot, MaxInputBytes)
	}
	return r.files
}

// readError words a refused or failed read of the referenced file abs.
func (r *run) readError(abs string, err error) error {
	var fe *fileio.Error
	if !errors.As(err, &fe) {
		return fmt.Errorf("%w: %w", ErrUnresolved, err)
	}
	cause := ErrUnresolved
	switch {
	case errors.Is(err, fileio.ErrOutsideRoot):
		cause = ErrOutsideRoot
	case errors.Is(err, fileio.ErrNotRegular), errors.Is(err, fileio.ErrTooLarge):
		cause = ErrInput
	case errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fileio.ErrDanglingLink):
		return fmt.Errorf("%w: no file %s%s", ErrUnresolved, r.display[abs], r.suggestFile(abs))
	}
	return fmt.Errorf("%w: %s %s", cause, r.display[abs], fe.Msg)
}

// suggestFile names the closest existing file for a missing one.
func (r *run) suggestFile(abs string) string {
	names, err := r.reader().DirNames(filepath.Dir(abs))
	if err != nil {
		return " (its directory does not exist either)"
	}
	return suggest.DidYouMean(filepath.Base(abs), names)
}
