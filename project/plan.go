package project

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/atomicfile"
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
	// Current is the file's content on disk (nil when missing).
	Current []byte
	// Want is the compiled content (nil for an orphan).
	Want []byte
}

// Plan compares outs with the files on disk, one FileStatus per output
// path, sorted by name. With orphans, it also lists every generated file
// in the output directories of all sets that no output produces; pass it
// only when outs holds every template.
func (p *Project) Plan(outs []*Output, orphans bool) ([]*FileStatus, error) {
	var plan []*FileStatus
	planned := map[string]bool{}
	for _, o := range outs {
		for _, path := range o.Template.Outputs {
			fs := &FileStatus{Path: path, Name: p.Rel(path), Template: o.Template.Name, Want: o.Data}
			cur, err := os.ReadFile(path)
			switch {
			case errors.Is(err, os.ErrNotExist):
				fs.State = Missing
			case err != nil:
				return nil, err
			case bytes.Equal(cur, o.Data):
				fs.Current, fs.State = cur, Unchanged
			default:
				fs.Current, fs.State = cur, Stale
			}
			planned[path] = true
			plan = append(plan, fs)
		}
	}
	if orphans {
		dirs := map[string]bool{}
		for _, s := range p.Config.Sets {
			for _, d := range s.Outputs {
				dirs[p.abs(d)] = true
			}
		}
		for dir := range dirs {
			entries, err := os.ReadDir(dir)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			for _, e := range entries {
				path := filepath.Join(dir, e.Name())
				if planned[path] || !e.Type().IsRegular() || !isYAMLName(e.Name()) {
					continue
				}
				cur, err := os.ReadFile(path)
				if err != nil {
					return nil, err
				}
				if IsGenerated(cur) {
					plan = append(plan, &FileStatus{Path: path, Name: p.Rel(path), State: Orphan, Current: cur})
				}
			}
		}
	}
	slices.SortFunc(plan, func(a, b *FileStatus) int { return strings.Compare(a.Name, b.Name) })
	return plan, nil
}

func isYAMLName(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// Apply brings the files of plan up to date: it writes stale and missing
// files atomically and removes orphans (files this tool generated). It
// returns the statuses it acted on. Unchanged files are not touched, so
// their modification times stay.
func Apply(plan []*FileStatus) ([]*FileStatus, error) {
	var done []*FileStatus
	for _, fs := range plan {
		var err error
		switch fs.State {
		case Unchanged:
			continue
		case Stale, Missing:
			err = atomicfile.Write(fs.Path, fs.Want)
		case Orphan:
			err = os.Remove(fs.Path)
		}
		if err != nil {
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
