package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeTree writes files (slash-separated names relative to root).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// repo is a new git work tree (a .git/HEAD) holding files.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, map[string]string{".git/HEAD": ""})
	writeTree(t, root, files)
	return root
}

// gizmo is template as another CRD (gizmos.example.com).
var gizmo = strings.NewReplacer("widgets", "gizmos", "Widget", "Gizmo").Replace(template)

// TestProjectsFight: the root project writing into charts/op/crds, which
// charts/op's own project writes too (or one nested in it), is a
// configuration error naming both configurations at their lines, from
// the root and from the subproject alike, before anything is written.
// Two sets of one project sharing dist/ stay allowed.
func TestProjectsFight(t *testing.T) {
	for name, rootOutputs := range map[string]string{
		"same directory": "[dist, charts/op/crds]",
		"nested":         "[dist, charts/op/crds/v1]",
	} {
		t.Run(name, func(t *testing.T) {
			root := repo(t, map[string]string{
				".crd-resolver.yaml":              "kubernetesVersion: \"1.30\"\nsets:\n  - templates: [templates/*.yaml]\n    outputs: " + rootOutputs + "\n",
				"templates/widget.yaml":           template,
				"charts/op/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\nsets:\n  - templates: [src/*.yaml]\n    outputs:\n      - crds\n",
				"charts/op/src/gizmo.yaml":        gizmo,
				"charts/op/templates/deploy.yaml": "{{- include \"op.deployment\" . }}\n",
			})
			for _, wd := range []string{root, filepath.Join(root, "charts/op")} {
				stdout, stderr, code := runCmd(t, wd, "", "build", "--no-validate")
				require.Equal(t, 2, code, stdout+stderr)
				require.Contains(t, stderr, "sets[0].outputs[1]")
				require.Contains(t, stderr, ".crd-resolver.yaml:4 (sets[0].outputs[1]")
				require.Contains(t, stderr, ".crd-resolver.yaml:5 (sets[0].outputs[0] crds)")
				require.Contains(t, stderr, "nothing was built or removed")
				require.NoDirExists(t, filepath.Join(root, "dist"))
				require.NoDirExists(t, filepath.Join(root, "charts/op/crds"))
			}
			_, stderr, _ := runCmd(t, root, "", "build", "--no-validate")
			require.Contains(t, stderr, "error: bad configuration: .crd-resolver.yaml:4 (sets[0].outputs[1] charts/op/crds")
			require.Contains(t, stderr, "and charts/op/.crd-resolver.yaml:5 (sets[0].outputs[0] crds)")
		})
	}
	t.Run("a clash the run is not part of", func(t *testing.T) {
		root := repo(t, map[string]string{
			"svc/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\nsets:\n  - templates: [templates/*.yaml]\n    outputs: [../shared]\n",
			"svc/templates/widget.yaml": template,
			"api/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\nsets:\n  - templates: [templates/*.yaml]\n    outputs: [../shared]\n",
			"api/templates/gizmo.yaml":  gizmo,
			"web/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\n",
			"web/templates/thing.yaml":  strings.NewReplacer("widgets", "things", "Widget", "Thing").Replace(template),
		})
		stdout, stderr, code := runCmd(t, filepath.Join(root, "web"), "", "build", "--no-validate")
		require.Equal(t, 0, code, stdout+stderr)
		_, stderr, code = runCmd(t, root, "", "build", "--no-validate")
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, "api/.crd-resolver.yaml:4 (sets[0].outputs[0] ../shared) and svc/.crd-resolver.yaml:4 (sets[0].outputs[0] ../shared) write to the same output directory shared")
		require.NotContains(t, stderr, "web/")
	})
	t.Run("two sets of one project", func(t *testing.T) {
		root := repo(t, map[string]string{
			".crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\nsets:\n  - templates: [templates/*.yaml]\n    outputs: [dist]\n  - templates: [crds/*.yaml]\n    outputs: [dist]\n",
			"templates/widget.yaml": template,
			"crds/gizmo.yaml":       gizmo,
		})
		stdout, stderr, code := runCmd(t, root, "", "build", "--no-validate")
		require.Equal(t, 0, code, stdout+stderr)
		stdout, stderr, code = runCmd(t, root, "", "check", "--no-validate")
		require.Equal(t, 0, code, stdout+stderr)
	})
}

// TestHookReachesEveryProject: with projects svc/ and api/, a commit that
// deletes an api template and edits a svc one stages only svc's file; the
// hooks (--files-only) still reach api's full-build state: check fails on
// api/dist/old.yaml, and build removes it.
func TestHookReachesEveryProject(t *testing.T) {
	root := repo(t, map[string]string{
		"svc/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\n",
		"svc/templates/widget.yaml": template,
		"api/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\n",
		"api/templates/gizmo.yaml":  gizmo,
		"api/templates/old.yaml":    strings.NewReplacer("widgets", "olds", "Widget", "Old").Replace(template),
	})
	_, stderr, code := runCmd(t, root, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.FileExists(t, filepath.Join(root, "api/dist/old.yaml"))

	require.NoError(t, os.Remove(filepath.Join(root, "api/templates/old.yaml")))
	writeTree(t, root, map[string]string{"svc/templates/widget.yaml": strings.Replace(template, "LocalObjectReference", "ResourceRequirements", 1)})

	stdout, stderr, code := runCmd(t, root, "", "check", "--no-validate", "--files-only", "svc/templates/widget.yaml")
	require.Equal(t, 1, code, stdout+stderr)
	require.Contains(t, stdout, "api/dist/old.yaml")
	require.Contains(t, stdout, "svc/dist/widget.yaml")

	stdout, stderr, code = runCmd(t, root, "", "build", "--no-validate", "--fail-on-change", "--quiet", "--files-only", "svc/templates/widget.yaml")
	require.Equal(t, 1, code, stdout+stderr)
	require.Contains(t, stdout, "removed api/dist/old.yaml")
	require.NoFileExists(t, filepath.Join(root, "api/dist/old.yaml"))
	require.FileExists(t, filepath.Join(root, "api/dist/gizmo.yaml"))

	stdout, stderr, code = runCmd(t, root, "", "check", "--no-validate")
	require.Equal(t, 0, code, stdout+stderr)
}

// helmDeployment is a Helm template: no YAML until Helm renders it.
const helmDeployment = "{{- include \"op.deployment\" . }}\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  labels: {{- include \"op.labels\" . | nindent 4 }}\n"

// TestHelmChartRoot: at a repository root that is a Helm chart (Chart.yaml
// beside templates/), the default project takes no templates/*.yaml: a
// CRD project in api/ builds and checks from the root, the hooks pass on
// the chart's files, and asked for the root's own default project, build
// says why it takes nothing there.
func TestHelmChartRoot(t *testing.T) {
	root := repo(t, map[string]string{
		"Chart.yaml":                "apiVersion: v2\nname: op\nversion: 0.1.0\n",
		"values.yaml":               "replicas: 1\n",
		"templates/deployment.yaml": helmDeployment,
		"templates/_helpers.tpl":    "{{- define \"op.labels\" -}}\napp: op\n{{- end }}\n",
		"api/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\n",
		"api/templates/widget.yaml": template,
	})
	stdout, stderr, code := runCmd(t, root, "", "build", "--no-validate")
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, "api/templates/widget.yaml -> api/dist/widget.yaml (created)")
	require.NoDirExists(t, filepath.Join(root, "dist"))
	for _, args := range [][]string{
		{"check", "--no-validate"},
		{"check", "--no-validate", "--files-only", "templates/deployment.yaml", "values.yaml"},
		{"build", "--no-validate", "--fail-on-change", "--quiet", "--files-only", "templates/deployment.yaml", "Chart.yaml"},
	} {
		stdout, stderr, code = runCmd(t, root, "", args...)
		require.Equal(t, 0, code, "%v: %s", args, stdout+stderr)
	}
	// Only the chart: the default project is asked for templates it cannot take.
	require.NoError(t, os.RemoveAll(filepath.Join(root, "api")))
	_, stderr, code = runCmd(t, root, "", "build", "--no-validate")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "is a Helm chart (Chart.yaml beside templates/)")
	// init there would write a set taking the chart's templates: refused,
	// nothing written.
	_, stderr, code = runCmd(t, root, "", "init")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "the working directory is a Helm chart (Chart.yaml beside templates/)")
	require.NoFileExists(t, filepath.Join(root, ".crd-resolver.yaml"))
}

// TestNeighboursAreNoTemplates: files beside a set's templates that are no
// CRD (a Helm template, JSON with comments, a manifest of another kind, a
// YAML typo in one) are never called a CRD, matched by the set's glob or
// not; a file YAML cannot read is an error only when a line of it names
// kind: CustomResourceDefinition, and the error says that is why.
func TestNeighboursAreNoTemplates(t *testing.T) {
	neighbours := map[string]string{
		"deploy/deployment.yaml": helmDeployment,
		"deploy/settings.json":   "// settings\n{\"replicas\": 1, /* more */ \"image\": \"op\"}\n",
		"deploy/service.yaml":    "apiVersion: v1\nkind: Service\nmetadata:\n  name: op\n",
		"deploy/typo.yaml":       "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b: c\n  - d\n",
	}
	for name, glob := range map[string]string{"beside the glob": "deploy/crd-*.yaml", "matched by the glob": "deploy/*.yaml"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, neighbours)
			writeTree(t, root, map[string]string{
				".git/HEAD":              "",
				".crd-resolver.yaml":     "kubernetesVersion: \"1.30\"\nsets:\n  - templates: [\"" + glob + "\", deploy/*.json]\n    outputs: [dist]\n",
				"deploy/crd-widget.yaml": template,
			})
			stdout, stderr, code := runCmd(t, root, "", "build", "--no-validate")
			require.Equal(t, 0, code, stdout+stderr)
			require.NotContains(t, stderr, "CustomResourceDefinition")
			entries, err := os.ReadDir(filepath.Join(root, "dist"))
			require.NoError(t, err)
			require.Len(t, entries, 1)
			require.Equal(t, "crd-widget.yaml", entries[0].Name())
			stdout, stderr, code = runCmd(t, root, "", "check", "--no-validate", "--files-only", "deploy/deployment.yaml", "deploy/settings.json", "deploy/typo.yaml")
			require.Equal(t, 0, code, stdout+stderr)
		})
	}
	t.Run("a CRD template with a typo", func(t *testing.T) {
		root := t.TempDir()
		writeTree(t, root, neighbours)
		writeTree(t, root, map[string]string{
			".git/HEAD":              "",
			".crd-resolver.yaml":     "kubernetesVersion: \"1.30\"\nsets:\n  - templates: [deploy/*.yaml]\n    outputs: [dist]\n",
			"deploy/crd-widget.yaml": strings.Replace(template, "  group: example.com", "  group: example.com\n   : [", 1),
		})
		_, stderr, code := runCmd(t, root, "", "build", "--no-validate")
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, "error: deploy/crd-widget.yaml:2: taken for a CRD template because this line names kind: CustomResourceDefinition")
		require.NotContains(t, stderr, "deployment.yaml")
		require.NotContains(t, stderr, "typo.yaml")
		require.NoDirExists(t, filepath.Join(root, "dist"))
	})
}

// TestSubprojectConfigs: a broken svc/.crd-resolver.yaml is named so from
// the root (svc/.crd-resolver.yaml:2); a subproject configuration that is
// a symbolic link to a file of the repository is followed from the root,
// and one leading out of the repository is refused.
func TestSubprojectConfigs(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".git/HEAD": "", "svc/templates/widget.yaml": template})
	writeTree(t, root, map[string]string{"svc/.crd-resolver.yaml": "kubernetesVersion: \"1.30\"\nsets: 3\n"})
	_, stderr, code := runCmd(t, root, "", "build", "--no-validate")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "svc/.crd-resolver.yaml:2")

	writeTree(t, root, map[string]string{"shared/crd-resolver.yaml": "kubernetesVersion: \"1.30\"\nsets:\n  - templates: [templates/*.yaml]\n    outputs: [out]\n"})
	require.NoError(t, os.Remove(filepath.Join(root, "svc/.crd-resolver.yaml")))
	require.NoError(t, os.Symlink("../shared/crd-resolver.yaml", filepath.Join(root, "svc/.crd-resolver.yaml")))
	stdout, stderr, code := runCmd(t, root, "", "build", "--no-validate")
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, "svc/templates/widget.yaml -> svc/out/widget.yaml (created)")

	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"c.yaml": "kubernetesVersion: \"1.30\"\nsets:\n  - templates: [templates/*.yaml]\n    outputs: [elsewhere]\n"})
	require.NoError(t, os.Remove(filepath.Join(root, "svc/.crd-resolver.yaml")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "c.yaml"), filepath.Join(root, "svc/.crd-resolver.yaml")))
	stdout, stderr, code = runCmd(t, root, "", "build", "--no-validate")
	require.Equal(t, 2, code, stdout+stderr)
	require.Contains(t, stderr, "svc/.crd-resolver.yaml")
	require.NoDirExists(t, filepath.Join(root, "svc/elsewhere"))
}

// TestMigrateWritesNothingWhenBuildWouldFail: migrate --write compiles the
// project as it would leave it before rewriting a pin; a template that
// would not compile (its pin names a definition the minor lacks) makes it
// exit 2 with the compile error, every file as it was, no configuration
// written. The dry run says the same.
func TestMigrateWritesNothingWhenBuildWouldFail(t *testing.T) {
	root := t.TempDir()
	pin := "python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/io.k8s.api.core.v1."
	files := map[string]string{
		".git/HEAD":        "",
		"templates/a.yaml": strings.Replace(template, "io.k8s.api.core.v1.", pin, 1),
		"templates/b.yaml": strings.Replace(gizmo, "io.k8s.api.core.v1.LocalObjectReference", pin+"NoSuchThing", 1),
	}
	writeTree(t, root, files)
	for _, args := range [][]string{{"migrate"}, {"migrate", "--write"}} {
		_, stderr, code := runCmd(t, root, "", args...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, "error: templates/b.yaml:")
		require.Contains(t, stderr, "NoSuchThing")
		require.Contains(t, stderr, "build would fail after the migration: nothing was written")
	}
	for name, content := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		require.Equal(t, content, string(got), name)
	}
	require.NoFileExists(t, filepath.Join(root, ".crd-resolver.yaml"))
}
