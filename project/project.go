package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/parallel"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// Options adjust how a project is opened. The zero value is the default.
type Options struct {
	// ConfigFile is the configuration to use instead of searching for
	// ConfigFileName. Its directory is the project directory.
	ConfigFile string
	// Policy overrides every set's policy (command-line flags).
	Policy Policy
	// AllowLarge lifts the size limit (MaxSize) on compiled CRDs.
	AllowLarge bool
	// Force lets build take over output files that exist without the
	// generated header.
	Force bool
	// AllowEmpty accepts a template glob that matches no file, and a
	// project with no template at all (then build removes the outputs
	// of sets left without templates). Without it either is an error,
	// and nothing is written or removed.
	AllowEmpty bool

	// config, when set, is ConfigFile's configuration, not read from the
	// disk; overlay holds files read in place of the disk's (both
	// Migration.Verify's).
	config  *Config
	overlay map[string][]byte
}

// Project is a directory of templates and where they compile to.
type Project struct {
	// Dir is the project directory: paths in the configuration, and the
	// names Project reports, are relative to it.
	Dir string
	// ConfigFile is the configuration used, "" for the default.
	ConfigFile string
	// Config is the configuration in effect.
	Config *Config
	// Templates are the discovered templates, in set order, each set
	// sorted by path.
	Templates []*Template
	// Sources are matched files that hold no CRD (shared definitions):
	// never compiled on their own, never outputs.
	Sources []string

	opts   Options
	work   string                      // the working directory Open was given: Shown's base
	reader *fileio.Reader              // the door every read of the project goes through
	names  map[string]map[string]bool  // directory -> its entries, for siblingPatch (nil: unreadable)
	parsed map[string]*resolver.Source // each matched file as classify parsed it, for the compiles' file $refs

	patchMu sync.Mutex
	patches map[string]parsedPatch // each patch file as it was last parsed (parsePatch)
}

// Template is one CRD template and where it compiles to.
type Template struct {
	// Path is the template's absolute path.
	Path string
	// Name is Path relative to the project directory, slash-separated.
	Name string
	// Patch is the absolute path of the RFC 6902 patch applied after
	// compiling, or "".
	Patch string
	// Outputs are the absolute paths the compiled CRD is written to.
	Outputs []string
	// Policy is how the template compiles.
	Policy Policy
	// Set is the index of the configuration's set the template is in.
	Set int

	source *resolver.Source // the template as Open read and parsed it; never nil
}

// Open finds the configuration (walking up from workDir unless
// opts.ConfigFile names one), and discovers the templates.
func Open(workDir string, opts Options) (*Project, error) {
	workDir, err := filepath.Abs(workDir)
	if err != nil {
		return nil, err
	}
	file := opts.ConfigFile
	if file == "" {
		if file, err = FindConfig(workDir); err != nil {
			return nil, err
		}
	} else if file, err = filepath.Abs(file); err != nil {
		return nil, err
	}
	p := &Project{opts: opts, ConfigFile: file, work: workDir}
	if file == "" {
		p.Config = DefaultConfig()
		if p.Dir = fileio.GitTop(workDir); p.Dir == "" {
			p.Dir = workDir
		}
	} else {
		p.Dir = filepath.Dir(file)
	}
	if file != "" && opts.config != nil {
		p.Config = opts.config
	} else if file != "" {
		// The configuration is read confined to the repository holding
		// it (ReadProjectConfig): a subproject's configuration linked to
		// a file of the repository is followed, a committed symlink to a
		// file outside is refused unless --allow-outside-root.
		pc, err := ReadProjectConfig(workDir, file, opts.Policy.AllowOutsideRoot != nil && *opts.Policy.AllowOutsideRoot)
		if err != nil {
			return nil, err
		}
		p.Config = pc.Config
	}
	if err := opts.Policy.validate(); err != nil {
		return nil, flagError(err) // the command line's flags: no configuration
	}
	p.reader = fileio.NewReader(p.Dir, p.AllowOutsideRoot(), docread.MaxInputBytes)
	if file == "" && isHelmChart(p.reader, p.Dir) {
		if !opts.AllowEmpty {
			return nil, noHelmTemplates(p.Dir)
		}
		p.Config = helmChartConfig()
	}
	if err := p.discover(); err != nil {
		return nil, err
	}
	return p, nil
}

// maxConfigBytes bounds the configuration file.
const maxConfigBytes = 1 << 20

// AllowOutsideRoot reports whether templates, patches and outputs may lie
// outside the project directory: the configuration's allowOutsideRoot, or
// the command line's.
func (p *Project) AllowOutsideRoot() bool {
	pol := p.Config.Policy.over(p.opts.Policy)
	return pol.AllowOutsideRoot != nil && *pol.AllowOutsideRoot
}

// Reader returns the door the project reads files through.
func (p *Project) Reader() *fileio.Reader { return p.reader }

// Rel returns path relative to the project directory, slash-separated, or
// path itself when it lies outside.
func (p *Project) Rel(abs string) string { return fileio.Rel(p.Dir, abs) }

// Shown returns path as the user would open it from the working directory
// Open was given: relative to it when path lies below it (svc/dist/w.yaml
// for a project in svc/ run from the repository's root), else relative to
// the project directory (Rel).
func (p *Project) Shown(abs string) string {
	if rel := fileio.Rel(p.work, abs); rel != abs && p.work != p.Dir && !strings.HasPrefix(p.work, p.Dir+string(filepath.Separator)) {
		return rel
	}
	return p.Rel(abs)
}

func (p *Project) abs(name string) string {
	name = filepath.FromSlash(name)
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(p.Dir, name)
}

func (p *Project) discover() error {
	outputs := map[string]string{} // output path -> template name
	sources := map[string]bool{}
	// First every set's files, then all of them classified on every core
	// (a file in two sets is read once), then each set in turn; a set's
	// glob error is still reported before any problem of a later set.
	files := make([][]string, len(p.Config.Sets))
	globErrs := make([]error, len(p.Config.Sets))
	for i, set := range p.Config.Sets {
		files[i], globErrs[i] = p.setFiles(i, set)
	}
	kinds := p.classifyAll(slices.Concat(files...))
	if err := p.checkCovered(files, globErrs); err != nil {
		return err
	}
	p.parsed = map[string]*resolver.Source{}
	for i, set := range p.Config.Sets {
		if globErrs[i] != nil {
			return globErrs[i]
		}
		policy := p.Config.Policy.over(set.Policy).over(p.opts.Policy)
		patches := map[string]string{}
		for t, patch := range set.Patches {
			patches[p.abs(t)] = p.abs(patch)
		}
		before := len(p.Templates)
		for _, f := range files[i] {
			c := kinds[f]
			if c.err != nil {
				return c.err
			}
			if c.source != nil {
				p.parsed[f] = c.source
			}
			switch c.kind {
			case generatedFile:
				continue // an output of this tool matched by the glob: never a template
			case sourceFile:
				sources[f] = true
				continue
			case neighbourFile:
				continue // no YAML, and no line names a CRD: a Helm template, JSON with comments, a typo'd manifest
			}
			t := &Template{Path: f, Name: p.Rel(f), Policy: policy, Set: i, Patch: patches[f], source: c.source}
			delete(patches, f)
			if t.Patch == "" {
				patch, err := p.siblingPatch(f)
				if err != nil {
					return err
				}
				t.Patch = patch
			}
			for _, dir := range set.Outputs {
				out := filepath.Join(p.abs(dir), outputName(f))
				if other, dup := outputs[out]; dup {
					return fmt.Errorf("%w: %s and %s both compile to %s", ErrConfig, other, t.Name, p.Rel(out))
				}
				if out == f {
					return fmt.Errorf("%w: template %s would overwrite itself: output directory %q is its own directory", ErrConfig, t.Name, dir)
				}
				outputs[out] = t.Name
				t.Outputs = append(t.Outputs, out)
			}
			p.Templates = append(p.Templates, t)
		}
		for t := range patches {
			return fmt.Errorf("%w: %s: sets[%d].patches names %s, which is not a template of the set", ErrConfig, p.configName(), i, p.Rel(t))
		}
		if len(p.Templates) == before && !p.opts.AllowEmpty {
			return fmt.Errorf("%w: %s: sets[%d] (templates %s) matches no CRD template (only shared definitions or generated files); nothing was built or removed: fix its globs, or pass --allow-empty to build an empty set (removing its outputs)",
				ErrConfig, p.Config.line(p.configName(), fmt.Sprintf("sets[%d]", i)), i, strings.Join(set.Templates, ", "))
		}
	}
	p.Sources = slices.Sorted(maps.Keys(sources))
	return nil
}

// checkCovered fails when a CRD template stands in a directory a set takes
// templates from (the directory part of one of its globs, when that has
// no wildcard) but no set matches it and no set excludes it: a template
// added beside the listed ones (after migrate wrote names, or a .json
// beside templates/*.yaml) would be neither built nor checked, and check
// would pass. files are the sets' matches (setFiles).
func (p *Project) checkCovered(files [][]string, globErrs []error) error {
	covered := map[string]bool{}
	for _, fs := range files {
		for _, f := range fs {
			covered[f] = true
		}
	}
	type origin struct {
		set int
		dir string
	}
	dirs := map[string]origin{}
	for i, set := range p.Config.Sets {
		if globErrs[i] != nil {
			return nil // reported by discover, in set order
		}
		for _, g := range set.Exclude {
			m, _ := p.glob(g) // its error is setFiles'
			for _, f := range m {
				covered[f] = true
			}
		}
		for _, g := range set.Templates {
			d := path.Dir(filepath.ToSlash(g))
			if strings.ContainsAny(d, "*?[\\") {
				continue
			}
			abs := p.abs(d)
			if _, seen := dirs[abs]; !seen {
				dirs[abs] = origin{i, d}
			}
		}
	}
	var candidates []string
	from := map[string]string{} // candidate -> the set directory it stands in or below
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		for _, f := range p.templateCandidates(dir, dir != p.Dir) {
			if !covered[f] {
				if _, seen := from[f]; !seen {
					candidates = append(candidates, f)
					from[f] = dir
				}
			}
		}
	}
	kinds := p.classifyAll(candidates)
	var errs []error // every such template, in one run
	for _, f := range candidates {
		if c := kinds[f]; c.err != nil || c.kind != templateFile {
			continue
		}
		o := dirs[from[f]]
		sub := filepath.ToSlash(p.Rel(filepath.Dir(f)))
		if filepath.Dir(f) == from[f] {
			errs = append(errs, fmt.Errorf("%w: %s holds a CustomResourceDefinition, but no set of %s matches it, although %s takes templates from %s/; nothing was built or removed: add it to a set (%s takes every template there), or list it under that set's exclude",
				ErrConfig, p.Rel(f), p.configName(), p.Config.line(p.configName(), fmt.Sprintf("sets[%d]", o.set)), o.dir, path.Join(o.dir, "*"+filepath.Ext(f))))
			continue
		}
		if p.ConfigFile == "" {
			errs = append(errs, fmt.Errorf("%w: %s holds a CustomResourceDefinition, but the default configuration (no %s) takes %s, which does not reach the subdirectory %s/; nothing was built or removed: move it into %s/, or write a %s (`k8s-crd-resolver init` writes one) whose set takes %s",
				ErrConfig, p.Rel(f), ConfigFileName, DefaultTemplates, sub, o.dir, ConfigFileName, path.Join(o.dir, "**", "*"+filepath.Ext(f))))
			continue
		}
		errs = append(errs, fmt.Errorf("%w: %s holds a CustomResourceDefinition, but no set of %s matches it: %s takes templates from %s/, and its globs do not reach the subdirectory %s/; nothing was built or removed: add it to a set (%s takes every template there, %s every one below %s/), or list it under that set's exclude",
			ErrConfig, p.Rel(f), p.configName(), p.Config.line(p.configName(), fmt.Sprintf("sets[%d]", o.set)), o.dir, sub, path.Join(sub, "*"+filepath.Ext(f)), path.Join(o.dir, "**", "*"+filepath.Ext(f)), o.dir))
	}
	return errors.Join(errs...)
}

// templateCandidates lists the regular files of dir that may hold a
// template (mayBeTemplate) and, when below, those of its subdirectories
// too: a template in templates/extra/ is as easily forgotten by
// templates/*.yaml as one beside the listed ones. Hidden directories,
// testdata, vendor, node_modules, other repositories and other projects
// (a directory with its own configuration) are not entered. The project
// directory's own subdirectories are not searched (dist/, charts/, ...
// hold CRDs that are no templates).
func (p *Project) templateCandidates(dir string, below bool) []string {
	names, err := p.reader.DirNames(dir)
	if err != nil {
		return nil // no such directory: the glob's own message says so
	}
	var out []string
	for _, n := range names {
		f := filepath.Join(dir, n)
		fi, err := p.reader.Stat(f)
		switch {
		case err != nil:
		case fi.Mode().IsRegular() && mayBeTemplate(n):
			out = append(out, f)
		case fi.IsDir() && below && !SkippedDir(n) && !p.otherTree(f) && !isLink(f):
			out = append(out, p.templateCandidates(f, true)...)
		}
	}
	return out
}

// isLink reports whether name is a symbolic link: a linked directory is
// not entered (it may lead back up), as filepath.WalkDir does not follow one.
func isLink(name string) bool {
	fi, err := os.Lstat(name)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// otherTree reports whether dir is the root of another repository or
// project: a .git or a configuration of its own.
func (p *Project) otherTree(dir string) bool {
	for _, n := range []string{".git", ConfigFileName} {
		if _, err := p.reader.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// outputName is the file name a template compiles to: its own base name,
// with a YAML extension (a .json template still compiles to YAML).
func outputName(template string) string {
	base := filepath.Base(template)
	ext := filepath.Ext(base)
	if ext == ".yml" {
		return base
	}
	return strings.TrimSuffix(base, ext) + ".yaml"
}

// mayBeTemplate reports whether a file of this name may hold a template:
// a .yaml, .yml or .json file (any case) that is no patch file, no
// temporary file of a build and not the configuration.
func mayBeTemplate(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return (ext == ".yaml" || ext == ".yml" || ext == ".json") && !IsPatchFile(name) && !fileio.IsTemp(name) && name != ConfigFileName
}

// patchSuffixes are the names of patch files: NAME.patch.yaml etc.
var patchSuffixes = []string{".patch.yaml", ".patch.yml", ".patch.json"}

// IsPatchFile reports whether name is a patch file (NAME.patch.yaml, .yml
// or .json), which is never a template.
func IsPatchFile(name string) bool {
	return slices.ContainsFunc(patchSuffixes, func(s string) bool { return strings.HasSuffix(name, s) })
}

// siblingPatch returns the NAME.patch.* file beside template, or "". A
// patch name that exists but cannot be read (a dangling symlink, a FIFO,
// a link out of the project) is an error, not silently no patch.
func (p *Project) siblingPatch(template string) (string, error) {
	stem := strings.TrimSuffix(template, filepath.Ext(template))
	// The directory's names first, listed once per directory: most
	// templates have no patch, and a name that is not there needs no
	// confined stat to say so (a dangling link is listed, and checked).
	dir := filepath.Dir(template)
	if p.names == nil {
		p.names = map[string]map[string]bool{}
	}
	names, listed := p.names[dir]
	if !listed {
		if list, err := p.reader.DirNames(dir); err == nil {
			names = map[string]bool{}
			for _, n := range list {
				names[n] = true
			}
		}
		p.names[dir] = names
	}
	var found []string
	for _, s := range patchSuffixes {
		if names != nil && !names[filepath.Base(stem+s)] {
			continue
		}
		fi, err := p.reader.Stat(stem + s)
		switch {
		case missing(err):
			continue
		case err != nil:
			return "", fmt.Errorf("%w: patch of %s: %w", ErrConfig, p.Rel(template), err)
		case !fi.Mode().IsRegular():
			return "", fmt.Errorf("%w: patch of %s: %s is %s, not a regular file", ErrConfig, p.Rel(template), p.Rel(stem+s), fileio.Kind(fi.Mode()))
		}
		found = append(found, stem+s)
	}
	if len(found) > 1 {
		return "", fmt.Errorf("%w: %s has several patches: %s", ErrConfig, p.Rel(template), strings.Join(found, ", "))
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return "", nil
}

// What a file matched by a template glob is.
const (
	templateFile  = iota // holds a CustomResourceDefinition
	sourceFile           // holds none: shared definitions
	generatedFile        // the tool's own output in an output directory (ownOutput)
	neighbourFile        // YAML cannot read it and no line names the kind (crdKindLine): skipped
)

// classify reads file (through the door) and says what it is. A file
// that cannot be parsed counts as a template when it could be one (a line
// names kind: CustomResourceDefinition, crdKindLine), so compiling it
// reports the problem with its position and why it was taken for one;
// else it is a neighbour, skipped. One that cannot be read is an error. It
// parses as the compile does (and returns the parse, which the compile of
// a template reuses): a file is a template when a document of it is a
// mapping of kind CustomResourceDefinition.
func (p *Project) classify(file string) (int, *resolver.Source, error) {
	src, err := p.readMatched(file)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %w (matched by a template glob of %s)", ErrConfig, err, p.configName())
	}
	if p.ownOutput(file, src) {
		return generatedFile, nil, nil
	}
	budget, _ := docread.ParseSize(p.Config.Policy.over(p.opts.Policy).Budget) // checked by validate
	s := resolver.Parse(filepath.FromSlash(p.Rel(file)), src, budget)
	switch {
	case s.Err() == nil && s.HoldsCRD():
		return templateFile, s, nil
	case s.Err() == nil:
		return sourceFile, s, nil
	}
	// What the compile cannot parse: a template when YAML itself cannot
	// read it or a document names the kind (the compile reports the
	// problem), else shared definitions (whose problem a $ref into them
	// reports).
	// Nodes only, never decoded into Go values: yaml.v3's decoding compares every pair of
	// keys of a mapping, quadratic in what the file holds.
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return sourceFile, nil, nil
		}
		if err != nil && crdKindLine(src) == 0 {
			return neighbourFile, nil, nil // no YAML, and no line names the kind
		}
		if err != nil {
			return templateFile, s, nil
		}
		if namesKind(&n, "CustomResourceDefinition") {
			return templateFile, s, nil
		}
	}
}

// namesKind reports whether the document node is a mapping whose kind is the plain string
// kind.
func namesKind(doc *yaml.Node, kind string) bool {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return false
	}
	m := doc.Content[0].Content
	for i := 0; i+1 < len(m); i += 2 {
		if m[i].Kind == yaml.ScalarNode && m[i].Value == "kind" && m[i+1].Kind == yaml.ScalarNode && m[i+1].Value == kind {
			return true
		}
	}
	return false
}

// setFiles lists the files set i compiles or reads: its template globs'
// matches, less its exclusions, patch files and the configuration.
func (p *Project) setFiles(i int, set Set) ([]string, error) {
	excluded := map[string]bool{}
	for _, g := range set.Exclude {
		m, err := p.glob(g)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: sets[%d].exclude %q: %w", ErrConfig, p.configName(), i, g, err)
		}
		for _, f := range m {
			excluded[f] = true
		}
	}
	var files []string
	for j, g := range set.Templates {
		m, err := p.glob(g)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: sets[%d].templates %q: %w", ErrConfig, p.configName(), i, g, err)
		}
		if len(m) == 0 && !p.opts.AllowEmpty {
			if p.ConfigFile == "" {
				return nil, fmt.Errorf("%w: no templates: %s (the default without a %s) matches no file in %s; nothing was built or removed: add templates there or write a %s (or pass --allow-empty)",
					ErrConfig, g, ConfigFileName, p.Dir, ConfigFileName)
			}
			return nil, fmt.Errorf("%w: %s: sets[%d].templates[%d] %q matches no file; nothing was built or removed: fix the glob (a typo, a moved directory?), or pass --allow-empty",
				ErrConfig, p.Config.line(p.configName(), fmt.Sprintf("sets[%d].templates[%d]", i, j)), i, j, g)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	return slices.DeleteFunc(files, func(f string) bool {
		return excluded[f] || IsPatchFile(f) || filepath.Base(f) == ConfigFileName
	}), nil
}

// classification is what classify says of one file.
type classification struct {
	kind   int
	source *resolver.Source // a template's parse
	err    error
}

// classifyAll classifies files on every core, each once.
func (p *Project) classifyAll(files []string) map[string]classification {
	files = slices.Compact(slices.Sorted(slices.Values(files)))
	results := make([]classification, len(files))
	parallel.Each(len(files), func(i int) {
		results[i].kind, results[i].source, results[i].err = p.classify(files[i])
	})
	out := make(map[string]classification, len(files))
	for i, f := range files {
		out[f] = results[i]
	}
	return out
}

// configName names the configuration in messages.
func (p *Project) configName() string {
	if p.ConfigFile == "" {
		return "the default configuration"
	}
	return p.Shown(p.ConfigFile)
}

// glob expands pattern relative to the project directory. Directories
// are skipped; other files that are not regular (FIFOs, devices,
// sockets, links out of the project) are errors, found when read.
func (p *Project) glob(pattern string) ([]string, error) {
	m, err := glob(p.Dir, pattern)
	if err != nil {
		return nil, err
	}
	out := m[:0]
	for _, f := range m {
		if fi, err := p.reader.Stat(f); err == nil && fi.IsDir() {
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// glob expands a slash-separated pattern relative to dir. "**" as a whole
// path element matches zero or more directories. Results are absolute,
// files only, sorted. Hidden directories are not entered by "**".
func glob(dir, pattern string) ([]string, error) {
	if pattern == "" {
		return nil, errors.New("empty pattern")
	}
	pattern = filepath.ToSlash(pattern)
	if path.IsAbs(pattern) {
		return nil, errors.New("patterns are relative to the project directory")
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, err
	}
	if !strings.Contains(pattern, "**") {
		m, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
		if err != nil {
			return nil, err
		}
		slices.Sort(m)
		return m, nil
	}
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if fileio.IsTemp(d.Name()) {
			return nil // a build's temporary file
		}
		rel, _ := filepath.Rel(dir, p)
		if matchDoubleStar(strings.Split(pattern, "/"), strings.Split(filepath.ToSlash(rel), "/")) {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

func matchDoubleStar(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchDoubleStar(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// ForTemplate opens the project a build run from wd would compile
// template (an absolute path) in: the configuration FindConfigFor finds
// from the template's directory, or, without one, the default project of
// wd (templates/*.yaml into dist/, a NAME.patch.yaml beside each). It
// returns nil, nil when that project does not hold the template; then a
// compile of it has no project settings to follow. When several sets hold
// it, the first one's settings apply (build compiles it once per set).
func ForTemplate(wd, template string, opts Options) (*Project, *Template, error) {
	if opts.ConfigFile == "" {
		file, err := FindConfigFor(filepath.Dir(template), wd)
		if err != nil {
			return nil, nil, err
		}
		if file == "" {
			// The default project: no error when it has no template at all.
			opts.AllowEmpty = true
			if top := fileio.GitTop(wd); top == "" && !strings.HasPrefix(template, wd+string(filepath.Separator)) {
				return nil, nil, nil // outside the working directory's tree: no project of its
			}
		}
		opts.ConfigFile = file
	}
	// From wd: the project names files as the user opens them from there
	// (Shown); the configuration is opts.ConfigFile's, or wd's default.
	p, err := Open(wd, opts)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range p.Templates {
		if t.Path == template {
			return p, t, nil
		}
	}
	return nil, nil, nil
}
