package cmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

// copyTree copies the directory src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
}

// TestMigrateDaskLayout moves a copy of dask-kubernetes' layout (its
// templates pin python://k8s_crd_resolver/schemata/k8s-1.21.1.json, its
// Helm chart holds the compiled CRDs) off the Python tool: the hook's own
// command line first, then migrate, then a Kubernetes bump.
func TestMigrateDaskLayout(t *testing.T) {
	abs, proj, hook := daskAfterPythonHook(t)
	res := "dask_kubernetes/operator/customresources/"

	stdout, stderr, code := runCmd(t, proj, "", "migrate", "-r")
	require.Equal(t, 0, code, stderr)
	golden.Check(t, filepath.Join(abs, "cmd/migrate-dask.txt"), []byte(stdout+"--- stderr\n"+stderr))
	require.NoFileExists(t, filepath.Join(proj, ".crd-resolver.yaml"), "a dry run writes nothing")

	_, stderr, code = runCmd(t, proj, "", "migrate", "-r", "--write")
	require.Equal(t, 0, code, stderr)
	defs, err := os.ReadFile(filepath.Join(proj, res+"templates.yaml"))
	require.NoError(t, err)
	require.NotContains(t, string(defs), "k8s_crd_resolver/schemata")
	require.NotContains(t, string(defs), "raw.githubusercontent.com")
	require.Contains(t, string(defs), "python://dask_kubernetes/", "file refs stay as they were")

	// build at the recorded version replaces the Python tool's outputs
	// (no --force) with exactly what the pinned templates gave.
	buildGivesHookBytes(t, proj, hook)

	// Now the versions differ for real.
	stdout, stderr, code = runCmd(t, proj, "", "diff", "--from", "1.21", "--to", "1.37")
	require.Equal(t, 1, code, stderr)
	require.Regexp(t, `total: [1-9][0-9]* breaking, [1-9][0-9]* compatible`, stdout)
	require.NotContains(t, stderr, "pin")
}

// TestMigrateAgainAndLater: migrate without -r records removeDescriptions
// when the committed outputs carry none of Kubernetes' descriptions (build
// then gives the same bytes); a second migrate is a no-op (exit 0); and a
// template added to the templates' directory later is in the project:
// check fails until build compiled it.
func TestMigrateAgainAndLater(t *testing.T) {
	_, proj, hook := daskAfterPythonHook(t)
	res := "dask_kubernetes/operator/customresources/"
	crds := "dask_kubernetes/operator/deployment/helm/dask-kubernetes-operator/crds/"
	_, stderr, code := runCmd(t, proj, "", "migrate", "--write")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "removeDescriptions: true recorded")
	require.Contains(t, stderr, "in 1 file(s); wrote .crd-resolver.yaml;")
	buildGivesHookBytes(t, proj, hook)
	cfg, err := os.ReadFile(filepath.Join(proj, ".crd-resolver.yaml"))
	require.NoError(t, err)

	stdout, stderr, code := runCmd(t, proj, "", "migrate", "--write")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "nothing to migrate")
	again, err := os.ReadFile(filepath.Join(proj, ".crd-resolver.yaml"))
	require.NoError(t, err)
	require.Equal(t, string(cfg), string(again), "a second migrate changes nothing")

	_, stderr, code = runCmd(t, proj, "", "check", "--no-validate")
	require.Equal(t, 0, code, stderr)
	tpl, err := os.ReadFile(filepath.Join(proj, res+"daskworkergroup.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(proj, res+"daskpool.yaml"), []byte(strings.ReplaceAll(strings.ReplaceAll(string(tpl), "daskworkergroup", "daskpool"), "DaskWorkerGroup", "DaskPool")), 0o644))
	stdout, stderr, code = runCmd(t, proj, "", "check", "--no-validate")
	require.Equal(t, 1, code, stdout+stderr)
	require.Contains(t, stdout, "missing: "+crds+"daskpool.yaml (from "+res+"daskpool.yaml)")
}

// buildGivesHookBytes: build in proj writes into the chart exactly what the
// Python tool's command line gave (hook).
func buildGivesHookBytes(t *testing.T, proj string, hook map[string]string) {
	t.Helper()
	_, stderr, code := runCmd(t, proj, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	for n, want := range hook {
		got, err := os.ReadFile(filepath.Join(proj, "dask_kubernetes/operator/deployment/helm/dask-kubernetes-operator/crds/"+n+".yaml"))
		require.NoError(t, err)
		require.Equal(t, want, string(got), "%s: build after migrate gives the hook's bytes", n)
	}
}

// daskAfterPythonHook is a copy of dask-kubernetes' layout in a temporary
// directory after its hook ran the Python tool's command line (with -r):
// the Helm chart holds the compiled CRDs without a header; hook holds what
// our SRC DST line gave, by CRD file name.
func daskAfterPythonHook(t *testing.T) (abs, proj string, hook map[string]string) {
	t.Helper()
	abs, err := filepath.Abs("../testdata")
	require.NoError(t, err)
	proj = t.TempDir()
	copyTree(t, filepath.Join(abs, "dask-layout"), proj)
	require.NoError(t, os.MkdirAll(filepath.Join(proj, ".git"), 0o755))
	res := "dask_kubernetes/operator/customresources/"
	crds := "dask_kubernetes/operator/deployment/helm/dask-kubernetes-operator/crds/"
	// git keeps no empty directory: the chart's crds/ is made here.
	require.NoError(t, os.MkdirAll(filepath.Join(proj, crds), 0o755))
	tmp := t.TempDir()
	hook = map[string]string{}
	for _, n := range []string{"daskcluster", "daskworkergroup"} {
		// What ci/pre-commit-crd.py runs: DST in a temporary directory.
		dst := filepath.Join(tmp, n+".yaml")
		_, stderr, code := runCmd(t, proj, "", "-r", "-j", res+n+".patch.yaml", res+n+".yaml", dst)
		require.Equal(t, 0, code, stderr)
		b, err := os.ReadFile(dst)
		require.NoError(t, err)
		hook[n] = string(b)
		require.True(t, strings.HasPrefix(hook[n], "# Code generated by k8s-crd-resolver from "+res+n+".yaml for Kubernetes 1.21; sha256:"), "the header names the pinned minor")
		// What the Python tool left in the chart: no header.
		_, body, _ := strings.Cut(hook[n], "\n")
		require.NoError(t, os.WriteFile(filepath.Join(proj, crds+n+".yaml"), []byte(body), 0o644))
	}
	return abs, proj, hook
}

// TestDiffVersionsSaysPinsWin: with pins in the templates, diff --from
// --to says why the sides are the same instead of passing for "nothing
// changed".
func TestDiffVersionsSaysPinsWin(t *testing.T) {
	abs, err := filepath.Abs("../testdata")
	require.NoError(t, err)
	proj := t.TempDir()
	copyTree(t, filepath.Join(abs, "dask-layout"), proj)
	require.NoError(t, os.MkdirAll(filepath.Join(proj, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, ".crd-resolver.yaml"), []byte("sets:\n- templates: [dask_kubernetes/operator/customresources/*.yaml]\n  outputs: [dist]\n"), 0o644))
	_, stderr, code := runCmd(t, proj, "", "diff", "--from", "1.30", "--to", "1.37")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "note: dask_kubernetes/operator/customresources/daskcluster.yaml: its $refs pin Kubernetes 1.21")
	require.Contains(t, stderr, "k8s-crd-resolver migrate")
}

// TestBuildTakesOverAndListsRefusals: build replaces a CRD of the same
// name that lacks the header (the Python tool's output), refuses
// anything else, and names every refused file in one run, writing none.
func TestBuildTakesOverAndListsRefusals(t *testing.T) {
	proj := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(proj, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "templates"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "dist"), 0o755))
	for _, n := range []string{"widget", "gadget", "doohickey"} {
		tpl := strings.ReplaceAll(strings.ReplaceAll(template, "widgets", n+"s"), "Widget", strings.ToUpper(n[:1])+n[1:])
		require.NoError(t, os.WriteFile(filepath.Join(proj, "templates", n+".yaml"), []byte(tpl), 0o644))
	}
	python := strings.Replace(pythonOutput, "widgets", "doohickeys", 1)
	require.NoError(t, os.WriteFile(filepath.Join(proj, "dist/doohickey.yaml"), []byte(python), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "dist/widget.yaml"), []byte("mine\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "dist/gadget.yaml"), []byte(strings.Replace(pythonOutput, "widgets", "others", 1)), 0o644))

	_, stderr, code := runCmd(t, proj, "", "build", "--no-validate")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "error: dist/gadget.yaml was not generated by k8s-crd-resolver")
	require.Contains(t, stderr, "error: dist/widget.yaml was not generated by k8s-crd-resolver")
	require.NotContains(t, stderr, "doohickey")
	got, err := os.ReadFile(filepath.Join(proj, "dist/doohickey.yaml"))
	require.NoError(t, err)
	require.Equal(t, python, string(got), "nothing written when any file is refused")

	require.NoError(t, os.Remove(filepath.Join(proj, "dist/widget.yaml")))
	require.NoError(t, os.Remove(filepath.Join(proj, "dist/gadget.yaml")))
	_, stderr, code = runCmd(t, proj, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	got, err = os.ReadFile(filepath.Join(proj, "dist/doohickey.yaml"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(got), "# Code generated by k8s-crd-resolver"), "the Python tool's output taken over")
}

// TestResolveFollowsTheProject: inside a project, resolve and the Python
// tool's SRC DST line compile a template exactly as build does (the set's
// version, descriptions and patch); --no-config compiles it bare, and a
// flag given on the command line wins over the configuration.
func TestResolveFollowsTheProject(t *testing.T) {
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(repo, "dist/daskcluster.yaml"))
	require.NoError(t, err)
	tmp := t.TempDir()
	for _, args := range [][]string{
		{"resolve", "templates/daskcluster.yaml", "--no-validate", "-o", filepath.Join(tmp, "a.yaml")},
		{"templates/daskcluster.yaml", filepath.Join(tmp, "b.yaml")},
	} {
		_, stderr, code := runCmd(t, repo, "", args...)
		require.Equal(t, 0, code, stderr)
		got, err := os.ReadFile(args[len(args)-1])
		if args[0] == "resolve" {
			got, err = os.ReadFile(filepath.Join(tmp, "a.yaml"))
		}
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%v gives build's bytes", args)
	}
	_, stderr, code := runCmd(t, repo, "", "resolve", "templates/daskcluster.yaml", "--no-validate", "--no-config", "-o", filepath.Join(tmp, "c.yaml"))
	require.Equal(t, 0, code, stderr)
	bare, err := os.ReadFile(filepath.Join(tmp, "c.yaml"))
	require.NoError(t, err)
	require.NotEqual(t, string(want), string(bare), "--no-config keeps Kubernetes' descriptions (the set removes them)")
	_, stderr, code = runCmd(t, repo, "", "resolve", "templates/daskcluster.yaml", "--no-validate", "--k8s-version", "1.30", "-o", filepath.Join(tmp, "d.yaml"))
	require.Equal(t, 0, code, stderr)
	d, err := os.ReadFile(filepath.Join(tmp, "d.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(d), "for Kubernetes 1.30; sha256:", "the flag wins over kubernetesVersion")
}
