package cmd

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
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
//     directory with its own .crd-resolver.yaml; hidden directories,
//     testdata, vendor, node_modules and other repositories are not
//     searched), as `go build ./...` reaches every package below.
//
// Without a configuration at or above wd the default project is optional
// when other projects were found or files were named.
func (f *projectFlags) projectRuns(wd string, files []string) ([]projectRun, error) {
	if f.opts.ConfigFile != "" {
		return []projectRun{{config: f.opts.ConfigFile}}, nil
	}
	configs := map[string]bool{}
	if len(files) == 0 {
		own, err := project.FindConfig(wd)
		if err != nil {
			return nil, err
		}
		configs[own] = true
		// Below wd only within a git work tree (as FindConfig looks up only
		// within one): a run in $HOME by mistake searches nothing.
		var below []string
		if fileio.GitTop(wd) != "" {
			if below, err = configsBelow(wd); err != nil {
				return nil, err
			}
		}
		for _, b := range below {
			configs[b] = true
		}
	}
	for _, name := range files {
		cfg, err := project.FindConfigFor(filepath.Dir(absPath(wd, name)), wd)
		if err != nil {
			return nil, err
		}
		configs[cfg] = true
	}
	var runs []projectRun
	for _, cfg := range slices.Sorted(maps.Keys(configs)) {
		runs = append(runs, projectRun{config: cfg, optional: cfg == "" && (len(files) > 0 || len(configs) > 1)})
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
			if d.Name() == project.ConfigFileName && filepath.Dir(path) != dir && d.Type().IsRegular() {
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
func (f *projectFlags) compileProjects(c *cobra.Command, wd string, files []string) ([]*compiled, error) {
	runs, err := f.projectRuns(wd, files)
	if err != nil {
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
	return out, nil
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
