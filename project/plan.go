package project

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
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
	// Name is Path as the user opens it (Project.Shown), slash-separated.
	Name  string
	State State
	// Template names the template producing the file, as Shown ("" for
	// an orphan).
	Template string
	// From is, for an orphan, the template its generated header names
	// (project-relative, as written in the header).
	From string
	// OldHeader is, for a stale file, its first line (without the
	// newline): the header it was generated with, or whatever it held.
	OldHeader string
	// Unsealed is, for an orphan, that it looks generated but is not
	// sealed (Sealed): edited since, or written before seals. Build keeps
	// it (Kept) unless forced.
	Unsealed bool

	staged   *fileio.Staged // the new content, waiting for Apply
	stageErr error          // why it could not be staged
}

// PlanOptions say what Plan does besides comparing.
type PlanOptions struct {
	// Orphans also lists every generated file that no template of the
	// project produces, whatever outs holds (file arguments select outs;
	// the orphans are the project's): each generated file in the output
	// directories of the sets, and each generated file elsewhere in the
	// project named as the output of the template its header names (an
	// output directory the configuration no longer lists). See orphans.
	Orphans bool
	// Stage writes the new content of each stale or missing file into a
	// temporary file beside it as soon as it is compared, for Apply to
	// rename (what build does). A file that cannot be staged is reported
	// by Apply, with every other.
	Stage bool
	// Compare, when not nil, is called for each stale or missing file as
	// soon as its state is known, on the worker that compared it: current
	// is the file on disk (nil when missing), want the compiled content.
	// Both are valid only during the call (their buffers are reused):
	// keep what a report needs (Diff's text, a schema comparison), never
	// the bytes. Calls for different files run concurrently.
	Compare func(fs *FileStatus, o *Output, current, want []byte)
}

// Plan is how the output files compare with the compiled outputs and,
// when Project.Plan was asked to stage, the new content of every stale
// and missing file, written to temporary files that Apply renames. Close
// removes what Apply did not rename.
type Plan struct {
	// Files holds one FileStatus per output path (and orphan), sorted by
	// name.
	Files []*FileStatus

	w        *fileio.Writer // the door staging writes through; nil without Stage
	want     *expected      // the seals of what stale files get (see replaces)
	force    bool           // --force: unsealed orphans go too
	peak     int            // the most outputs rendered at once (a test's)
	streamed atomic.Int64   // outputs rendered straight into their file (a test's)
}

// Plan compares outs with the files on disk, one FileStatus per output
// path, sorted by name; with opts.Orphans, it also lists the orphans.
// Outputs are read back through the project's door: an output path that
// is a FIFO, a device, a directory, a link out of the project, or larger
// than the input limit is an error (the first of outs' order), and
// nothing of it is read or shown; nothing staged is then left behind.
//
// The outputs go through a window of one worker per core (GOMAXPROCS),
// largest first: each takes the next output, renders it into a buffer it
// reuses (or, missing and written to one file, straight into that file:
// streamMissing), reads each of its files into another, decides the state,
// and calls opts.Compare or stages the file. Neither the compiled nor the
// old content of more outputs than there are workers is alive at once,
// whatever the size of the project.
func (p *Project) Plan(outs []*Output, opts PlanOptions) (_ *Plan, err error) {
	pl := &Plan{want: &expected{}, force: p.opts.Force}
	if opts.Stage {
		pl.w = p.outputWriter(outs, pl.want)
	}
	defer func() {
		if err != nil {
			pl.Close()
		}
	}()
	statuses := make([][]*FileStatus, len(outs))
	errs := make([]error, len(outs))
	workers := min(runtime.GOMAXPROCS(0), len(outs))
	var failed atomic.Int64 // the first output that failed
	failed.Store(int64(len(outs)))
	// Largest first (resolver.Result.YAMLSize: about the size of what
	// Append writes): a worker's buffers then grow once, to the largest
	// output, instead of once per larger output.
	order := make([]int, len(outs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(outs[b].res.YAMLSize(), outs[a].res.YAMLSize()) })
	var next, live, peak atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var want, cur []byte // reused for every output of the worker
			for j := next.Add(1) - 1; j < int64(len(order)); j = next.Add(1) - 1 {
				i := order[j]
				if int64(i) > failed.Load() {
					continue // after a failure: an earlier one is reported
				}
				storeMax(&peak, live.Add(1))
				statuses[i], want, cur, errs[i] = p.planOutput(pl, outs[i], opts, want[:0], cur[:0])
				live.Add(-1)
				if errs[i] != nil {
					storeMin(&failed, int64(i))
				}
			}
		})
	}
	wg.Wait()
	pl.peak = int(peak.Load())
	for i := range outs {
		pl.Files = append(pl.Files, statuses[i]...) // all of them: Close aborts what is staged
	}
	if f := failed.Load(); f < int64(len(outs)) {
		return nil, errs[f]
	}
	if opts.Orphans {
		orphans, err := p.orphans()
		if err != nil {
			return nil, err
		}
		pl.Files = append(pl.Files, orphans...)
	}
	slices.SortFunc(pl.Files, func(a, b *FileStatus) int { return strings.Compare(a.Name, b.Name) })
	return pl, nil
}

func storeMax(a *atomic.Int64, v int64) {
	for old := a.Load(); v > old && !a.CompareAndSwap(old, v); old = a.Load() {
	}
}

func storeMin(a *atomic.Int64, v int64) {
	for old := a.Load(); v < old && !a.CompareAndSwap(old, v); old = a.Load() {
	}
}

// planOutput renders o into want, compares it with each of its files
// (read into cur) and acts on those that differ; it returns the buffers
// for the next output.
func (p *Project) planOutput(pl *Plan, o *Output, opts PlanOptions, want, cur []byte) (_ []*FileStatus, _, _ []byte, err error) {
	if len(o.Template.Outputs) == 0 {
		return nil, want, cur, nil
	}
	// The first file is read before the output is rendered: missing, and
	// the only one, it is rendered straight into its temporary file
	// (streamMissing).
	cur, readErr := p.reader.AppendFile(cur[:0], o.Template.Outputs[0])
	if missing(readErr) {
		if fs, ok, err := p.streamMissing(pl, o, opts); ok || err != nil {
			return fs, want, cur, err
		}
	}
	want, err = o.Append(want)
	if err != nil {
		return nil, want, cur, err
	}
	var out []*FileStatus
	for i, path := range o.Template.Outputs {
		fs := &FileStatus{Path: path, Name: p.Shown(path), Template: p.Shown(o.Template.Path)}
		var current []byte
		err := readErr
		if i > 0 {
			cur, err = p.reader.AppendFile(cur[:0], path)
		}
		switch {
		case missing(err):
			fs.State = Missing
		case err != nil:
			return out, want, cur, fmt.Errorf("output of %s: %w", o.Template.Name, err) // out: what it staged, to abort
		case bytes.Equal(cur, want):
			fs.State = Unchanged
		default:
			fs.State, current = Stale, cur
			line, _, _ := bytes.Cut(cur, []byte("\n"))
			fs.OldHeader = string(bytes.TrimSuffix(line, []byte("\r")))
		}
		out = append(out, fs)
		if fs.State == Unchanged {
			continue
		}
		if opts.Compare != nil {
			opts.Compare(fs, o, current, want)
		}
		if pl.w != nil {
			if fs.State == Stale {
				pl.want.store(path, want)
			}
			fs.staged, fs.stageErr = pl.w.Stage(path, func(wr io.Writer) error {
				_, err := wr.Write(want)
				return err
			})
		}
	}
	return out, want, cur, nil
}

// missing reports whether a read or stat through the door found nothing
// there (a dangling link is something: it is refused).
func missing(err error) bool {
	return errors.Is(err, iofs.ErrNotExist) && !errors.Is(err, fileio.ErrDanglingLink)
}

// streamMissing stages o's one output file, missing, when build asks for
// nothing else (no Compare), by rendering o straight into the temporary
// file, a bounded piece at a time: the text is never held whole. ok
// reports whether it did.
// An output written to several paths is rendered once into a buffer
// instead (planOutput), as is one to compare with a file on disk.
func (p *Project) streamMissing(pl *Plan, o *Output, opts PlanOptions) (_ []*FileStatus, ok bool, err error) {
	if pl.w == nil || opts.Compare != nil || len(o.Template.Outputs) != 1 {
		return nil, false, nil
	}
	path := o.Template.Outputs[0]
	fs := &FileStatus{Path: path, Name: p.Shown(path), Template: p.Shown(o.Template.Path), State: Missing}
	var renderErr error
	fs.staged, fs.stageErr = pl.w.Stage(path, func(w io.Writer) error {
		renderErr = o.Render(w)
		return renderErr
	})
	if renderErr != nil { // the temporary file is gone (Stage aborts it)
		return nil, false, fmt.Errorf("%s: %w", o.Template.Name, renderErr)
	}
	pl.streamed.Add(1)
	return []*FileStatus{fs}, true, nil
}

// orphans lists the generated files of the project that no template
// produces: in the output directories of all sets, every one; elsewhere
// under the project directory (hidden directories, testdata, vendor,
// node_modules and directories of other projects or repositories left
// out), those that bear the name build gives an output of the template
// their header names (dist/w.yaml from templates/w.yaml), so an output
// directory dropped from the configuration leaves nothing behind. A copy
// under another name (old.yaml) is left alone; one under the output's
// name (resolve -o deploy/w.yaml) is an orphan: its directory belongs in
// a set's outputs. A file elsewhere that cannot be read is no orphan (it
// is nothing build would remove); one in an output directory is an error.
func (p *Project) orphans() ([]*FileStatus, error) {
	w := p.writer(nil, nil, nil)
	defer w.Close()
	planned := map[string]bool{}
	templates := map[string]bool{}
	for _, t := range p.Templates {
		templates[t.Name] = true
		for _, path := range t.Outputs {
			planned[path] = true
		}
	}
	dirs := map[string]bool{}
	for _, s := range p.Config.Sets {
		for _, d := range s.Outputs {
			dirs[p.abs(d)] = true
		}
	}
	var out []*FileStatus
	seen := map[string]bool{}
	consider := func(path string, inOutputDir bool) error {
		if planned[path] || seen[path] {
			return nil
		}
		line, err := w.FirstLine(path)
		if err != nil {
			if inOutputDir {
				return err
			}
			return nil
		}
		from, ok := GeneratedFrom(line)
		if ok && (inOutputDir || templates[from] && filepath.Base(path) == outputName(from)) {
			seen[path] = true
			sealed, err := p.sealedOrphan(path)
			if err != nil {
				return err
			}
			out = append(out, &FileStatus{Path: path, Name: p.Shown(path), State: Orphan, From: from, Unsealed: !sealed})
		}
		return nil
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		entries, err := w.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !isYAMLName(e.Name()) {
				continue
			}
			if err := consider(filepath.Join(dir, e.Name()), true); err != nil {
				return nil, err
			}
		}
	}
	err := filepath.WalkDir(p.Dir, func(path string, d iofs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // an unreadable directory holds nothing this tool wrote
		case d.IsDir() && path != p.Dir:
			if SkippedDir(d.Name()) || dirs[path] {
				return filepath.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(path, ConfigFileName)); err == nil {
				return filepath.SkipDir // another project's
			}
			if _, err := os.Lstat(filepath.Join(path, ".git")); err == nil {
				return filepath.SkipDir // another repository's
			}
			return nil
		case !d.Type().IsRegular() || !isYAMLName(d.Name()) || fileio.IsTemp(d.Name()):
			return nil
		}
		return consider(path, false)
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *FileStatus) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// SkippedDir reports whether a directory of this name is left out of the
// searches through a tree (generated files, projects below): hidden ones (.git), and those
// that by convention hold other people's files or test fixtures.
func SkippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules"
}

// outputWriter is the door build writes outs through: no file they read
// (nor the configuration) is ever overwritten.
func (p *Project) outputWriter(outs []*Output, want *expected) *fileio.Writer {
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
	return p.writer(inputs, crds, want)
}

// writer returns the door the project writes through; inputs are the
// files that must never be overwritten, crds the names of the CRDs each
// output path receives (a file without the header holding exactly such a
// CRD is taken over: see TakesOver).
func (p *Project) writer(inputs []string, crds map[string][]string, want *expected) *fileio.Writer {
	return fileio.NewWriter(fileio.WriterOptions{
		Root:         p.Dir,
		AllowOutside: p.AllowOutsideRoot(),
		Owned:        IsGeneratedLine,
		Verify:       Sealed,
		Replaces:     replaces(crds, want),
		Force:        p.opts.Force,
		Inputs:       inputs,
	})
}

func isYAMLName(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// Apply brings the files of the plan up to date: it renames the staged
// stale and missing files into place and removes orphans (files this tool
// generated, sealed: an unsealed one is Kept unless forced), through the
// project's door. The plan must have been made
// with Stage: every file was written to a temporary file beside it then;
// only when all of them were written are they renamed into place, so a
// failure while writing (a full disk, a refused target) changes nothing,
// and every file that failed is reported, in plan order (a project
// switching tools learns of all the files it must move or --force in one
// run). Each rename is atomic; an interrupt (SIGINT, SIGTERM) leaves all of
// them done or none (fileio.WriteAll), a crash between two leaves some
// files updated. Orphans are moved aside before any rename (a directory
// where one cannot be removed fails the run with every output as it was)
// and removed last. It returns the statuses it acted on. Unchanged files are not touched, so their
// modification times stay.
func (pl *Plan) Apply() ([]*FileStatus, error) {
	if pl.w == nil {
		return nil, errors.New("project: Apply of a plan made without Stage")
	}
	var pending []*FileStatus
	var errs []error
	for _, fs := range pl.Files {
		if fs.State == Stale || fs.State == Missing {
			pending = append(pending, fs)
			errs = append(errs, fs.stageErr)
		}
	}
	if err := errors.Join(errs...); err != nil {
		pl.abort()
		return nil, err
	}
	// The orphans to remove are moved aside first (what would make a
	// removal fail, a read-only directory, fails now, before any rename),
	// and removed last.
	staged := make([]*fileio.Staged, 0, len(pending))
	for _, fs := range pending {
		staged = append(staged, fs.staged)
		fs.staged = nil
	}
	removed, aside, err := pl.moveOrphansAside()
	if err != nil {
		for _, s := range staged {
			s.Abort()
		}
		return nil, err
	}
	// Renamed, then removed, as one step against SIGINT and SIGTERM.
	staged = append(staged, aside...)
	if _, err := fileio.WriteAll(len(staged), func(i int) (*fileio.Staged, error) { return staged[i], nil }); err != nil {
		return nil, err
	}
	return append(pending, removed...), nil
}

// abort removes the temporary files not renamed.
func (pl *Plan) abort() {
	for _, fs := range pl.Files {
		if fs.staged != nil {
			fs.staged.Abort()
			fs.staged = nil
		}
	}
}

// Close removes the temporary files Apply did not rename and releases the
// door. It may be called more than once.
func (pl *Plan) Close() {
	pl.abort()
	if pl.w != nil {
		pl.w.Close()
		pl.w = nil
	}
}

// Diff renders a unified diff (3 lines of context) from current, the file
// on disk, to want, the compiled content (what PlanOptions.Compare is
// given). It is "" for an unchanged file.
func Diff(fs *FileStatus, current, want []byte) string {
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
		A:        splitLines(current),
		B:        splitLines(want),
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

// ReadOutput reads an output file (an orphan's, say) through the project's door.
func (p *Project) ReadOutput(path string) ([]byte, error) {
	return p.reader.ReadFile(path)
}
