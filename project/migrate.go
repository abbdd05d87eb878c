package project

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// Migrating off the Python tool's pins. Its templates name Kubernetes
// definitions by the bundle they come from
// (python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/X, or
// the GitHub URL of a release's swagger.json); such a pin wins over
// kubernetesVersion, so bumping Kubernetes changes nothing. Migrate
// rewrites every pin as the bare name X, and records the pinned minor as
// the project's kubernetesVersion (with the directories the compiled CRDs
// were found in as outputs), so that build at that version gives the same
// CRDs, and a later bump of kubernetesVersion takes effect.

// pinRE matches a pinned bundle ref; group 1 or 2 holds the minor, group 3
// the definition name. Linear (RE2). Compiled on first use: compiling it
// at start cost every run of the binary some 50 us, and only migrate
// needs it.
var pinRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:python://k8s_crd_resolver/schemata/k8s-(\d+\.\d+)(?:\.\d+)?\.json|https?://raw\.githubusercontent\.com/kubernetes/kubernetes/(?:v|release-)(\d+\.\d+)(?:\.\d+)?/api/openapi-spec/swagger\.json)#/definitions/([A-Za-z0-9_.\-]+)`)
})

// MigrateOptions adjust Migrate.
type MigrateOptions struct {
	// KubernetesVersion is the version to record instead of the pinned
	// one (needed when pins name several minors).
	KubernetesVersion string
	// RemoveDescriptions records removeDescriptions: true for the sets
	// written (what the Python tool's -r did).
	RemoveDescriptions bool
}

// FileEdit is one file Migrate changes: Old is nil for a new file.
type FileEdit struct {
	Path     string // absolute
	Name     string // relative to the project directory
	Old, New []byte
}

// Migration is what Migrate would change.
type Migration struct {
	Dir   string
	Edits []FileEdit
	// Pins counts the rewritten refs; Minor is the version recorded.
	Pins  int
	Minor string
	// Notes say what was decided (outputs found or defaulted, a config
	// left as it was).
	Notes []string
}

// Migrate plans the migration of the project around workDir (its git
// work tree, else workDir itself): every YAML or JSON file in it (hidden
// directories and generated files aside) is read through the door, pins
// are rewritten in each, and the configuration is written (or given
// kubernetesVersion). Nothing is written: see Migration.Apply.
func Migrate(workDir string, opts MigrateOptions) (*Migration, error) {
	workDir, err := filepath.Abs(workDir)
	if err != nil {
		return nil, err
	}
	dir := fileio.GitTop(workDir)
	if dir == "" {
		dir = workDir
	}
	config, err := FindConfig(workDir)
	if err != nil {
		return nil, err
	}
	if config != "" {
		dir = filepath.Dir(config)
	}
	reader := fileio.NewReader(dir, false, resolver.MaxInputBytes)
	defer reader.Close()
	m := &Migration{Dir: dir}
	type crdFile struct {
		path  string
		names []string
	}
	var templates, compiled []crdFile
	minors := map[string][]string{} // minor -> files pinning it
	err = fsWalk(dir, func(path string) error {
		data, err := reader.ReadFile(path)
		if err != nil {
			return err
		}
		if IsGenerated(data) {
			return nil
		}
		rel := fileio.Rel(dir, path)
		names, isCRD := crdNames(data)
		// A template: a CRD with $refs, or with a patch beside it (a
		// template may need no $ref at all, as Dask's daskautoscaler).
		hasRef := strings.Contains(string(data), "$ref") || hasSiblingPatch(reader, path)
		switch {
		case isCRD && hasRef:
			templates = append(templates, crdFile{path, names})
		case isCRD:
			compiled = append(compiled, crdFile{path, names})
		}
		pins := pinRE().FindAllSubmatchIndex(data, -1)
		if len(pins) == 0 {
			return nil
		}
		out := make([]byte, 0, len(data))
		last := 0
		for _, p := range pins {
			var minor string
			if p[2] >= 0 {
				minor = string(data[p[2]:p[3]])
			} else {
				minor = string(data[p[4]:p[5]])
			}
			if !slices.Contains(minors[minor], rel) {
				minors[minor] = append(minors[minor], rel)
			}
			out = append(out, data[last:p[0]]...)
			out = append(out, data[p[6]:p[7]]...)
			last = p[1]
		}
		out = append(out, data[last:]...)
		m.Pins += len(pins)
		m.Edits = append(m.Edits, FileEdit{Path: path, Name: rel, Old: data, New: out})
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.Minor = opts.KubernetesVersion
	if m.Minor == "" {
		keys := slices.SortedFunc(maps.Keys(minors), schemas.CompareMinors)
		switch len(keys) {
		case 0:
			return nil, fmt.Errorf("%w: no pinned $ref (python://k8s_crd_resolver/schemata/... or a GitHub swagger.json URL) in %s: nothing to migrate", ErrConfig, dir)
		case 1:
			m.Minor = keys[0]
		default:
			var parts []string
			for _, k := range keys {
				parts = append(parts, k+" in "+strings.Join(minors[k], ", "))
			}
			return nil, fmt.Errorf("%w: the pins name several Kubernetes minors (%s); choose the one to record with --k8s-version", ErrConfig, strings.Join(parts, "; "))
		}
	}
	if config != "" {
		edit, note, err := addVersion(reader, dir, config, m.Minor)
		if err != nil {
			return nil, err
		}
		if edit != nil {
			m.Edits = append(m.Edits, *edit)
		}
		m.Notes = append(m.Notes, note)
		return m, nil
	}
	// One set per list of output directories, in template order.
	type set struct {
		templates, outputs []string
	}
	var sets []*set
	for _, t := range templates {
		var outs []string
		for _, c := range compiled {
			if filepath.Base(c.path) == outputName(t.path) && slices.Equal(c.names, t.names) {
				outs = append(outs, fileio.Rel(dir, filepath.Dir(c.path)))
			}
		}
		if len(outs) == 0 {
			outs = []string{DefaultOutput}
			m.Notes = append(m.Notes, fmt.Sprintf("no compiled CRD named %s found for %s: it compiles into %s/", strings.Join(t.names, ", "), fileio.Rel(dir, t.path), DefaultOutput))
		}
		slices.Sort(outs)
		i := slices.IndexFunc(sets, func(s *set) bool { return slices.Equal(s.outputs, outs) })
		if i < 0 {
			sets = append(sets, &set{outputs: outs})
			i = len(sets) - 1
		}
		sets[i].templates = append(sets[i].templates, fileio.Rel(dir, t.path))
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("%w: no CRD template (a CustomResourceDefinition with $refs) in %s", ErrConfig, dir)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by `k8s-crd-resolver migrate`: the Kubernetes minor the Python tool's\n")
	fmt.Fprintf(&b, "# pinned $refs named, and where their compiled CRDs were found. Bump\n")
	fmt.Fprintf(&b, "# kubernetesVersion, then review `k8s-crd-resolver check` (or diff).\n")
	fmt.Fprintf(&b, "kubernetesVersion: %q\nsets:\n", m.Minor)
	for _, s := range sets {
		b.WriteString("  - templates:\n")
		for _, t := range s.templates {
			fmt.Fprintf(&b, "      - %q\n", t)
		}
		b.WriteString("    outputs:\n")
		for _, o := range s.outputs {
			fmt.Fprintf(&b, "      - %q\n", o)
		}
		if opts.RemoveDescriptions {
			b.WriteString("    removeDescriptions: true\n")
		}
	}
	path := filepath.Join(dir, ConfigFileName)
	m.Edits = append(m.Edits, FileEdit{Path: path, Name: ConfigFileName, New: []byte(b.String())})
	return m, nil
}

// addVersion gives an existing configuration a top-level
// kubernetesVersion (after its leading comments) unless it has one.
func addVersion(reader *fileio.Reader, dir, config, minor string) (*FileEdit, string, error) {
	src, err := reader.ReadFile(config)
	if err != nil {
		return nil, "", err
	}
	c, err := ParseConfig(fileio.Rel(dir, config), src)
	if err != nil {
		return nil, "", err
	}
	name := fileio.Rel(dir, config)
	if c.Policy.KubernetesVersion != "" {
		return nil, fmt.Sprintf("%s already sets kubernetesVersion %s: left as it is (the pins named %s)", name, c.Policy.KubernetesVersion, minor), nil
	}
	at := 0
	for at < len(src) && (src[at] == '#' || src[at] == '\n') {
		if i := strings.IndexByte(string(src[at:]), '\n'); i >= 0 {
			at += i + 1
		} else {
			at = len(src)
		}
	}
	out := slices.Concat(src[:at], []byte(fmt.Sprintf("kubernetesVersion: %q\n", minor)), src[at:])
	return &FileEdit{Path: config, Name: name, Old: src, New: out}, fmt.Sprintf("%s: kubernetesVersion %s added", name, minor), nil
}

// hasSiblingPatch reports whether NAME.patch.yaml (.yml, .json) is beside
// the file path (looked at through the door).
func hasSiblingPatch(reader *fileio.Reader, path string) bool {
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	for _, s := range patchSuffixes {
		if fi, err := reader.Stat(stem + s); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// fsWalk calls fn on every .yaml, .yml and .json file below dir, in
// order; hidden directories are not entered, patch files and temporary
// files are skipped.
func fsWalk(dir string, fn func(path string) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		ext := strings.ToLower(filepath.Ext(name))
		if (ext != ".yaml" && ext != ".yml" && ext != ".json") || IsPatchFile(name) || fileio.IsTemp(name) || name == ConfigFileName || !d.Type().IsRegular() {
			return nil
		}
		return fn(p)
	})
}

// Diff renders the migration as unified diffs, file by file.
func (m *Migration) Diff(w io.Writer) error {
	for _, e := range m.Edits {
		from := "a/" + e.Name
		if e.Old == nil {
			from = "/dev/null"
		}
		d := difflib.UnifiedDiff{A: splitLines(e.Old), B: splitLines(e.New), FromFile: from, ToFile: "b/" + e.Name, Context: 3}
		if err := difflib.WriteUnifiedDiff(w, d); err != nil {
			return err
		}
	}
	return nil
}

// Apply writes the edits through the door: every file staged first, then
// all renamed (nothing changes when one cannot be staged). The files are
// the user's own templates and configuration, rewritten on the user's
// command: no generated header is asked of them.
func (m *Migration) Apply() error {
	w := fileio.NewWriter(fileio.WriterOptions{Root: m.Dir, Force: true})
	defer w.Close()
	var staged []*fileio.Staged
	abort := func() {
		for _, s := range staged {
			s.Abort()
		}
	}
	for _, e := range m.Edits {
		s, err := w.Stage(e.Path, func(wr io.Writer) error {
			_, err := wr.Write(e.New)
			return err
		})
		if err != nil {
			abort()
			return err
		}
		staged = append(staged, s)
	}
	var errs []error
	for _, s := range staged {
		errs = append(errs, s.Commit())
	}
	return errors.Join(errs...)
}
