package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/parallel"
)

// State is how an output file on disk compares with the compiled CRD.
type State int

// Output file states.
const (
	// Unchanged: the file holds exactly the compiled bytes.
	Unchanged State = iota
	// Stale: the file exists with other bytes.
	Stale
	// Missing: the file does not exist.
	Missing
	// Orphan: the file carries the generated header, but no template
	// produces it any more.
	Orphan
)

var stateNames = [...]string{"unchanged", "stale", "missing", "orphan"}

// String is the lower-case name of the state, as used in JSON output.
func (s State) String() string { return stateNames[s] }

// MarshalText renders the state's name.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// FileStatus is one output file and how it compares.
type FileStatus struct {
	// Path is the file's absolute path.
	Path string
	// Name is Path relative to the project directory, slash-separated.
	Name  string
	State State
	// Template names the template producing the file ("" for an orphan).
	Template string
	// Current is the file's content on disk (nil when missing or
	// unchanged).
	Current []byte
	// Want is the compiled content (nil for an orphan).
	Want []byte
}

// Plan compares outs with the files on disk, one FileStatus per output
// path, sorted by name. With orphans, it also lists every generated file
// in the output directories of all sets that no output produces; pass it
// only when outs holds every template. Outputs are read back through the
// project's door: an output path that is a FIFO, a device, a directory, a
// link out of the project, or larger than the input limit is an error,
// and nothing of it is read or shown.
func (p *Project) Plan(outs []*Output, orphans bool) ([]*FileStatus, error) {
	var plan []*FileStatus
	planned := map[string]bool{}
	for _, o := range outs {
		for _, path := range o.Template.Outputs {
			fs := &FileStatus{Path: path, Name: p.Rel(path), Template: o.Template.Name, Want: o.Data}
			cur, err := p.reader.ReadFile(path)
			switch {
			case errors.Is(err, iofs.ErrNotExist) && !errors.Is(err, fileio.ErrDanglingLink):
				fs.State = Missing
			case err != nil:
				return nil, fmt.Errorf("output of %s: %w", o.Template.Name, err)
			case bytes.Equal(cur, o.Data):
				fs.State = Unchanged // its copy is not kept: an up-to-date build held every output twice
			default:
				fs.Current, fs.State = cur, Stale
			}
			planned[path] = true
			plan = append(plan, fs)
		}
	}
	if orphans {
		w := p.writer(nil, nil)
		defer w.Close()
		dirs := map[string]bool{}
		for _, s := range p.Config.Sets {
			for _, d := range s.Outputs {
				dirs[p.abs(d)] = true
			}
		}
		for _, dir := range slices.Sorted(maps.Keys(dirs)) {
			entries, err := w.ReadDir(dir)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				path := filepath.Join(dir, e.Name())
				if planned[path] || !e.Type().IsRegular() || !isYAMLName(e.Name()) {
					continue
				}
				line, err := w.FirstLine(path)
				if err != nil {
					return nil, err
				}
				if IsGeneratedLine(line) {
					plan = append(plan, &FileStatus{Path: path, Name: p.Rel(path), State: Orphan, Current: line})
				}
			}
		}
	}
	slices.SortFunc(plan, func(a, b *FileStatus) int { return strings.Compare(a.Name, b.Name) })
	return plan, nil
}

// writer returns the door the project writes through; inputs are the
// files that must never be overwritten, crds the names of the CRDs each
// output path receives (a file without the header holding exactly such a
// CRD is taken over: see TakesOver).
func (p *Project) writer(inputs []string, crds map[string][]string) *fileio.Writer {
	return fileio.NewWriter(fileio.WriterOptions{
		Root:         p.Dir,
		AllowOutside: p.AllowOutsideRoot(),
		Owned:        IsGeneratedLine,
		Replaces:     func(abs string, old *io.SectionReader) bool { return TakesOver(old, crds[abs]) },
		Force:        p.opts.Force,
		Inputs:       inputs,
	})
}

func isYAMLName(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// Apply brings the files of plan up to date: it writes stale and missing
// files and removes orphans (files this tool generated), through the
// project's door. Every file is first written to a temporary file beside
// it; only when all of them are written are they renamed into place, so a
// failure while writing (a full disk, a refused target) changes nothing.
// Each rename is atomic; the set of renames is not (a crash between two
// leaves some files updated). Orphans are removed last. It returns the
// statuses it acted on. Unchanged files are not touched, so their
// modification times stay. outs are the compiled outputs: no file they
// read is ever overwritten.
func (p *Project) Apply(plan []*FileStatus, outs []*Output) ([]*FileStatus, error) {
	inputs := []string{}
	if p.ConfigFile != "" {
		inputs = append(inputs, p.ConfigFile)
	}
	crds := map[string][]string{}
	for _, o := range outs {
		inputs = append(inputs, o.Files...)
		for _, path := range o.Template.Outputs {
			crds[path] = o.CRDs
		}
	}
	w := p.writer(inputs, crds)
	defer w.Close()
	var pending []*FileStatus
	for _, fs := range plan {
		if fs.State == Stale || fs.State == Missing {
			pending = append(pending, fs)
		}
	}
	// Staged on every core (writing the files is a sixth of a build that
	// writes them all); a failure aborts every one, and every failure is
	// reported, in plan order (a project switching tools learns of all
	// the files it must move or --force in one run).
	staged := make([]*fileio.Staged, len(pending))
	errs := make([]error, len(pending))
	parallel.Each(len(pending), func(i int) {
		staged[i], errs[i] = w.Stage(pending[i].Path, func(wr io.Writer) error {
			_, err := wr.Write(pending[i].Want)
			return err
		})
	})
	if err := errors.Join(errs...); err != nil {
		for _, s := range staged {
			if s != nil {
				s.Abort()
			}
		}
		return nil, err
	}
	var done []*FileStatus
	for i, s := range staged {
		if err := s.Commit(); err != nil {
			for _, rest := range staged[i+1:] {
				rest.Abort()
			}
			return done, err
		}
		done = append(done, pending[i])
	}
	for _, fs := range plan {
		if fs.State != Orphan {
			continue
		}
		if err := w.Remove(fs.Path); err != nil {
			return done, err
		}
		done = append(done, fs)
	}
	return done, nil
}

// Diff renders a unified diff (3 lines of context) from the file on disk
// to the compiled content. It is "" for an unchanged file.
func Diff(fs *FileStatus) string {
	if fs.State == Unchanged {
		return ""
	}
	from, to := "a/"+fs.Name, "b/"+fs.Name
	if fs.State == Missing {
		from = "/dev/null"
	}
	if fs.State == Orphan {
		to = "/dev/null"
	}
	d := difflib.UnifiedDiff{
		A:        splitLines(fs.Current),
		B:        splitLines(fs.Want),
		FromFile: from,
		ToFile:   to,
		Context:  3,
	}
	s, err := difflib.GetUnifiedDiffString(d)
	if err != nil { // only write errors, impossible for a string builder
		return fmt.Sprintf("(no diff: %v)\n", err)
	}
	return s
}

// splitLines splits data into lines that keep their "\n"; a last line
// without one is marked the way diff(1) does.
func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if last := lines[len(lines)-1]; last == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] = last + "\n\\ No newline at end of file\n"
	}
	return lines
}

// ReadOutput reads an output file (a stale or orphan one, whose Current holds only its first
// line for an orphan) through the project's door.
func (p *Project) ReadOutput(path string) ([]byte, error) {
	return p.reader.ReadFile(path)
}
