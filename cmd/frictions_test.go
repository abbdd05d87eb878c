package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/stretchr/testify/require"
)

// TestResolveOutputFormat: resolve's -o is a format, as everywhere: -o json
// prints JSON (and writes no file named json), -o yaml YAML; any other
// value is still the output file resolve took before.
func TestResolveOutputFormat(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widget.yaml"), []byte(template), 0o644))
	stdout, stderr, code := runCmd(t, dir, "", "resolve", "widget.yaml", "--no-validate", "--k8s-version", "1.30", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var crd map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &crd), stdout)
	require.Equal(t, "CustomResourceDefinition", crd["kind"])
	require.NoFileExists(t, filepath.Join(dir, "json"))

	yamlOut, stderr, code := runCmd(t, dir, "", "resolve", "widget.yaml", "--no-validate", "--k8s-version", "1.30", "--output", "yaml")
	require.Equal(t, 0, code, stderr)
	plain, _, _ := runCmd(t, dir, "", "resolve", "widget.yaml", "--no-validate", "--k8s-version", "1.30")
	require.Equal(t, plain, yamlOut)

	// Inside a project too (templates/*.yaml), and never to a file.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(template), 0o644))
	stdout, stderr, code = runCmd(t, dir, "", "resolve", "templates/widget.yaml", "--no-validate", "-o", "json")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &crd), stdout)
	_, stderr, code = runCmd(t, dir, "", "resolve", "widget.yaml", "--no-validate", "-o", "json", "--output-file", "out.json")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "-o json writes to standard output")
	_, stderr, code = runCmd(t, dir, "", "resolve", "widget.yaml", "--no-validate", "-o", "xml", "--output-file", "out.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "want yaml or json")
}

// TestResolveSizeWarningOutsideProject: a CRD too large for client-side
// apply gets the same warning from resolve outside a project as inside one.
func TestResolveSizeWarningOutsideProject(t *testing.T) {
	dir := t.TempDir()
	tpl := strings.Replace(template, "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{$ref: defs.yaml#/definitions/Spec}", 1)
	defs := "definitions:\n  Spec: {type: object, description: " + strings.Repeat("x", 300<<10) + "}\n"
	for _, where := range []string{"", "templates/"} { // outside a project, then in the default one
		require.NoError(t, os.MkdirAll(filepath.Join(dir, where), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, where+"widget.yaml"), []byte(tpl), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, where+"defs.yaml"), []byte(defs), 0o644))
		_, stderr, code := runCmd(t, dir, "", "resolve", where+"widget.yaml", "--no-validate", "--k8s-version", "1.30", "--output-file", "out.yaml")
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stderr, "warning: ", where)
		require.Contains(t, stderr, "client-side `kubectl apply` would copy it into its last-applied-configuration annotation", where)
	}
}

// TestFlagValuesNamedAsFlags: a bad value of a flag that overrides the
// configuration is named as the flag, with what it takes, not as "bad
// configuration: fitDescriptions".
func TestFlagValuesNamedAsFlags(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(template), 0o644))
	for _, args := range [][]string{
		{"resolve", "templates/widget.yaml", "--no-validate", "--fit-descriptions", "huge"},
	} {
		_, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 2, code, "%q", args)
		require.Contains(t, stderr, `error: --fit-descriptions "huge": want client-side-apply, helm or a size such as 200KiB`, "%q", args)
		require.NotContains(t, stderr, "configuration", "%q", args)
	}
	_, stderr, code := runCmd(t, dir, "", "check", "--no-validate", "--k8s-version", "latest")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `error: --k8s-version "latest": unknown Kubernetes version`)
}

// TestFlagTyposSuggest: an unknown flag or export format gets a "did you
// mean"; resolve takes --validate as the root command does.
func TestFlagTyposSuggest(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widget.yaml"), []byte(template), 0o644))
	for args, want := range map[*[]string]string{
		{"resolve", "widget.yaml", "--k8s-versoin", "1.30"}: "error: unknown flag: --k8s-versoin; did you mean --k8s-version?",
		{"build", "--no-validat"}:                           "error: unknown flag: --no-validat; did you mean --no-validate?",
		{"check", "--summary-onyl"}:                         "did you mean --summary-only?",
		{"export", "json-schema"}:                           `error: export json-schema: unknown format; did you mean jsonschema?`,
		{"--k8s-versoin=1.30", "widget.yaml", "-"}:          "did you mean --k8s-version?",
	} {
		_, stderr, code := runCmd(t, dir, "", *args...)
		require.Equal(t, 2, code, "%q", *args)
		require.Contains(t, stderr, want, "%q", *args)
	}
	// resolve --validate: validation asked for, so a missing companion is an error.
	t.Setenv("PATH", t.TempDir())
	_, stderr, code := runCmd(t, dir, "", "resolve", "widget.yaml", "--validate")
	require.Equal(t, 2, code, stderr)
	require.NotContains(t, stderr, "unknown flag")
	require.Contains(t, stderr, "companion binary not found")
}

// TestWarningsNameShownPaths: in a build or check of several projects,
// warnings name each template as opened from the working directory
// (svc/templates/widget.yaml), not as its project names it.
func TestWarningsNameShownPaths(t *testing.T) {
	root := t.TempDir()
	tpl := strings.Replace(template, "LocalObjectReference}", "LocalObjectReference, unknownKey: 1}", 1)
	for name, content := range map[string]string{
		".git/HEAD":                 "",
		"svc/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\n",
		"svc/templates/widget.yaml": tpl,
		"api/.crd-resolver.yaml":    "kubernetesVersion: \"1.30\"\n",
		"api/templates/widget.yaml": tpl,
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	for _, args := range [][]string{{"build", "--no-validate"}, {"check", "--no-validate", "-o", "json"}} {
		stdout, stderr, _ := runCmd(t, root, "", args...)
		for _, p := range []string{"svc", "api"} {
			require.Contains(t, stdout, p+"/templates/widget.yaml:17:", "%q: %s", args, stderr)
		}
		require.NotRegexp(t, `(?m)(warning: |"message": ")templates/`, stdout, "%q", args)
	}
}

// TestResolveWarningNamesShownPath: resolve of a template in a project
// below the working directory names it as opened from there.
func TestResolveWarningNamesShownPath(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "svc/templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "svc/.crd-resolver.yaml"), []byte("kubernetesVersion: \"1.30\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "svc/templates/widget.yaml"), []byte(strings.Replace(template, "LocalObjectReference}", "LocalObjectReference, unknownKey: 1}", 1)), 0o644))
	_, stderr, code := runCmd(t, root, "", "resolve", "svc/templates/widget.yaml", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "warning: svc/templates/widget.yaml:17:")
}

// TestExportCollisionReadable: two CRDs giving the same kind and version
// differently are one plain error line per file name, not a quoted Go
// string holding \n.
func TestExportCollisionReadable(t *testing.T) {
	dir := t.TempDir()
	compiled := strings.Replace(template, "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{type: object}", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(compiled), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.yaml"), []byte(strings.ReplaceAll(compiled, "example.com", "example.org")), 0o644))
	_, stderr, code := runCmd(t, dir, "", "export", "jsonschema", "--output-dir", ".", "a.yaml", "b.yaml")
	require.Equal(t, 2, code, stderr)
	require.NotContains(t, stderr, `\n`)
	require.NotContains(t, stderr, `"a.yaml`)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 2, stderr)
	for _, l := range lines {
		require.Regexp(t, `^error: a\.yaml: .* and b\.yaml: .* both give widget_v1(-strict)?\.json, differently`, l)
	}
}

// TestRenamedTemplateReportedMoved: after git mv of a template (what
// docs/pre-commit.md describes), the hooks report its CRD moved, not
// removed: build's removal line and check's unexpected line say where it
// went, and no schema change is printed.
func TestRenamedTemplateReportedMoved(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".crd-resolver.yaml"), []byte("kubernetesVersion: \"1.30\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(template), 0o644))
	_, stderr, code := runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.Rename(filepath.Join(dir, "templates/widget.yaml"), filepath.Join(dir, "templates/gadget.yaml")))
	const moved = `dist/widget.yaml (its CRD widgets.example.com moved to dist/gadget.yaml, compiled from templates/gadget.yaml: moved, not removed, so no stored object is affected)`

	stdout, _, code := runCmd(t, dir, "", "check", "--no-validate", "--files-only", "templates/gadget.yaml")
	require.Equal(t, 1, code)
	require.Contains(t, stdout, "unexpected: "+moved+"\n")
	require.NotContains(t, stdout, "schema changes")

	stdout, _, code = runCmd(t, dir, "", "build", "--no-validate", "--fail-on-change", "--quiet", "--files-only", "templates/gadget.yaml")
	require.Equal(t, 1, code)
	require.Contains(t, stdout, "removed "+moved+"\n")
	require.NotContains(t, stdout, "crd-removed")
	require.NotContains(t, stdout, "schema changes")
	require.NoFileExists(t, filepath.Join(dir, "dist/widget.yaml"))
}

// TestResolveRejectionHasLine: what the apiserver would reject is reported
// at the template's line of the field (or of the nearest value the template
// writes), in a project or not.
func TestResolveRejectionHasLine(t *testing.T) {
	companionOnPath(t)
	dir := t.TempDir()
	bad := strings.Replace(template, "plural: widgets", "plural: Widgets", 1)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	for _, name := range []string{"bad.yaml", "templates/bad.yaml"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(bad), 0o644))
		_, stderr, code := runCmd(t, dir, "", "resolve", name, "--k8s-version", "1.30")
		require.Equal(t, 1, code, stderr)
		require.Contains(t, stderr, "error: "+name+`:7:25: widgets.example.com: spec.names.plural: Invalid value: "Widgets"`, name)
		require.Contains(t, stderr, "(the apiserver would reject the output)\n", name)
	}
	for _, tc := range []struct{ field, ptr string }{
		{"spec.validation.openAPIV3Schema.properties[spec].properties[name].type", "/spec/versions/0/schema/openAPIV3Schema/properties/spec"},
		{"spec.versions[0].schema.openAPIV3Schema.type", "/spec/versions/0/schema/openAPIV3Schema/type"},
		{"metadata.labels[app.kubernetes.io/name]", "/metadata"},
	} {
		docs, err := docread.DecodeDocuments("t.yaml", []byte(template), 0)
		require.NoError(t, err)
		line, col := fieldLine(docs, "widgets.example.com", tc.field)
		want := docs[0].Position(tc.ptr)
		require.Equal(t, []int{want.Line, want.Col}, []int{line, col}, tc.field)
	}
}
