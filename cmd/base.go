package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/gitobj"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/schemadiff"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// A pull request's outputs are compared with its base's (check --base, diff --base) as
// committed, read from git's object store, never checked out: what the base holds is the
// outputs a cluster may have applied, and the working tree holds what the pull request
// ships. Each side is every output of the project: every YAML file below the project
// directory (hidden directories, testdata, vendor, node_modules and other projects left
// out, as build leaves them out) whose first line is the generated header but that no
// template glob matches (a file a glob matches is a template), and every file
// at a path a template compiles to now (an output the Python tool wrote has no header).
// Both sides are chosen by the same rule, so an output added, removed or renamed between
// the two shows as such, and a CRD that moved to another file is compared with its old
// self (schemadiff.CompareFiles).

// baseComparison is the comparison of a project's outputs at a base commit with the
// working tree's.
type baseComparison struct {
	ref    string
	files  int // output files on either side
	groups []schemadiff.Group
}

// headBytes is how much of a file is read to look for the generated header: a header
// longer than this (a template name of kilobytes) is no header.
const headBytes = 4096

// compareWithBase compares the outputs of proj as committed at rev with those of the work
// tree. minors gives the Kubernetes version whose update rules classify each output (by
// absolute path; others get fallback).
func compareWithBase(ctx context.Context, proj *project.Project, rev string, minors map[string]string, fallback string) (*baseComparison, error) {
	repo, err := gitobj.Open(ctx, proj.Dir)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w", rev, err)
	}
	commit, err := repo.Commit(ctx, rev)
	if err != nil {
		return nil, fmt.Errorf("--base: %w", err)
	}
	_, dir, err := topAndDir(repo.Top, proj.Dir)
	if err != nil {
		return nil, err
	}
	// The keys of the outputs templates compile to now, and their minors; and the places
	// to list: the project directory and output directories outside it.
	configured := map[string]string{}
	places := []string{dir}
	outside := map[string]bool{} // output directories outside the project directory
	// A file a template glob matches is a template whatever its first line (a
	// copied output, say): on neither side an output.
	templates := map[string]bool{}
	for _, t := range proj.Templates {
		if rel, err := filepath.Rel(proj.Dir, t.Path); err == nil {
			templates[gitobj.Join(dir, filepath.ToSlash(rel))] = true
		}
		for _, out := range t.Outputs {
			rel, err := filepath.Rel(proj.Dir, out)
			if err != nil {
				return nil, err
			}
			key := gitobj.Join(dir, filepath.ToSlash(rel))
			v, ok := minors[out]
			if !ok {
				v = t.Policy.KubernetesVersion
			}
			configured[key] = v
			if d := path.Dir(key); !below(dir, key) && !outside[d] {
				outside[d] = true
				places = append(places, d)
			}
		}
	}
	entries, err := repo.Tree(ctx, commit, true, pathspecs(places)...)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w", rev, err)
	}
	work, err := repo.Files(ctx, pathspecs(places)...)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w", rev, err)
	}
	var keys []string
	for _, e := range entries {
		keys = append(keys, e.Path)
	}
	filter := outputFilter(dir, configured, append(keys, work...))
	keep := func(key string) bool { return !templates[key] && filter(key) }

	reader := proj.Reader()
	abs := func(key string) string {
		rel, _ := filepath.Rel(filepath.FromSlash(dir), filepath.FromSlash(key))
		if dir == "" {
			rel = filepath.FromSlash(key)
		}
		return filepath.Join(proj.Dir, rel)
	}

	// The base: regular files only (a symbolic link or submodule at the base is nothing
	// build wrote), read through the reader's size limit.
	var blobs []gitobj.Entry
	for _, e := range entries {
		if e.Regular() && keep(e.Path) {
			blobs = append(blobs, e)
		}
	}
	var old []schemadiff.Content
	oids := make([]string, len(blobs))
	for i, e := range blobs {
		oids[i] = e.OID
	}
	err = repo.Blobs(ctx, oids, func(i int, size int64, rd io.Reader) error {
		key := blobs[i].Path
		name := rev + ":" + key
		br := bufio.NewReaderSize(rd, headBytes)
		head, _ := br.Peek(int(min(size, headBytes)))
		if _, ok := configured[key]; !ok && !project.IsGenerated(head) {
			return nil
		}
		data, err := reader.ReadFrom(name, br)
		if err != nil {
			return err
		}
		old = append(old, schemadiff.Content{Key: key, Shown: name, Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w", rev, err)
	}

	// The work tree: through the project's door, as build reads its outputs.
	var now []schemadiff.Content
	for _, key := range work {
		if !keep(key) {
			continue
		}
		p := abs(key)
		_, isConfigured := configured[key]
		head, err := reader.ReadHead(p, headBytes)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // deleted, not yet staged
		case err != nil && isConfigured:
			return nil, err
		case err != nil:
			continue // unreadable: nothing build wrote
		case !isConfigured && !project.IsGenerated(head):
			continue
		}
		data, err := reader.ReadFile(p)
		if err != nil {
			return nil, err
		}
		now = append(now, schemadiff.Content{Key: key, Shown: proj.Shown(p), Data: data})
	}

	shown := map[string]string{}
	for _, f := range old {
		shown[f.Key] = proj.Shown(abs(f.Key))
	}
	for _, f := range now {
		shown[f.Key] = f.Shown
	}
	reps, err := schemadiff.CompareContents(old, now, func(key string) string {
		if v, ok := configured[key]; ok {
			return v
		}
		return fallback
	})
	if err != nil {
		return nil, err
	}
	groups, err := schemadiff.GroupFiles(reps, shown)
	if err != nil {
		return nil, err
	}
	return &baseComparison{ref: rev, files: len(reps), groups: groups}, nil
}

// outputFilter returns whether a key (a path relative to the git top level) names an
// output of the project in directory dir: a configured output, or a YAML file below dir
// outside the directories build does not search (hidden ones, testdata, vendor,
// node_modules, other projects': those holding a configuration file among keys), and
// not a writer's temporary file.
func outputFilter(dir string, configured map[string]string, keys []string) func(string) bool {
	others := map[string]bool{}
	for _, k := range keys {
		if path.Base(k) == project.ConfigFileName && path.Dir(k) != orDot(dir) {
			others[path.Dir(k)] = true
		}
	}
	return func(key string) bool {
		if _, ok := configured[key]; ok {
			return true
		}
		if !isYAML(key) || !below(dir, key) {
			return false
		}
		for d := path.Dir(key); d != orDot(dir) && d != "."; d = path.Dir(d) {
			if project.SkippedDir(path.Base(d)) || others[d] {
				return false
			}
		}
		return !fileio.IsTemp(path.Base(key))
	}
}

func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// below reports whether key is below dir ("" the top level).
func below(dir, key string) bool {
	return dir == "" || strings.HasPrefix(key, dir+"/")
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// pathspecs are places as git takes them (":/" pathspec magic is not needed: git runs in
// the top level); the top level itself is no restriction.
func pathspecs(places []string) []string {
	if slices.Contains(places, "") {
		return nil
	}
	out := make([]string, len(places))
	for i, p := range places {
		out[i] = ":(literal)" + p
	}
	return out
}

// topAndDir returns the git top level and dir relative to it, slash-separated ("" for
// the top level itself), symbolic links resolved on both.
func topAndDir(top, dir string) (string, string, error) {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", "", err
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", "", err
	}
	rel, err := filepath.Rel(realTop, realDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("%s is not in the git work tree %s", dir, top)
	}
	if rel == "." {
		rel = ""
	}
	return realTop, filepath.ToSlash(rel), nil
}

// gitSide reads REF:PATH (PATH as git names it: relative to the top level, or to the
// working directory when it starts with ./ or ../) through reader: one file, or the
// *.yaml, *.yml and *.json files of a directory (not its subdirectories'), as a directory
// argument stands for. dir reports which.
func gitSide(ctx context.Context, reader *fileio.Reader, arg string) (files []schemadiff.Content, dir bool, err error) {
	rev, p, _ := strings.Cut(arg, ":")
	wd, err := os.Getwd()
	if err != nil {
		return nil, false, err
	}
	repo, err := gitobj.Open(ctx, wd)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", arg, err)
	}
	commit, err := repo.Commit(ctx, rev)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", arg, err)
	}
	if p == "." || p == "./" || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || p == ".." {
		_, rel, err := topAndDir(repo.Top, wd)
		if err != nil {
			return nil, false, err
		}
		p = path.Join(orDot(rel), p)
	}
	p = strings.Trim(path.Clean("/"+p), "/")
	if strings.HasPrefix(p, "..") {
		return nil, false, fmt.Errorf("%s: the path leaves the repository", arg)
	}
	var entries []gitobj.Entry
	if p != "" {
		if entries, err = repo.Tree(ctx, commit, false, ":(literal)"+p); err != nil {
			return nil, false, fmt.Errorf("%s: %w", arg, err)
		}
		if len(entries) == 0 || entries[0].Path != p {
			return nil, false, fmt.Errorf("%s: no such file or directory at %s", arg, rev)
		}
	}
	switch {
	case p == "" || entries[0].Type == "tree":
		dir = true
		spec := ":(literal)" + p + "/"
		if p == "" {
			spec = "."
		}
		if entries, err = repo.Tree(ctx, commit, false, spec); err != nil {
			return nil, false, fmt.Errorf("%s: %w", arg, err)
		}
		entries = slices.DeleteFunc(entries, func(e gitobj.Entry) bool {
			if e.Type == "tree" || e.Type == "commit" {
				return true
			}
			for _, pat := range fileio.ListedExtensions {
				if ok, _ := path.Match(pat, path.Base(e.Path)); ok {
					return false
				}
			}
			return true
		})
	case !entries[0].Regular():
		return nil, false, fmt.Errorf("%s: is not a regular file at %s (git mode %s)", arg, rev, entries[0].Mode)
	}
	oids := make([]string, len(entries))
	for i, e := range entries {
		if !e.Regular() {
			return nil, false, fmt.Errorf("%s:%s: is not a regular file at %s (git mode %s)", rev, e.Path, rev, e.Mode)
		}
		oids[i] = e.OID
	}
	err = repo.Blobs(ctx, oids, func(i int, _ int64, rd io.Reader) error {
		name := rev + ":" + entries[i].Path
		data, err := reader.ReadFrom(name, rd)
		if err != nil {
			return err
		}
		files = append(files, schemadiff.Content{Key: path.Base(entries[i].Path), Shown: name, Data: data})
		return nil
	})
	return files, dir, err
}

// diffBase is diff --base: the outputs of the project of the working directory as
// committed at rev, compared with the working tree's.
func diffBase(c *cobra.Command, opts project.Options, rev string) ([]schemadiff.Group, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	proj, err := project.Open(wd, opts)
	if err != nil {
		return nil, err
	}
	cmp, err := compareWithBase(c.Context(), proj, rev, nil, proj.Config.Policy.KubernetesVersion)
	if err != nil {
		return nil, err
	}
	return cmp.groups, nil
}
