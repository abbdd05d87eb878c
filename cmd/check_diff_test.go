package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

// TestCheckShowsSchemaChanges: check prints the schema comparison above the unified diff
// (only it with --summary-only), fails on any stale output by default and, with
// --fail-on-breaking or failOn: breaking, only when a change is breaking; build
// --fail-on-change (the pre-commit hook) prints the same comparison when it regenerates.
func TestCheckShowsSchemaChanges(t *testing.T) {
	dir, props := widgetProject(t)
	abs, err := filepath.Abs("../testdata/cmd")
	require.NoError(t, err)
	run := func(golden_ string, wantCode int, args ...string) string {
		t.Helper()
		stdout, stderr, code := runCmd(t, dir, "", append(args, "--no-validate", "--k8s-version", "1.30")...)
		require.Equal(t, wantCode, code, "%v: %s%s", args, stdout, stderr)
		if golden_ != "" {
			golden.Check(t, filepath.Join(abs, golden_), []byte(stdout+"--- stderr\n"+stderr))
		}
		return stdout
	}

	props("name: {type: string}, image: {type: string, maxLength: 63}")
	run("", 0, "build")
	run("", 0, "check")

	// Compatible: a new optional field, a looser limit.
	props("name: {type: string}, image: {type: string, maxLength: 253}, tag: {type: string}")
	run("check-schema-compatible.txt", 1, "check")
	run("check-schema-compatible-summary.txt", 1, "check", "--summary-only")
	out := run("", 0, "check", "--summary-only", "--fail-on-breaking")
	require.Contains(t, out, "no breaking change: check passes")
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".crd-resolver.yaml"), []byte("failOn: breaking\n"), 0o644))
	run("", 0, "check")

	// Breaking: a field removed (its stored values are pruned), a tighter limit.
	props("image: {type: string, maxLength: 10}, tag: {type: string}")
	run("check-schema-breaking.txt", 1, "check", "--summary-only")
	run("", 1, "check", "--fail-on-breaking", "-o", "json")
	// --summary-only leaves the unified diff out of the JSON too.
	for summary, want := range map[bool]bool{false: true, true: false} {
		args := []string{"check", "-o", "json"}
		if summary {
			args = append(args, "--summary-only")
		}
		var rep struct{ Stale []map[string]any }
		require.NoError(t, json.Unmarshal([]byte(run("", 1, args...)), &rep))
		require.Len(t, rep.Stale, 1)
		_, has := rep.Stale[0]["diff"]
		require.Equal(t, want, has, "%v: a unified diff in the JSON", args)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".crd-resolver.yaml"), []byte("failOn: sometimes\n"), 0o644))
	_, stderr, code := runCmd(t, dir, "", "check", "--no-validate")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `failOn "sometimes": want "change" or "breaking"`)
	require.NoError(t, os.Remove(filepath.Join(dir, ".crd-resolver.yaml")))

	// The pre-commit hook regenerates and shows what changed.
	run("build-fail-on-change-schema.txt", 1, "build", "--fail-on-change", "--quiet")
	run("", 0, "check")
}

// TestCheckQuotesRepositoryContent: a property named with an ANSI escape, a newline and a
// GitHub workflow command, in a pull request's template, reaches check's text report (the
// schema changes and the unified diff) and diff's quoted, never as a line of its own; the
// JSON forms escape it.
func TestCheckQuotesRepositoryContent(t *testing.T) {
	dir, props := widgetProject(t)
	props("name: {type: string}")
	_, stderr, code := runCmd(t, dir, "", "build", "--no-validate", "--k8s-version", "1.30")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.Rename(filepath.Join(dir, "dist/widget.yaml"), filepath.Join(dir, "old.yaml")))
	_, _, _ = runCmd(t, dir, "", "build", "--no-validate", "--k8s-version", "1.30")
	props(`name: {type: string}, "x\e[31m\ntotal: 0 breaking\n::error::forged": {type: string}`)
	hostile := "\x1b[31m"
	for _, args := range [][]string{
		{"check", "--no-validate", "--k8s-version", "1.30"},
		{"diff", "--k8s-version", "1.30"},
	} {
		if args[0] == "diff" {
			args = []string{"diff", "old.yaml", "dist/widget.yaml"}
			_, _, _ = runCmd(t, dir, "", "build", "--no-validate", "--k8s-version", "1.30")
		}
		stdout, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 1, code, "%v: %s%s", args, stdout, stderr)
		require.NotContains(t, stdout, hostile, "%v", args)
		for line := range strings.SplitSeq(stdout, "\n") {
			require.False(t, strings.HasPrefix(strings.TrimSpace(line), "::"), "%v: a line of its own: %q", args, line)
			require.NotEqual(t, "total: 0 breaking", strings.TrimSpace(line), "%v: a forged line", args)
		}
		require.Contains(t, stdout, `+"x\x1b[31m\ntotal: 0 breaking\n::error::forged"`, "%v", args)
		js, _, _ := runCmd(t, dir, "", append(args, "-o", "json")...)
		require.NotContains(t, js, hostile)
		require.Contains(t, js, `x\u001b[31m\ntotal: 0 breaking\n::error::forged`, "%v", args)
	}
}

// widgetProject is a project of one template in a temporary git work tree, and the function
// that sets the properties of the template's spec.
func widgetProject(t *testing.T) (dir string, props func(string)) {
	dir = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	return dir, func(p string) {
		tpl := strings.Replace(template, "spec: {$ref: io.k8s.api.core.v1.LocalObjectReference}", "spec: {type: object, properties: {"+p+"}}", 1)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(tpl), 0o644))
	}
}

// TestCheckAndDiffClassifyForTheTarget: check (and diff in a project) classify with the
// update rules of the set's kubernetesVersion, diff OLD NEW with --k8s-version's: a
// tightened maxLength is ratcheted on 1.30 (CRDValidationRatcheting on by default), and
// on 1.29 refuses every update of a stored object holding a longer value.
func TestCheckAndDiffClassifyForTheTarget(t *testing.T) {
	dir, props := widgetProject(t)
	config := func(minor string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".crd-resolver.yaml"), []byte("kubernetesVersion: \""+minor+"\"\n"), 0o644))
	}
	type change struct {
		Path      string `json:"path"`
		Keyword   string `json:"keyword"`
		Breaking  bool   `json:"breaking"`
		Ratcheted bool   `json:"ratcheted"`
		Reason    string `json:"reason"`
	}
	only := func(js string) change {
		t.Helper()
		var rep struct {
			Changes struct {
				Changes []change `json:"changes"`
			} `json:"changes"`
		}
		if !strings.Contains(js, `"upToDate"`) { // diff's report is the changes
			js = `{"changes":` + js + `}`
		}
		require.NoError(t, json.Unmarshal([]byte(js), &rep), js)
		require.Len(t, rep.Changes.Changes, 1, js)
		return rep.Changes.Changes[0]
	}
	const noRatchet = "updates that leave the value unchanged fail too: Kubernetes 1.29 has no validation ratcheting, on by default from 1.30"
	for _, tc := range []struct {
		minor     string
		ratcheted bool
		reason    string
	}{{"1.29", false, noRatchet}, {"1.30", true, "pass where validation ratcheting applies, Kubernetes 1.30+"}} {
		t.Run(tc.minor, func(t *testing.T) {
			config(tc.minor)
			props("image: {type: string, maxLength: 63}")
			stdout, stderr, code := runCmd(t, dir, "", "build", "--no-validate")
			require.Equal(t, 0, code, stdout+stderr)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "old.yaml"), must(os.ReadFile(filepath.Join(dir, "dist/widget.yaml"))), 0o644))
			props("image: {type: string, maxLength: 10}")
			for _, args := range [][]string{
				{"check", "--no-validate", "--fail-on-breaking", "-o", "json"},
				{"diff", "--fail-on-breaking", "-o", "json"},
			} {
				stdout, stderr, code := runCmd(t, dir, "", args...)
				require.Equal(t, 1, code, stdout+stderr)
				c := only(stdout)
				require.Equal(t, change{Path: ".spec.image", Keyword: "maxLength", Breaking: true, Ratcheted: tc.ratcheted, Reason: c.Reason}, c, args[0])
				require.Contains(t, c.Reason, tc.reason, args[0])
			}
			stdout, stderr, code = runCmd(t, dir, "", "build", "--no-validate")
			require.Equal(t, 0, code, stdout+stderr)
			stdout, stderr, code = runCmd(t, dir, "", "diff", "--k8s-version", tc.minor, "-o", "json", "old.yaml", "dist/widget.yaml")
			require.Equal(t, 1, code, stdout+stderr)
			c := only(stdout)
			require.Equal(t, tc.ratcheted, c.Ratcheted)
			require.Contains(t, c.Reason, tc.reason)
		})
	}
	_, stderr, code := runCmd(t, dir, "", "diff", "--k8s-version", "1.29")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--k8s-version names the cluster's Kubernetes version for OLD NEW")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestPatchJudgedByTheTargetMinor: a field a template's NAME.patch.yaml adds
// is judged by the set's Kubernetes version as the template's own are:
// selectableFields for 1.25 is refused at the patch operation's line and
// column (exit 2), and compiles for 1.31.
func TestPatchJudgedByTheTargetMinor(t *testing.T) {
	dir, props := widgetProject(t)
	props("color: {type: string}")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.patch.yaml"),
		[]byte("# selectable fields\n- {op: add, path: /spec/versions/0/selectableFields, value: [{jsonPath: .spec.color}]}\n"), 0o644))
	stdout, stderr, code := runCmd(t, dir, "", "build", "--no-validate", "--k8s-version", "1.25")
	require.Equal(t, 2, code, stdout+stderr)
	require.Contains(t, stderr, `templates/widget.patch.yaml:2:3: /spec/versions/0/selectableFields: bad input: JSON patch operation 0 (add /spec/versions/0/selectableFields) writes field "spec.versions[0].selectableFields": Kubernetes 1.25 has no field "selectableFields" in CustomResourceDefinitionVersion`)
	require.NoFileExists(t, filepath.Join(dir, "dist/widget.yaml"))
	stdout, stderr, code = runCmd(t, dir, "", "build", "--no-validate", "--k8s-version", "1.31")
	require.Equal(t, 0, code, stdout+stderr)
	require.FileExists(t, filepath.Join(dir, "dist/widget.yaml"))
}
