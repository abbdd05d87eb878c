package fileio

import (
	"io"
	"path/filepath"
	"slices"
)

// ExplicitRoot returns the directory an explicit path abs (absolute, as
// the user typed it) stays confined to: root when abs is below it, else
// the git work tree holding it, else "" (abs is in no project). A caller
// writing files whose names it made below such a path (export's -o DIR)
// gives a Writer this root, so that every name is confined as a
// repository's would be.
func ExplicitRoot(abs, root string) string { return explicitRoot(absClean(abs), absClean(root)) }

// StageKeep is Stage, except that a file already holding exactly what write
// produces is left as it is (the Staged is Unchanged, and Commit does
// nothing): a run staging several files before committing any keeps the
// time stamps of those it does not change, as WriteFile does.
func (w *Writer) StageKeep(name string, write func(io.Writer) error) (*Staged, error) {
	return w.stage(name, write, true)
}

// ListedExtensions are the files a directory argument stands for: its
// *.yaml, *.yml and *.json files (not its subdirectories').
var ListedExtensions = []string{"*.yaml", "*.yml", "*.json"}

// ReadListed reads the files of dir (a directory the user named) that
// match ListedExtensions, sorted by name. The directory is the user's
// intent; the names found in it are not: each must be a regular file (a
// FIFO, device, socket or directory found by listing is an error saying
// what it is, never opened blocking), read within the limit, and confined
// as ReadExplicit confines.
func (r *Reader) ReadListed(dir string) (names []string, contents [][]byte, err error) {
	names, err = ListNames(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range names {
		b, err := r.readExplicit(n, false)
		if err != nil {
			return nil, nil, err
		}
		contents = append(contents, b)
	}
	return names, contents, nil
}

// ListNames returns the names of the files of dir that match
// ListedExtensions, sorted: what ReadListed reads, for a caller opening
// each with OpenListed.
func ListNames(dir string) ([]string, error) {
	var names []string
	for _, ext := range ListedExtensions {
		m, err := filepath.Glob(filepath.Join(dir, ext))
		if err != nil {
			return nil, err
		}
		names = append(names, m...)
	}
	slices.Sort(names)
	return names, nil
}

// OpenListed opens name, found by listing a directory (ListNames), as
// ReadListed reads it (a regular file, confined as ReadExplicit confines),
// and returns a reader of it within the size limit, as OpenExplicit does.
// The caller closes it.
func (r *Reader) OpenListed(name string) (io.ReadCloser, error) {
	return r.openLimited(name, false)
}
