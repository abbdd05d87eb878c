package project

import (
	"io"
	"path/filepath"
	"sync"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
)

// What is the tool's own output. A file counts as one only when its
// header parses and its seal matches (Sealed): then build may replace or
// remove it. A file that only looks generated (a header, but no seal or a
// seal that does not match: edited since, or copied and edited) is
// reported, never removed, and replaced only with --force, or when the
// bytes after its header are exactly what build writes there now (an
// output of a k8s-crd-resolver older than seals: the upgrade rewrites it
// silently).

// ownOutput reports whether file, whose content is src, matched by a
// template glob, is an output rather than a template: a file a glob
// matches is a template whatever its first line, unless it lies in one of
// the project's output directories and is the tool's own unchanged output
// (sealed, or in the format before seals).
func (p *Project) ownOutput(file string, src []byte) bool {
	return p.inOutputDir(file) && unchangedOutput(src)
}

// unchangedOutput reports whether data is the tool's own unchanged output:
// sealed, or in the format before seals (which nothing can prove edited).
func unchangedOutput(data []byte) bool {
	line, _, ok := fileio.SplitSealed(data)
	if !ok {
		return false
	}
	h, ok := ParseHeader(line)
	return ok && (h.Seal == "" || Sealed(data))
}

// inOutputDir reports whether file lies directly in an output directory
// of one of the project's sets.
func (p *Project) inOutputDir(file string) bool {
	dir := filepath.Dir(file)
	for _, s := range p.Config.Sets {
		for _, d := range s.Outputs {
			if p.abs(d) == dir {
				return true
			}
		}
	}
	return false
}

// expected holds, by output path, the seal of what a plan writes there:
// a file that looks generated but is not sealed is still replaced when
// the bytes after its first line have that seal (replaces).
type expected struct{ m sync.Map }

func (e *expected) store(path string, want []byte) {
	if e == nil {
		return
	}
	if line, _, ok := fileio.SplitSealed(want); ok {
		if h, ok := ParseHeader(line); ok {
			e.m.Store(path, h.Seal)
		}
	}
}

func (e *expected) seal(path string) (string, bool) {
	if e == nil {
		return "", false
	}
	v, ok := e.m.Load(path)
	if !ok {
		return "", false
	}
	return v.(string), true
}

// replaces is the writer's rule for a file it would replace that is not
// sealed: one that looks generated is replaced when what follows its
// header is what the plan writes (want); one without the header when it
// is a CustomResourceDefinition of the name being written (TakesOver: the
// Python tool's outputs carry no header).
func replaces(crds map[string][]string, want *expected) func(abs string, old *io.SectionReader) bool {
	return func(abs string, old *io.SectionReader) bool {
		var head [headerPeek]byte
		n, _ := old.ReadAt(head[:], 0)
		if !IsGenerated(head[:n]) {
			return TakesOver(old, crds[abs])
		}
		seal, ok := want.seal(abs)
		if !ok || old.Size() > maxTakeoverBytes {
			return false
		}
		data, err := io.ReadAll(io.NewSectionReader(old, 0, old.Size()))
		if err != nil {
			return false
		}
		return fileio.Verify(data, func(line []byte) (string, bool) { return seal, IsGeneratedLine(line) })
	}
}

// headerPeek is how much of a file replaces reads to find its header.
const headerPeek = 4096

// sealedOrphan reads the orphan path (through the project's door) and
// reports whether it is sealed.
func (p *Project) sealedOrphan(path string) (bool, error) {
	data, err := p.reader.ReadFile(path)
	if err != nil {
		return false, err
	}
	return Sealed(data), nil
}

// Kept reports whether build leaves the orphan fs where it is: it is not
// sealed (Unsealed) and --force was not given.
func (pl *Plan) Kept(fs *FileStatus) bool {
	return fs.State == Orphan && fs.Unsealed && !pl.force
}

// moveOrphansAside moves every orphan build removes aside (fileio's
// Aside), in plan order; on a failure it puts back those it moved and
// returns the error.
func (pl *Plan) moveOrphansAside() (removed []*FileStatus, aside []*fileio.Staged, err error) {
	for _, fs := range pl.Files {
		if fs.State != Orphan || pl.Kept(fs) {
			continue
		}
		s, err := pl.w.Aside(fs.Path)
		if err != nil {
			for _, a := range aside {
				a.Abort()
			}
			return nil, nil, err
		}
		removed = append(removed, fs)
		if s != nil {
			aside = append(aside, s)
		}
	}
	return removed, aside, nil
}
