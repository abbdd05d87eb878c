package project

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
)

// Neighbours: what lives beside a project's templates and is none of them
// (a Helm chart's templates, JSON with comments, manifests of other kinds,
// files with typos), and the other projects of the same repository.

// crdKindRE matches a line that names the kind CustomResourceDefinition:
// a YAML key in block or flow style (the first entry of a sequence item
// too) or a JSON member, wherever it stands on the line (a one-line JSON
// document). Linear (RE2), one line at a time.
var crdKindRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s{,\[])(?:kind|"kind"|'kind')\s*:\s*(?:CustomResourceDefinition|"CustomResourceDefinition"|'CustomResourceDefinition')\s*(?:$|[,}\]#])`)
})

// crdKindLine returns the 1-based number of the first line of src that
// names the kind CustomResourceDefinition (crdKindRE), or 0. A file that
// cannot be read as YAML is a template (whose compile reports the problem)
// only when such a line says it could be one; otherwise it is a neighbour
// (a Helm template, JSON with comments, a typo in some other manifest),
// skipped.
func crdKindLine(src []byte) int {
	for n := 1; len(src) > 0; n++ {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if bytes.Contains(line, []byte("CustomResourceDefinition")) && crdKindRE().Match(bytes.TrimSuffix(line, []byte("\r"))) {
			return n
		}
	}
	return 0
}

// whyTemplate adds to err, the compile error of t, why t was taken for a
// CRD template when Open could not parse it (classify): the line naming
// the kind, read again through the door on this error path only.
func (p *Project) whyTemplate(t *Template, err error) error {
	if t.source.Err() == nil {
		return err
	}
	src, rerr := p.readMatched(t.Path)
	if rerr != nil {
		return err
	}
	if line := crdKindLine(src); line > 0 {
		return fmt.Errorf("%w\n%s:%d: taken for a CRD template because this line names kind: CustomResourceDefinition (a file of a set's globs that cannot be read as YAML is skipped unless it names that kind); fix the file, or list it under the set's exclude", err, t.Name, line)
	}
	return err
}

// HelmChartFile names a Helm chart: a directory holding it beside
// templates/ is a chart, whose templates/ are Go templates of manifests,
// never CRD templates.
const HelmChartFile = "Chart.yaml"

// isHelmChart reports whether dir (read through reader) is a Helm chart
// with a templates/ directory: Chart.yaml beside templates/.
func isHelmChart(reader *fileio.Reader, dir string) bool {
	fi, err := reader.Stat(filepath.Join(dir, HelmChartFile))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	fi, err = reader.Stat(filepath.Join(dir, path.Dir(DefaultTemplates)))
	return err == nil && fi.IsDir()
}

// IsHelmChart reports whether dir is a Helm chart with a templates/
// directory (Chart.yaml beside templates/): init refuses to write the
// default set, which would take the chart's templates, there.
func IsHelmChart(dir string) bool {
	reader := fileio.NewReader(dir, false, maxConfigBytes)
	defer reader.Close()
	return isHelmChart(reader, dir)
}

// helmChartConfig is the default configuration of a Helm chart's root: no
// set, so its templates/ are never taken (a CRD project of the repository
// lives in a directory with its own configuration).
func helmChartConfig() *Config { return &Config{} }

// noHelmTemplates is the error of a default project at a Helm chart's root
// that is asked for templates.
func noHelmTemplates(dir string) error {
	return fmt.Errorf("%w: no templates: %s is a Helm chart (%s beside %s/), whose templates/ are Helm's, so the default configuration takes none there; nothing was built or removed: write a %s whose sets name your CRD templates (elsewhere than %s/), or run from the directory of your CRD project",
		ErrConfig, dir, HelmChartFile, path.Dir(DefaultTemplates), ConfigFileName, path.Dir(DefaultTemplates))
}

// ProjectConfig is the configuration of one project of a repository, as
// CheckDisjoint reads it.
type ProjectConfig struct {
	// File is the configuration file, "" for the default project of Dir.
	File string
	// Dir is the project directory.
	Dir string
	// Config is the configuration in effect.
	Config *Config
	// Acting: the run acts on this project. Only a clash involving one
	// such project is reported (two other projects' clash is theirs).
	Acting bool
}

// ReadProjectConfig reads the configuration file (through the door,
// confined to the repository holding it as Open reads it) of the project
// in its directory.
func ReadProjectConfig(wd, file string, allowOutside bool) (ProjectConfig, error) {
	dir := filepath.Dir(file)
	src, err := fileio.NewReader(fileio.ProjectRoot(dir, wd), allowOutside, maxConfigBytes).ReadFile(file)
	if err != nil {
		return ProjectConfig{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	c, err := ParseConfig(shownFrom(wd, dir, file), src)
	if err != nil {
		return ProjectConfig{}, err
	}
	return ProjectConfig{File: file, Dir: dir, Config: c}, nil
}

// DefaultProjectConfig is the configuration of the default project of dir
// (no configuration file), or false when it takes no template there: dir
// is a Helm chart, or has no templates/ directory.
func DefaultProjectConfig(dir string) (ProjectConfig, bool) {
	reader := fileio.NewReader(dir, false, maxConfigBytes)
	defer reader.Close()
	if isHelmChart(reader, dir) {
		return ProjectConfig{}, false
	}
	if fi, err := reader.Stat(filepath.Join(dir, path.Dir(DefaultTemplates))); err != nil || !fi.IsDir() {
		return ProjectConfig{}, false
	}
	return ProjectConfig{Dir: dir, Config: DefaultConfig()}, true
}

// shownFrom is file as opened from wd: relative to it when below it, else
// relative to the project directory dir.
func shownFrom(wd, dir, file string) string {
	if fileio.Within(wd, file) {
		return fileio.Rel(wd, file)
	}
	return fileio.Rel(dir, file)
}

// claim is a directory one project writes to or takes templates from.
type claim struct {
	project int
	dir     string
	at      string // "FILE:LINE (sets[i].outputs[j] dist)"
	deep    bool   // a template glob that reaches below dir ("**")
}

// CheckDisjoint fails, naming both configurations with file:line, when two
// of the projects (each with its directory and configuration) claim one
// output directory, or one's output directory lies inside another's (or
// inside another's template directory: the directory part of a template
// glob): each project's build removes, as orphans, the generated files in
// its output directories that it does not produce, so two projects sharing
// one would remove each other's outputs on every build, and check would
// fail right after every build. Only a clash involving a project marked
// Acting is reported. Two sets of one project may share an
// output directory: the project plans all its sets together (one set of
// orphans), and two templates compiling to one file is its own error.
// Files are named as opened from wd. The work is linear in the directories
// claimed (times their depth).
func CheckDisjoint(wd string, projects []ProjectConfig) error {
	var outs, tmpls []claim
	for i, pc := range projects {
		name := "the default configuration of " + orDot(fileio.Rel(wd, pc.Dir))
		if pc.File != "" {
			name = shownFrom(wd, pc.Dir, pc.File)
		}
		name = safetext.Quote(name)
		for si, set := range pc.Config.Sets {
			for oi, o := range set.Outputs {
				key := fmt.Sprintf("sets[%d].outputs[%d]", si, oi)
				outs = append(outs, claim{i, absIn(pc.Dir, o), fmt.Sprintf("%s (%s %s)", pc.Config.line(name, key), key, safetext.Quote(o)), false})
			}
			for gi, g := range set.Templates {
				d, deep := globDir(g)
				key := fmt.Sprintf("sets[%d].templates[%d]", si, gi)
				tmpls = append(tmpls, claim{i, absIn(pc.Dir, d), fmt.Sprintf("%s (%s %s)", pc.Config.line(name, key), key, safetext.Quote(g)), deep})
			}
		}
	}
	byDir := map[string][]claim{}
	for _, c := range outs {
		byDir[c.dir] = append(byDir[c.dir], c)
	}
	tmplDirs := map[string][]claim{}
	for _, c := range tmpls {
		tmplDirs[c.dir] = append(tmplDirs[c.dir], c)
	}
	var errs []error
	reported := map[[2]int]bool{}
	report := func(a, b claim, how string) {
		if a.project > b.project {
			a, b = b, a // in the order of the projects given
		}
		if !projects[a.project].Acting && !projects[b.project].Acting {
			return
		}
		if reported[[2]int{a.project, b.project}] || reported[[2]int{b.project, a.project}] {
			return
		}
		reported[[2]int{a.project, b.project}] = true
		errs = append(errs, fmt.Errorf("%w: %s and %s %s: each project's build would remove the other's outputs as generated files it does not produce (and check would fail after every build); nothing was built or removed: give each project output directories of its own, apart from the other's",
			ErrConfig, a.at, b.at, how))
	}
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		for _, c := range byDir[dir] {
			// The same directory, or one above it, claimed by another project.
			for d, first := c.dir, true; ; first = false {
				for _, o := range byDir[d] {
					if o.project == c.project {
						continue
					}
					if first {
						report(o, c, "write to the same output directory "+safetext.Quote(orDot(fileio.Rel(wd, d))))
					} else {
						report(o, c, "write to nested output directories")
					}
				}
				for _, t := range tmplDirs[d] {
					if t.project != c.project && (first || t.deep) {
						report(t, c, "overlap: the output directory is one the other project takes templates from")
					}
				}
				parent := filepath.Dir(d)
				if parent == d {
					break
				}
				d = parent
			}
		}
	}
	return errors.Join(errs...)
}

// globDir is the directory a template glob takes files from: its
// directory part up to the first element with a wildcard; deep when it
// reaches below that directory (a wildcard in a directory element, or "**").
func globDir(glob string) (dir string, deep bool) {
	elems := strings.Split(path.Dir(filepath.ToSlash(glob)), "/")
	for i, e := range elems {
		if strings.ContainsAny(e, "*?[\\") {
			return path.Join(elems[:i]...), true
		}
	}
	return path.Join(elems...), false
}

// absIn is the slash-separated name relative to dir, absolute and clean.
func absIn(dir, name string) string {
	name = filepath.FromSlash(name)
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(dir, name)
}

// orDot is name, or "." for the empty name.
func orDot(name string) string {
	if name == "" {
		return "."
	}
	return name
}
