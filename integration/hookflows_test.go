package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// localHooks is a .pre-commit-config.yaml running this repository's
// .pre-commit-hooks.yaml as local hooks: every key of each hook as the
// file says (types, always_run, pass_filenames...), but the binary built
// by TestMain instead of one pre-commit installs (TestPreCommitHooks
// covers the install).
func localHooks(t *testing.T) string {
	t.Helper()
	var hooks []map[string]any
	if err := yaml.Unmarshal([]byte(read(t, "..", ".pre-commit-hooks.yaml")), &hooks); err != nil {
		t.Fatal(err)
	}
	for _, h := range hooks {
		h["language"] = "system"
		entry, ok := strings.CutPrefix(h["entry"].(string), "k8s-crd-resolver ")
		if !ok {
			t.Fatalf("hook %v: entry %q does not run k8s-crd-resolver", h["id"], h["entry"])
		}
		h["entry"] = filepath.Join(binDir, "k8s-crd-resolver") + " " + entry
	}
	out, err := yaml.Marshal(map[string]any{"repos": []any{map[string]any{"repo": "local", "hooks": hooks}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// hookRepo is a git repository with the hooks installed, and the first
// commit of files made (its outputs built by the hook: blocked, then
// committed).
func hookRepo(t *testing.T, files map[string]string) (repo, home string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs the real pre-commit")
	}
	if _, err := exec.LookPath("pre-commit"); err != nil {
		t.Fatal("pre-commit is not installed (Debian: apt-get install pre-commit); go test -short skips this test")
	}
	repo, home = t.TempDir(), t.TempDir()
	git(t, repo, "init", "-q")
	for name, content := range files {
		write(t, repo, name, content)
	}
	write(t, repo, ".pre-commit-config.yaml", localHooks(t))
	preCommit(t, repo, home, "install").must(t, 0)
	git(t, repo, "add", ".")
	commit(t, repo, home, "templates").must(t, 1)
	git(t, repo, "add", ".")
	commit(t, repo, home, "templates and CRDs").must(t, 0)
	return repo, home
}

// TestHookRenameDelete: under the real pre-commit and this repository's
// hook definitions, renaming or deleting a template, or moving the output
// directory, leaves no compiled CRD behind: the hook removes it (blocking
// the commit once), and the check hook fails on it; a renamed template's
// CRD is reported moved, never "crd-removed".
func TestHookRenameDelete(t *testing.T) {
	repo, home := hookRepo(t, map[string]string{
		".crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\nremoveDescriptions: true\n",
		"templates/widget.yaml": crdTemplate("widgets", "$ref: io.k8s.api.core.v1.ResourceRequirements"),
		"templates/extra.yaml":  crdTemplate("extras", "type: object"),
	})
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(repo, filepath.FromSlash(name)))
		return err == nil
	}
	tracked := func() string { return git(t, repo, "ls-files", "dist", "crds") }

	// Rename: the hook gets templates/gadget.yaml only, and still removes
	// dist/widget.yaml.
	git(t, repo, "mv", "templates/widget.yaml", "templates/gadget.yaml")
	r := preCommit(t, repo, home, "run", "k8s-crd-resolver-check").must(t, 1)
	contains(t, "check after rename", r.stdout, "missing: dist/gadget.yaml (from templates/gadget.yaml)", "unexpected: dist/widget.yaml")
	if strings.Contains(r.stdout, "crd-removed") || strings.Contains(r.stdout, "every stored object") {
		t.Errorf("a renamed template's CRD is called removed:\n%s", r.stdout)
	}
	r = commit(t, repo, home, "rename").must(t, 1)
	contains(t, "rename commit", r.stdout, "templates/gadget.yaml -> dist/gadget.yaml (created)", "removed dist/widget.yaml", "files were modified by this hook")
	if exists("dist/widget.yaml") {
		t.Error("dist/widget.yaml survived the rename")
	}
	git(t, repo, "add", "-A", "dist")
	commit(t, repo, home, "rename").must(t, 0)
	if got := tracked(); got != "dist/extra.yaml\ndist/gadget.yaml\n" {
		t.Errorf("after the rename git tracks:\n%s", got)
	}

	// Delete: pre-commit passes no file at all; the hook still runs.
	git(t, repo, "rm", "-q", "templates/extra.yaml")
	r = commit(t, repo, home, "delete").must(t, 1)
	contains(t, "delete commit", r.stdout, "removed dist/extra.yaml")
	git(t, repo, "add", "-A", "dist")
	commit(t, repo, home, "delete").must(t, 0)
	if got := tracked(); got != "dist/gadget.yaml\n" {
		t.Errorf("after the delete git tracks:\n%s", got)
	}

	// Another output directory: nothing generated stays in dist/, and
	// check fails on what is left there.
	write(t, repo, ".crd-resolver.yaml", "kubernetesVersion: \"1.30\"\nremoveDescriptions: true\nsets:\n  - templates: [\"templates/*.yaml\"]\n    outputs: [crds]\n")
	git(t, repo, "add", ".crd-resolver.yaml")
	r = preCommit(t, repo, home, "run", "k8s-crd-resolver-check").must(t, 1)
	contains(t, "check after the move", r.stdout, "missing: crds/gadget.yaml", "unexpected: dist/gadget.yaml (generated from templates/gadget.yaml, which now compiles to crds/gadget.yaml)")
	r = commit(t, repo, home, "crds").must(t, 1)
	contains(t, "move commit", r.stdout, "removed dist/gadget.yaml")
	git(t, repo, "add", "-A", "dist", "crds")
	commit(t, repo, home, "crds").must(t, 0)
	if got := tracked(); got != "crds/gadget.yaml\n" {
		t.Errorf("after the move git tracks:\n%s", got)
	}
	preCommit(t, repo, home, "run", "--all-files").must(t, 0)
}

// TestHookSubdirectoryProjects: projects in subdirectories of a
// repository (svc/ and api/, each with its .crd-resolver.yaml, none at the
// root): the hooks, run by pre-commit from the root with paths relative to
// it, find each file's project, and print paths as they are opened from
// the root.
func TestHookSubdirectoryProjects(t *testing.T) {
	cfg := "kubernetesVersion: \"1.30\"\nremoveDescriptions: true\n"
	repo, home := hookRepo(t, map[string]string{
		"svc/.crd-resolver.yaml":    cfg,
		"svc/templates/widget.yaml": crdTemplate("widgets", "type: object"),
		"api/.crd-resolver.yaml":    cfg,
		"api/templates/gizmo.yaml":  crdTemplate("gizmos", "type: object"),
		"deploy/values.yaml":        "replicas: 1\n",
	})
	if got := git(t, repo, "ls-files", "svc/dist", "api/dist"); got != "api/dist/gizmo.yaml\nsvc/dist/widget.yaml\n" {
		t.Errorf("after the first commit git tracks:\n%s", got)
	}
	// A YAML file of no project: nothing to do, and no "no templates" error.
	write(t, repo, "deploy/values.yaml", "replicas: 2\n")
	git(t, repo, "add", "deploy/values.yaml")
	commit(t, repo, home, "values").must(t, 0)

	// A change in svc/: svc's project rebuilds, named from the root.
	write(t, repo, "svc/templates/widget.yaml", crdTemplate("widgets", "$ref: io.k8s.api.core.v1.ResourceRequirements"))
	git(t, repo, "add", "svc")
	r := preCommit(t, repo, home, "run", "k8s-crd-resolver-check").must(t, 1)
	contains(t, "check", r.stdout, "stale: svc/dist/widget.yaml (from svc/templates/widget.yaml):", "--- a/svc/dist/widget.yaml")
	r = commit(t, repo, home, "svc").must(t, 1)
	contains(t, "svc commit", r.stdout, "svc/templates/widget.yaml -> svc/dist/widget.yaml (updated)")
	if strings.Contains(r.stdout, "gizmo") {
		t.Errorf("a change in svc/ rebuilt api/:\n%s", r.stdout)
	}
	git(t, repo, "add", "svc")
	commit(t, repo, home, "svc").must(t, 0)

	// Deleting api's template: no file passed, every project visited.
	git(t, repo, "rm", "-q", "api/templates/gizmo.yaml")
	write(t, repo, "api/templates/other.yaml", crdTemplate("others", "type: object"))
	git(t, repo, "add", "api")
	r = commit(t, repo, home, "api").must(t, 1)
	contains(t, "api commit", r.stdout, "removed api/dist/gizmo.yaml", "api/templates/other.yaml -> api/dist/other.yaml (created)")
	git(t, repo, "add", "-A", "api")
	commit(t, repo, home, "api").must(t, 0)
	preCommit(t, repo, home, "run", "--all-files").must(t, 0)

	// What the apiserver would reject is named from the root too.
	write(t, repo, "svc/templates/widget.yaml", strings.Replace(crdTemplate("widgets", "type: object"), "name: widgets.example.com", "name: wrong.example.com", 1))
	r = cli(t, repo, "build", "svc/templates/widget.yaml").must(t, 1)
	contains(t, "rejected", r.stderr, "error: svc/templates/widget.yaml: the apiserver would reject the output: wrong.example.com: metadata.name")
}
