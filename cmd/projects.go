package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// projectRun is one project a build or check acts on.
type projectRun struct {
	// config is the project's configuration file, "" for the default
	// project of the working directory.
	config string
	// optional: a default project that holds no template is no error,
	// only not there (a monorepo's root, whose projects live below it).
	optional bool
	// orphansOnly: no file argument is the project's; the hooks reach it
	// for the outputs no template produces any more (--files-only), and
	// build prints nothing of it unless it removed one.
	orphansOnly bool
}

// projectRuns says which projects build and check act on, from the
// working directory wd and the file arguments (relative to wd, as
// pre-commit passes them from the repository's root):
//   - --config: that project alone;
//   - file arguments: the project of each file (the nearest
//     .crd-resolver.yaml above it), and the working directory's default
//     project for files with none;
//   - no file argument: the project of wd (its configuration, or the
//     default one) and, inside a git work tree, every project below wd (a
//     directory with its own .crd-resolver.yaml, or a symbolic link of
//     that name; hidden directories, testdata, vendor, node_modules and
//     other repositories are not searched), as `go build ./...` reaches
//     every package below;
//   - --files-only (the hooks) with file arguments: both of the above, so
//     a commit staging files of one project still reaches every project's
//     full-build state (another project's deleted template leaves an
//     orphan the hook must remove or report).
//
// Without a configuration at or above wd the default project is optional
// when other projects were found or files were named.
func (f *projectFlags) projectRuns(wd string, files []string) ([]projectRun, error) {
	if f.opts.ConfigFile != "" {
		return []projectRun{{config: f.opts.ConfigFile}}, nil
	}
	configs := map[string]bool{} // config -> reached by no file argument
	if len(files) == 0 || f.filesOnly {
		own, err := project.FindConfig(wd)
		if err != nil {
			return nil, err
		}
		configs[own] = len(files) > 0
		// Below wd only within a git work tree (as FindConfig looks up only
		// within one): a run in $HOME by mistake searches nothing.
		var below []string
		if fileio.GitTop(wd) != "" {
			if below, err = configsBelow(wd); err != nil {
				return nil, err
			}
		}
		for _, b := range below {
			configs[b] = len(files) > 0
		}
	}
	for _, name := range files {
		cfg, err := project.FindConfigFor(filepath.Dir(absPath(wd, name)), wd)
		if err != nil {
			return nil, err
		}
		configs[cfg] = false
	}
	var runs []projectRun
	for _, cfg := range slices.Sorted(maps.Keys(configs)) {
		runs = append(runs, projectRun{config: cfg, optional: cfg == "" && (len(files) > 0 || len(configs) > 1), orphansOnly: configs[cfg]})
	}
	return runs, nil
}

// configsBelow lists the configuration files in the directories strictly
// below dir, sorted.
func configsBelow(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			return nil // an unreadable directory holds no project of ours
		}
		if !d.IsDir() {
			// A link is followed when the project is opened, confined to
			// the repository (one leading out of it is refused there).
			if d.Name() == project.ConfigFileName && filepath.Dir(path) != dir && (d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) {
				out = append(out, path)
			}
			return nil
		}
		if path != dir && project.SkippedDir(d.Name()) {
			return filepath.SkipDir
		}
		if _, err := os.Lstat(filepath.Join(path, ".git")); err == nil && path != dir {
			return filepath.SkipDir // another repository (a submodule, a vendored checkout)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	slices.Sort(out)
	return out, err
}

// compileProjects compiles (and validates) every project the run acts on
// (projectRuns), all of them before anything is written. Each gets every
// file argument: names outside it are ignored by its selection (Affected),
// and a template may reach a file of another project through a $ref.
//
// Nothing judged is no pass: a FILE that does not exist or is a directory
// is an error (pre-commit passes files that exist), and so, without
// --files-only, is a FILE no template reads (fileArgsRead).
func (f *projectFlags) compileProjects(c *cobra.Command, wd string, files []string) ([]*compiled, error) {
	if err := fileArgsExist(c, files); err != nil {
		return nil, err
	}
	runs, err := f.projectRuns(wd, files)
	if err != nil {
		return nil, err
	}
	if err := f.checkDisjoint(c, wd, runs); err != nil {
		return nil, err
	}
	var out []*compiled
	for _, r := range runs {
		comp, err := f.compileProject(c, wd, r, files)
		if err != nil {
			return nil, err
		}
		if comp != nil {
			out = append(out, comp)
		}
	}
	if len(files) > 0 && !f.filesOnly {
		if err := f.fileArgsRead(c, wd, files, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkDisjoint refuses, before anything is compiled or written, a project
// the run acts on whose output directories meet those of another project
// of the repository holding wd (its root's and every one below, the runs'
// too; project.CheckDisjoint): building one would remove the other's
// outputs. A configuration that cannot be read is left to the run that
// opens it.
func (f *projectFlags) checkDisjoint(c *cobra.Command, wd string, runs []projectRun) error {
	acting := map[string]bool{} // configuration ("" the default project) -> the run acts on its project
	for _, r := range runs {
		acting[r.config] = true
	}
	configs := slices.Collect(maps.Keys(acting))
	var pcs []project.ProjectConfig
	if top := fileio.GitTop(wd); top != "" {
		own, err := project.FindConfig(top)
		if err != nil {
			return err
		}
		below, err := configsBelow(top)
		if err != nil {
			return err
		}
		configs = append(append(configs, own), below...)
		if own == "" {
			if pc, ok := project.DefaultProjectConfig(top); ok {
				pc.Acting = acting[""]
				pcs = append(pcs, pc)
			}
		}
	}
	allow := f.opts.Policy.AllowOutsideRoot != nil && *f.opts.Policy.AllowOutsideRoot
	for _, file := range slices.Compact(slices.Sorted(slices.Values(configs))) {
		if file == "" {
			continue
		}
		if pc, err := project.ReadProjectConfig(wd, file, allow); err == nil {
			pc.Acting = acting[file]
			pcs = append(pcs, pc)
		}
	}
	if err := project.CheckDisjoint(wd, pcs); err != nil {
		printErrors(c.ErrOrStderr(), err)
		return quietExit(exitBadInput)
	}
	return nil
}

// fileArgsExist fails, naming each, on FILE arguments that are not there
// or are directories: build and check take the files that changed.
func fileArgsExist(c *cobra.Command, files []string) error {
	var bad []string
	for _, name := range files {
		fi, err := os.Stat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			what := ""
			if strings.ContainsAny(name, "*?[") {
				what = " (a glob that matched nothing, passed on by the shell as it is?)"
			}
			bad = append(bad, fmt.Sprintf("%s does not exist%s: %s's FILE arguments are files that changed (what pre-commit passes); give existing files, or none to %s every template", safetext.Quote(name), what, c.Name(), c.Name()))
		case err != nil:
			bad = append(bad, fmt.Sprintf("%s: %v", safetext.Quote(name), err))
		case fi.IsDir():
			bad = append(bad, fmt.Sprintf("%s is a directory: %s's FILE arguments are files that changed; run it with no FILE to %s every project at or below the working directory", safetext.Quote(name), c.Name(), c.Name()))
		}
	}
	return fileArgErrors(c, bad)
}

// fileArgsRead fails, naming each, on FILE arguments that no template of
// comps reads (a template, a file a $ref or patch of one reaches, one of
// its outputs, a configuration, an example judged, or a generated file
// whose template is gone): nothing would judge them, and nothing judged is
// no pass. A file
// that holds no object at all (empty, or only comments) has nothing to
// judge: a note says so. (--files-only, the hooks, ignores such files:
// pre-commit passes every staged YAML file.)
func (f *projectFlags) fileArgsRead(c *cobra.Command, wd string, files []string, comps []*compiled) error {
	read := map[string]bool{}
	for _, comp := range comps {
		read[comp.proj.ConfigFile] = true
		for _, e := range comp.examples {
			read[e] = true
		}
		for _, o := range comp.every {
			for _, p := range slices.Concat(o.Files, o.Template.Outputs) {
				read[p] = true
			}
		}
	}
	reader := fileio.NewReader(fileio.ProjectRoot(wd, wd), f.allowOutside, docread.MaxInputBytes)
	defer reader.Close()
	var bad []string
	for _, name := range files {
		if read[absPath(wd, name)] {
			continue
		}
		content, err := reader.ReadExplicit(name)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if project.IsGenerated(content) {
			continue // an output: outputs no template produces are looked for whatever the files
		}
		q := safetext.Quote(name)
		docs, err := docread.DecodeDocuments(name, content, 0)
		switch {
		case err == nil && len(docs) == 0:
			fmt.Fprintf(c.ErrOrStderr(), "note: %s holds no object (it is empty, or only comments): nothing to %s there\n", q, c.Name())
		case err == nil && slices.ContainsFunc(docs, func(d docread.Decoded) bool {
			m, _ := d.Value.(map[string]any)
			return m["kind"] == "CustomResourceDefinition"
		}):
			bad = append(bad, fmt.Sprintf("%s holds a CustomResourceDefinition, but no set of the project takes it as a template: nothing was %s; add it to a set's templates in %s (or compile it alone: k8s-crd-resolver resolve %s)", q, pastOf(c.Name()), project.ConfigFileName, q))
		default:
			bad = append(bad, fmt.Sprintf("%s: no template reads it (it is no template, no file a $ref or patch of one reaches, no output): nothing was %s; give the files templates read, or none to %s every template (--files-only, as the pre-commit hooks run, ignores such files)", q, pastOf(c.Name()), c.Name()))
		}
	}
	return fileArgErrors(c, bad)
}

// pastOf is "built" for build, "checked" for check.
func pastOf(verb string) string {
	if verb == "build" {
		return "built"
	}
	return verb + "ed"
}

// fileArgErrors prints each message as an error line and exits 2, or is nil.
func fileArgErrors(c *cobra.Command, msgs []string) error {
	if len(msgs) == 0 {
		return nil
	}
	for _, m := range msgs {
		fmt.Fprintf(c.ErrOrStderr(), "error: %s\n", m)
	}
	return quietExit(exitBadInput)
}

// shownPositions rewrites the file of each line of text (compile errors,
// "templates/w.yaml:3:5: ..." relative to the project directory) as the
// user opens it from the working directory (project.Shown:
// "svc/templates/w.yaml:3:5: ..." for a project in svc/ run from the
// root). A line whose start names no file of the project stays as it is.
func shownPositions(proj *project.Project, text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || name == "" || filepath.IsAbs(name) {
			continue
		}
		abs := filepath.Join(proj.Dir, filepath.FromSlash(name))
		if !strings.HasPrefix(abs, proj.Dir+string(filepath.Separator)) {
			continue // ../x: outside the project, left as it is
		}
		if shown := proj.Shown(abs); shown != filepath.ToSlash(name) {
			lines[i] = shown + ":" + rest
		}
	}
	return strings.Join(lines, "\n")
}

// shownName is a file name relative to the project directory (a template's,
// an example's) as the user opens it from the working directory.
func shownName(proj *project.Project, name string) string {
	if name == "" || filepath.IsAbs(name) {
		return name
	}
	return proj.Shown(filepath.Join(proj.Dir, filepath.FromSlash(name)))
}
