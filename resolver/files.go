package resolver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Reading the files $refs point at. Every read goes through the one
// reader (internal/fileio).

func (r *run) fileTarget(abs, frag string) (target, error) {
	abs = filepath.Clean(abs)
	if !r.c.opts.AllowOutsideRoot {
		if !within(r.root, abs) || !within(realPath(r.root), realPath(abs)) {
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
	r.noteRead(abs)
	if _, ok := r.display[abs]; !ok {
		if rel, err := filepath.Rel(r.c.opts.WorkDir, abs); err == nil && !strings.HasPrefix(rel, "..") {
			r.display[abs] = filepath.ToSlash(rel)
		} else {
			r.display[abs] = abs
		}
	}
	if docs, ok := r.c.files[abs]; ok {
		return docs, nil
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: no file %s%s", ErrUnresolved, r.display[abs], suggestFile(abs))
		}
		return nil, fmt.Errorf("%w: %w", ErrUnresolved, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is a directory", ErrUnresolved, r.display[abs])
	}
	if fi.Size() > MaxInputBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than the %d MiB limit", ErrInput, r.display[abs], fi.Size(), MaxInputBytes>>20)
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnresolved, err)
	}
	docs, err := parseDocuments(r.display[abs], src)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			r.errs = append(r.errs, e)
			r.c.files[abs] = []*document{}
			return nil, fmt.Errorf("%w: %s cannot be read (see above)", ErrUnresolved, r.display[abs])
		}
		return nil, err
	}
	r.c.files[abs] = docs
	return docs, nil
}

// noteRead records that the compile read file abs (for Result.Files).
func (r *run) noteRead(abs string) {
	r.readLog = append(r.readLog, abs)
}

// suggestFile names the closest existing file for a missing one.
func suggestFile(abs string) string {
	entries, err := os.ReadDir(filepath.Dir(abs))
	if err != nil {
		return " (its directory does not exist either)"
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return didYouMean(filepath.Base(abs), names)
}
