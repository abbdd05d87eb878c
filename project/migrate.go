package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pmezard/go-difflib/difflib"
	yaml "go.yaml.in/yaml/v3"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
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
// the definition name. Linear (RE2). Compiled on first use: only migrate
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
	// Config: the edit is the configuration file's (not a template's).
	Config bool
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
//
// Its steps: find the project (migrationDir), rewrite the pins and sort
// the CRDs found (scanPins), choose the minor to record (chooseMinor),
// then either give an existing configuration that minor (addVersion) or
// group the templates into sets by where their compiled CRDs were found
// (groupSets, splitDirs) and write a configuration of them (configText).
func Migrate(workDir string, opts MigrateOptions) (*Migration, error) {
	dir, config, err := migrationDir(workDir)
	if err != nil {
		return nil, err
	}
	reader := fileio.NewReader(dir, false, docread.MaxInputBytes)
	defer reader.Close()
	if err := reader.Open(); err != nil {
		return nil, err // before the walk, which would find nothing behind a link
	}
	m := &Migration{Dir: dir}
	sc, err := scanPins(reader, m)
	if err != nil {
		return nil, err
	}
	done, err := m.chooseMinor(opts, sc.minors, config)
	switch {
	case err != nil:
		return nil, err
	case done:
		return m, nil
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
	sets, setOf, err := m.groupSets(sc)
	if err != nil {
		return nil, err
	}
	text := m.configText(opts, sets, splitDirs(sc.templates, setOf), sc.compiled, sc.unreadable)
	m.Edits = append(m.Edits, FileEdit{Path: filepath.Join(dir, ConfigFileName), Name: ConfigFileName, New: []byte(text), Config: true})
	return m, nil
}

// migrationDir returns the directory of the project around workDir (its
// configuration's, else its git work tree, else workDir itself) and its
// configuration file ("" when there is none).
func migrationDir(workDir string) (dir, config string, err error) {
	workDir, err = filepath.Abs(workDir)
	if err != nil {
		return "", "", err
	}
	dir = fileio.GitTop(workDir)
	if dir == "" {
		dir = workDir
	}
	config, err = FindConfig(workDir)
	if err != nil {
		return "", "", err
	}
	if config != "" {
		dir = filepath.Dir(config)
	}
	return dir, config, nil
}

// crdFile is a CRD file Migrate found, and the CRD names it holds.
type crdFile struct {
	path  string
	names []string
}

// pinScan is what scanPins found in the project's files.
type pinScan struct {
	templates, compiled []crdFile
	descs               map[string]int      // CRD file -> the descriptions it holds
	minors              map[string][]string // minor -> files pinning it
	// unreadable are the files no YAML reader reads (a Helm template, JSON
	// with comments): a glob the configuration gets never takes them.
	unreadable []string
}

// scanPins reads every YAML or JSON file of m.Dir (fsWalk) but the
// tool's own unchanged outputs (unchangedOutput), sorts the CRDs among them into templates and compiled
// CRDs, and adds to m an edit rewriting each file's pins as bare names.
func scanPins(reader *fileio.Reader, m *Migration) (*pinScan, error) {
	dir := m.Dir
	sc := &pinScan{descs: map[string]int{}, minors: map[string][]string{}}
	descs, minors := sc.descs, sc.minors
	err := fsWalk(dir, func(path string) error {
		data, err := reader.ReadFile(path)
		if err != nil {
			return err
		}
		if unchangedOutput(data) {
			return nil // an output; one edited since is the user's file
		}
		rel := fileio.Rel(dir, path)
		names, isCRD, n, readable := crdDescriptions(data)
		descs[path] = n
		if !readable {
			sc.unreadable = append(sc.unreadable, path)
		}
		// A template: a CRD with $refs, or with a patch beside it (a
		// template may need no $ref at all, as Dask's daskautoscaler).
		hasRef := strings.Contains(string(data), "$ref") || hasSiblingPatch(reader, path)
		switch {
		case isCRD && hasRef:
			sc.templates = append(sc.templates, crdFile{path, names})
		case isCRD:
			sc.compiled = append(sc.compiled, crdFile{path, names})
		}
		pins := pinRE().FindAllSubmatchIndex(data, -1)
		if len(pins) == 0 {
			return nil
		}
		out := make([]byte, 0, len(data))
		last := 0
		pinning := map[string]bool{} // the minors this file pins
		for _, p := range pins {
			if err := checkPinName(rel, data, p); err != nil {
				return err
			}
			var minor string
			if p[2] >= 0 {
				minor = string(data[p[2]:p[3]])
			} else {
				minor = string(data[p[4]:p[5]])
			}
			if !pinning[minor] {
				pinning[minor] = true
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
	return sc, nil
}

// chooseMinor sets m.Minor: the --k8s-version given (opts), else the one
// minor the pins name (minors: minor -> files pinning it). done reports
// that there is nothing to migrate (a note says so); it is an error that
// the pins name several minors, or one this tool does not embed.
func (m *Migration) chooseMinor(opts MigrateOptions, minors map[string][]string, config string) (done bool, err error) {
	dir := m.Dir
	m.Minor = opts.KubernetesVersion
	if m.Minor != "" {
		// The user's choice, and still refused when no bundle of it is
		// embedded: a build at it would fail.
		if m.Minor, err = schemas.Canonical(m.Minor); err != nil {
			return false, fmt.Errorf("%w: --k8s-version: %w", ErrConfig, err)
		}
	}
	keys := slices.SortedFunc(maps.Keys(minors), schemas.CompareMinors)
	if m.Minor == "" {
		// Every pinned minor must be one this tool embeds: the rewritten
		// refs resolve against it, and a pin to another one would compile
		// differently (or not at all) once bare.
		for _, k := range keys {
			if _, err := schemas.Canonical(k); err != nil {
				return false, fmt.Errorf("%w: the pins in %s name Kubernetes %s, which this tool does not embed (%w); nothing was written: pass --k8s-version with an embedded minor to record instead", ErrConfig, strings.Join(minors[k], ", "), k, err)
			}
		}
		switch len(keys) {
		case 0:
			// Nothing pinned: migrated already (or never pinned). A second
			// run is a no-op, as any converging rewrite.
			m.Notes = append(m.Notes, fmt.Sprintf("no pinned $ref (python://k8s_crd_resolver/schemata/... or a GitHub swagger.json URL) in %s: nothing to migrate", dir))
			return true, nil
		case 1:
			m.Minor = keys[0]
		default:
			var parts []string
			for _, k := range keys {
				parts = append(parts, k+" in "+strings.Join(minors[k], ", "))
			}
			return false, fmt.Errorf("%w: the pins name several Kubernetes minors (%s); choose the one to record with --k8s-version", ErrConfig, strings.Join(parts, "; "))
		}
	} else if len(keys) == 0 && config != "" {
		m.Notes = append(m.Notes, fmt.Sprintf("no pinned $ref in %s: nothing to migrate", dir))
		return true, nil
	}
	return false, nil
}

// migrationSet is one set of the configuration Migrate writes: the
// templates whose compiled CRDs were found in the same output directories.
type migrationSet struct {
	templates, outputs []string
	stripped, matched  int // templates whose compiled CRDs carry none of Kubernetes' descriptions; found
}

// groupSets makes one set per list of output directories, in template
// order: a template's outputs are the directories holding a compiled CRD
// of its file name and CRD names (DefaultOutput when none does, with a
// note). setOf maps a template's path to its set. No template at all is
// an error.
func (m *Migration) groupSets(sc *pinScan) (sets []*migrationSet, setOf map[string]*migrationSet, err error) {
	dir, templates, compiled, descs := m.Dir, sc.templates, sc.compiled, sc.descs
	setOf = map[string]*migrationSet{} // template path -> its set
	var unfound []string               // templates whose compiled CRDs were not found
	// The compiled CRDs by file name and CRD names, and the sets by their
	// outputs: linear in templates and compiled CRDs.
	byKey := map[string][]crdFile{}
	for _, c := range compiled {
		k := compiledKey(filepath.Base(c.path), c.names)
		byKey[k] = append(byKey[k], c)
	}
	setIndex := map[string]int{}
	for _, t := range templates {
		var outs []string
		stripped := false
		for _, c := range byKey[compiledKey(outputName(t.path), t.names)] {
			outs = append(outs, fileio.Rel(dir, filepath.Dir(c.path)))
			// The Python tool's -r dropped what $refs brought in: the
			// output then holds no more descriptions than the template.
			stripped = descs[c.path] <= descs[t.path]
		}
		if len(outs) == 0 {
			outs = []string{DefaultOutput}
			unfound = append(unfound, fileio.Rel(dir, t.path))
		}
		slices.Sort(outs)
		i, ok := setIndex[strings.Join(outs, "\x00")]
		if !ok {
			sets = append(sets, &migrationSet{outputs: outs})
			i = len(sets) - 1
			setIndex[strings.Join(outs, "\x00")] = i
		}
		sets[i].templates = append(sets[i].templates, fileio.Rel(dir, t.path))
		if outs[0] != DefaultOutput || len(outs) > 1 {
			sets[i].matched++
			if stripped {
				sets[i].stripped++
			}
		}
		setOf[t.path] = sets[i]
	}
	if len(sets) == 0 {
		return nil, nil, fmt.Errorf("%w: no CRD template (a CustomResourceDefinition with $refs) in %s", ErrConfig, dir)
	}
	if len(unfound) > 0 {
		shown := unfound
		if len(shown) > 3 {
			shown = append(slices.Clip(shown[:3]), fmt.Sprintf("and %d more", len(unfound)-3))
		}
		m.Notes = append(m.Notes, fmt.Sprintf("no compiled CRD found for %s (its CRD name and file name): %s into %s/", strings.Join(shown, ", "), map[bool]string{true: "they compile", false: "it compiles"}[len(unfound) > 1], DefaultOutput))
	}
	return sets, setOf, nil
}

// dirExt is a directory and a file extension: the templates a glob in it
// would name.
type dirExt struct{ dir, ext string }

// splitDirs returns the directories (with an extension) whose templates go
// to more than one set. A directory whose templates all go to one set gets
// a glob, so a template added there later is built and checked too; the
// CRDs in it that are no templates (the Python tool's outputs, say) are
// excluded by name. A directory split between sets keeps explicit names,
// and a note says that what is added there later is in no set (build and
// check refuse such a template until a set lists or excludes it).
func splitDirs(templates []crdFile, setOf map[string]*migrationSet) map[dirExt]bool {
	split := map[dirExt]bool{}
	first := map[dirExt]*migrationSet{} // the set of the first template seen there
	for _, t := range templates {
		k := dirExt{filepath.Dir(t.path), filepath.Ext(t.path)}
		if s, seen := first[k]; !seen {
			first[k] = setOf[t.path]
		} else if s != setOf[t.path] {
			split[k] = true
		}
	}
	return split
}

// configText renders the configuration file recording m.Minor and sets
// (globs outside split directories, excluding the compiled CRDs there),
// adding to m's notes what it decided.
func (m *Migration) configText(opts MigrateOptions, sets []*migrationSet, split map[dirExt]bool, compiled []crdFile, unreadable []string) string {
	dir := m.Dir
	// What a glob dir/*.ext takes beside the templates, by directory and
	// extension: the compiled CRDs, and the files no YAML reader reads
	// (both excluded by name).
	beside := map[dirExt][]string{}
	for _, c := range compiled {
		k := dirExt{filepath.Dir(c.path), filepath.Ext(c.path)}
		beside[k] = append(beside[k], c.path)
	}
	unread := map[string]bool{}
	for _, u := range unreadable {
		k := dirExt{filepath.Dir(u), filepath.Ext(u)}
		beside[k] = append(beside[k], u)
		unread[u] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by `k8s-crd-resolver migrate`: the Kubernetes minor the Python tool's\n")
	fmt.Fprintf(&b, "# pinned $refs named, and where their compiled CRDs were found. Bump\n")
	fmt.Fprintf(&b, "# kubernetesVersion, then review `k8s-crd-resolver check` (or diff).\n")
	fmt.Fprintf(&b, "kubernetesVersion: %q\nsets:\n", m.Minor)
	for _, s := range sets {
		var globs, excludes []string
		globbed := map[string]bool{}
		for _, t := range s.templates {
			abs := filepath.Join(dir, filepath.FromSlash(t))
			k := dirExt{filepath.Dir(abs), filepath.Ext(abs)}
			if split[k] {
				globs = append(globs, t)
				m.Notes = append(m.Notes, fmt.Sprintf("%s is listed by name: the templates beside it go to other sets, so a template added to %s/ later is in no set until you add it to one", t, fileio.Rel(dir, k.dir)))
				continue
			}
			g := path.Join(path.Dir(t), "*"+k.ext)
			if globbed[g] {
				continue
			}
			globbed[g] = true
			globs = append(globs, g)
			for _, f := range slices.Sorted(slices.Values(beside[k])) {
				excludes = append(excludes, fileio.Rel(dir, f))
				if unread[f] {
					m.Notes = append(m.Notes, fmt.Sprintf("%s cannot be read as YAML (a Helm template? a typo?): excluded from the glob %s, so no build takes it for a template", fileio.Rel(dir, f), g))
				}
			}
		}
		b.WriteString("  - templates:\n")
		for _, g := range globs {
			fmt.Fprintf(&b, "      - %q\n", g)
		}
		if len(excludes) > 0 {
			b.WriteString("    exclude:\n")
			for _, e := range excludes {
				fmt.Fprintf(&b, "      - %q\n", e)
			}
		}
		b.WriteString("    outputs:\n")
		for _, o := range s.outputs {
			fmt.Fprintf(&b, "      - %q\n", o)
		}
		switch {
		case opts.RemoveDescriptions:
			b.WriteString("    removeDescriptions: true\n")
		case s.matched > 0 && s.stripped == s.matched:
			b.WriteString("    removeDescriptions: true\n")
			m.Notes = append(m.Notes, fmt.Sprintf("the compiled CRDs in %s carry none of Kubernetes' descriptions (the Python tool ran with -r): removeDescriptions: true recorded", strings.Join(s.outputs, ", ")))
		}
	}
	return b.String()
}

// crdDescriptions is crdNames, and how many description keys the file's
// documents hold (at any depth).
func crdDescriptions(data []byte) (names []string, isCRD bool, descriptions int, readable bool) {
	docs, err := docread.Decode("file", data, 0)
	if err != nil {
		return nil, false, 0, false
	}
	if names, isCRD = crdNames(docs); !isCRD {
		return names, false, 0, true
	}
	var count func(v any)
	count = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "description" {
					descriptions++
				}
				count(x)
			}
		case []any:
			for _, x := range v {
				count(x)
			}
		}
	}
	for _, d := range docs {
		count(d)
	}
	return names, isCRD, descriptions, true
}

// addVersion gives an existing configuration a top-level
// kubernetesVersion unless it has one. The key goes where the file's
// top-level mapping starts, in its style: a line at the indentation of its
// first key (after any comments and a "---"), or the first entry of a flow
// mapping. The result is parsed again and must be the same configuration
// with the version added, else nothing is written. A set that overrides
// kubernetesVersion with another minor is refused: its templates would
// compile at that one, not at the pins'.
func addVersion(reader *fileio.Reader, dir, config, minor string) (*FileEdit, string, error) {
	src, err := reader.ReadFile(config)
	if err != nil {
		return nil, "", err
	}
	name := fileio.Rel(dir, config)
	c, err := ParseConfig(name, src)
	if err != nil {
		return nil, "", err
	}
	for i, s := range c.Sets {
		if s.KubernetesVersion != "" && s.KubernetesVersion != minor {
			return nil, "", fmt.Errorf("%w: %s: sets[%d] sets kubernetesVersion %s, which overrides the %s the pins named: once the pins are gone its templates would compile at %s; nothing was written: set it to %s (or remove it) and run migrate again",
				ErrConfig, c.line(name, fmt.Sprintf("sets[%d]", i)), i, s.KubernetesVersion, minor, s.KubernetesVersion, minor)
		}
	}
	if c.Policy.KubernetesVersion != "" {
		if err := sameMinor(name, c, minor); err != nil {
			return nil, "", err
		}
		return nil, fmt.Sprintf("%s already sets kubernetesVersion %s: left as it is", name, c.Policy.KubernetesVersion), nil
	}
	out, err := insertVersion(src, minor)
	if err == nil {
		var got *Config
		if got, err = ParseConfig(name, out); err == nil {
			want := *c
			want.Policy.KubernetesVersion = minor
			want.lines, got.lines = nil, nil
			if !reflect.DeepEqual(&want, got) {
				err = errors.New("the edited file reads as another configuration")
			}
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: cannot add kubernetesVersion %q to it (%w); nothing was written: add the line yourself and run migrate again", ErrConfig, name, minor, err)
	}
	return &FileEdit{Path: config, Name: name, Old: src, New: out, Config: true}, fmt.Sprintf("%s: kubernetesVersion %s added", name, minor), nil
}

// insertVersion returns src with a kubernetesVersion key first in its
// top-level mapping (see addVersion).
func insertVersion(src []byte, minor string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	entry := fmt.Sprintf("kubernetesVersion: %q", minor)
	if doc.Kind == 0 || len(doc.Content) == 0 { // comments alone
		out := slices.Clone(src)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, entry+"\n"...), nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("its top level is not a mapping")
	}
	if root.Style&yaml.FlowStyle != 0 {
		at := offset(src, root.Line, root.Column) // the "{"
		if at < 0 || at >= len(src) || src[at] != '{' {
			return nil, errors.New("no \"{\" where its flow mapping starts")
		}
		sep := ", "
		if len(root.Content) == 0 {
			sep = ""
		}
		return slices.Concat(src[:at+1], []byte(entry+sep), src[at+1:]), nil
	}
	first := root.Content[0]
	at := offset(src, first.Line, 1) // the start of the first key's line
	if at < 0 {
		return nil, errors.New("no line where its first key stands")
	}
	indent := strings.Repeat(" ", first.Column-1)
	return slices.Concat(src[:at], []byte(indent+entry+"\n"), src[at:]), nil
}

// offset is the byte offset of line and column (1-based, columns in
// runes as yaml.v3 counts them) in src, or -1.
func offset(src []byte, line, column int) int {
	at := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[at:], '\n')
		if i < 0 {
			return -1
		}
		at += i + 1
	}
	for c := 1; c < column; c++ {
		_, size := utf8.DecodeRune(src[at:])
		if size == 0 {
			return -1
		}
		at += size
	}
	return at
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
		if !mayBeTemplate(d.Name()) || !d.Type().IsRegular() {
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
		s, err := difflib.GetUnifiedDiffString(d)
		if err != nil {
			return err
		}
		// The lines are the repository's, the markers ours: each line is
		// quoted as check's diffs are, so a template cannot forge one.
		if _, err := io.WriteString(w, safetext.Lines(s)); err != nil {
			return err
		}
	}
	return nil
}

// Apply writes the edits through the door as one transaction: every file
// staged first (nothing changes when one cannot be), then all renamed at
// once against an interrupt (fileio.WriteAll): SIGINT or SIGTERM leaves
// every file rewritten or none. The configuration is renamed first: were
// the process killed outright between two renames, the pins left in the
// templates make the next migrate finish the work, where templates
// rewritten without the configuration would have lost the pinned minor.
// The files are the user's own templates and configuration, rewritten on
// the user's command: no generated header is asked of them.
func (m *Migration) Apply() error {
	w := fileio.NewWriter(fileio.WriterOptions{Root: m.Dir, Force: true})
	defer w.Close()
	edits := slices.Clone(m.Edits)
	slices.SortStableFunc(edits, func(a, b FileEdit) int {
		switch {
		case a.Config == b.Config:
			return 0
		case a.Config:
			return -1
		}
		return 1
	})
	_, err := fileio.WriteAll(len(edits), func(i int) (*fileio.Staged, error) {
		return w.Stage(edits[i].Path, func(wr io.Writer) error {
			_, err := wr.Write(edits[i].New)
			return err
		})
	})
	return err
}
