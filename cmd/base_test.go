package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// gitEnv makes git in this test (and in the commands it runs in-process) read no
// configuration of the machine, and sign commits with a fixed identity.
func gitEnv(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for k, v := range map[string]string{
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
		"GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.com",
	} {
		t.Setenv(k, v)
	}
}

// git runs the real git in dir and returns its standard output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// widgetTemplate is a template of the widget CRD whose spec has props.
func widgetTemplate(name, props string) string {
	return strings.NewReplacer("widgets.example.com", name+"s.example.com", "kind: Widget, plural: widgets", "kind: "+strings.ToUpper(name[:1])+name[1:]+", plural: "+name+"s",
		"spec: {$ref: io.k8s.api.core.v1.LocalObjectReference}", "spec: {type: object, properties: {"+props+"}}").Replace(template)
}

// baseRepo is a git repository with a project of one template (widget: color and size),
// built and committed on main, and a branch "feature" checked out.
func baseRepo(t *testing.T) string {
	t.Helper()
	gitEnv(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	write(t, dir, ".crd-resolver.yaml", "kubernetesVersion: \"1.30\"\n")
	write(t, dir, "templates/widget.yaml", widgetTemplate("widget", "color: {type: string}, size: {type: integer}"))
	build(t, dir)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	git(t, dir, "checkout", "-q", "-b", "feature")
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
}

func build(t *testing.T, dir string) {
	t.Helper()
	stdout, stderr, code := runCmd(t, dir, "", "build", "--no-validate", "--quiet")
	require.Equal(t, 0, code, stdout+stderr)
}

// commitAll builds the outputs, as the pre-commit hook does, and commits everything.
func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	build(t, dir)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", msg)
}

// TestCheckBaseSeesARegeneratedBreakingChange is issue 46's gate: a property removed from a
// template, the outputs rebuilt and committed (what the pre-commit hook does), leaves
// check --fail-on-breaking nothing to judge (it says so, and how to give a base), while
// check --fail-on-breaking --base main and diff --base main compare the outputs as
// committed on main with the working tree's and fail on the removal.
func TestCheckBaseSeesARegeneratedBreakingChange(t *testing.T) {
	dir := baseRepo(t)
	write(t, dir, "templates/widget.yaml", widgetTemplate("widget", "color: {type: string}"))
	commitAll(t, dir, "drop size")

	stdout, stderr, code := runCmd(t, dir, "", "check", "--no-validate", "--fail-on-breaking")
	require.Equal(t, 0, code, stdout+stderr)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "check --fail-on-breaking compared nothing")
	require.Contains(t, stderr, "--base REF")

	for _, args := range [][]string{
		{"check", "--no-validate", "--fail-on-breaking", "--base", "main"},
		{"check", "--no-validate", "--base", "main"},
		{"diff", "--base", "main"},
		{"diff", "--fail-on-breaking", "--base", "main"},
	} {
		stdout, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 1, code, "%v: %s", args, stdout+stderr)
		require.Contains(t, stdout, "dist/widget.yaml:\n  widgets.example.com v1: 1 breaking, 0 compatible\n    breaking:\n      property-removed: ", args)
		require.Contains(t, stdout, ".spec: -size", args)
		require.NotContains(t, stderr, "compared nothing", args)
	}
	stdout, _, _ = runCmd(t, dir, "", "check", "--no-validate", "--fail-on-breaking", "--base", "main")
	require.True(t, strings.HasPrefix(stdout, "schema changes since main (k8s-crd-resolver diff --base main):\n"), stdout)

	stdout, stderr, code = runCmd(t, dir, "", "check", "--no-validate", "--base", "main", "-o", "json")
	require.Equal(t, 1, code, stderr)
	var rep struct {
		UpToDate bool
		Base     struct {
			Ref     string
			Files   int
			Changes struct {
				Breaking int
				Changes  []struct{ Kind, Path string }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	require.True(t, rep.UpToDate)
	require.Equal(t, "main", rep.Base.Ref)
	require.Equal(t, 1, rep.Base.Files)
	require.Equal(t, 1, rep.Base.Changes.Breaking)
	require.Equal(t, "property-removed", rep.Base.Changes.Changes[0].Kind)

	// Against itself nothing changed: check passes and says what it compared.
	stdout, stderr, code = runCmd(t, dir, "", "check", "--no-validate", "--fail-on-breaking", "--base", "HEAD")
	require.Equal(t, 0, code, stdout+stderr)
	require.Equal(t, "no schema change since HEAD (1 output file(s) compared)\n", stdout)
	require.Empty(t, stderr)

	// A compatible change since the base passes, reported.
	write(t, dir, "templates/widget.yaml", widgetTemplate("widget", "color: {type: string}, size: {type: integer}, shade: {type: string}"))
	commitAll(t, dir, "size back, and shade")
	stdout, stderr, code = runCmd(t, dir, "", "check", "--no-validate", "--fail-on-breaking", "--base", "main")
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, ".spec: +shade")
	require.Contains(t, stdout, "total: 0 breaking, 1 compatible")

	// A revision the repository does not have is bad input.
	_, stderr, code = runCmd(t, dir, "", "check", "--no-validate", "--base", "no-such-branch")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `"no-such-branch": no such commit in this repository`)
	_, stderr, code = runCmd(t, dir, "", "diff", "--base", "main", "a.yaml", "b.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--base compares the project's outputs")
}

// TestBaseFollowsOutputs: between the base and the working tree an output is renamed
// (its CRD moved: compared, never crd-removed), one is added (crd-added, compatible), and
// one is removed with its template (crd-removed, breaking); one not committed yet is
// compared too (the working tree is what ships). Outputs outside the searched directories
// (testdata) are no outputs on either side.
func TestBaseFollowsOutputs(t *testing.T) {
	dir := baseRepo(t)
	write(t, dir, "templates/gizmo.yaml", widgetTemplate("gizmo", "id: {type: string}"))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "testdata"), 0o755))
	commitAll(t, dir, "gizmo")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "testdata/copy.yaml"), must(os.ReadFile(filepath.Join(dir, "dist/gizmo.yaml"))), 0o644))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "a fixture")
	git(t, dir, "branch", "-f", "base")

	// The widget template renamed (its CRD moves to dist/gadget.yaml) with a property
	// added; gizmo removed; a new template sprocket.
	git(t, dir, "mv", "templates/widget.yaml", "templates/gadget.yaml")
	write(t, dir, "templates/gadget.yaml", widgetTemplate("widget", "color: {type: string}, size: {type: integer}, shade: {type: string}"))
	git(t, dir, "rm", "-q", "templates/gizmo.yaml")
	write(t, dir, "templates/sprocket.yaml", widgetTemplate("sprocket", "teeth: {type: integer}"))
	build(t, dir) // not committed
	_, err := os.Stat(filepath.Join(dir, "dist/widget.yaml"))
	require.True(t, os.IsNotExist(err), "build removed the renamed template's output")

	for _, args := range [][]string{
		{"check", "--no-validate", "--fail-on-breaking", "--base", "base"},
		{"diff", "--base", "base"},
		{"diff", "base:dist", "dist"},
	} {
		stdout, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 1, code, "%v: %s", args, stdout+stderr)
		require.Contains(t, stdout, "dist/gadget.yaml:\n  widgets.example.com v1: 0 breaking, 1 compatible\n    compatible:\n      .spec: +shade\n", args)
		require.Contains(t, stdout, "dist/gizmo.yaml:\n  gizmos.example.com: 1 breaking, 0 compatible\n    breaking:\n      crd-removed: the new set has no such CRD: once it is deleted from a cluster, every stored object of it is deleted too\n        (root): crd removed\n", args)
		require.Contains(t, stdout, "dist/sprocket.yaml:\n  sprockets.example.com: 0 breaking, 1 compatible\n    compatible:\n      (root): crd added", args)
		require.Contains(t, stdout, "total: 1 breaking, 2 compatible", args)
		require.NotContains(t, stdout, "widgets.example.com: 1 breaking", args)
		require.NotContains(t, stdout, "dist/widget.yaml", args)
		require.NotContains(t, stdout, "testdata", args)
	}

	// Without the removal, nothing breaks: the moved CRD is not "removed".
	git(t, dir, "checkout", "-q", "base", "--", "templates/gizmo.yaml")
	build(t, dir)
	stdout, stderr, code := runCmd(t, dir, "", "check", "--no-validate", "--fail-on-breaking", "--base", "base")
	require.Equal(t, 0, code, stdout+stderr)
	require.NotContains(t, stdout, "crd removed")
	require.Contains(t, stdout, "total: 0 breaking, 2 compatible")
}

// TestBaseSubdirectoryProject: a project below the top level, run from there and from
// the top level (check finds the projects below), and REF:PATH relative to the working
// directory (./) and to the top level.
func TestBaseSubdirectoryProject(t *testing.T) {
	gitEnv(t)
	top := t.TempDir()
	git(t, top, "init", "-q", "-b", "main")
	dir := filepath.Join(top, "svc")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	write(t, dir, ".crd-resolver.yaml", "kubernetesVersion: \"1.30\"\n")
	write(t, dir, "templates/widget.yaml", widgetTemplate("widget", "color: {type: string}, size: {type: integer}"))
	commitAll(t, dir, "base")
	write(t, dir, "templates/widget.yaml", widgetTemplate("widget", "color: {type: string}"))
	build(t, dir)

	stdout, stderr, code := runCmd(t, dir, "", "check", "--no-validate", "--base", "main")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stdout, "dist/widget.yaml:\n  widgets.example.com v1: 1 breaking")
	stdout, stderr, code = runCmd(t, top, "", "check", "--no-validate", "--base", "main")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stdout, "svc/dist/widget.yaml:\n  widgets.example.com v1: 1 breaking")
	for _, old := range []string{"main:./dist/widget.yaml", "main:svc/dist/widget.yaml"} {
		stdout, stderr, code = runCmd(t, dir, "", "diff", old, "dist/widget.yaml")
		require.Equal(t, 1, code, stderr)
		require.Contains(t, stdout, ".spec: -size", old)
	}
	_, stderr, code = runCmd(t, dir, "", "diff", "main:dist/widget.yaml", "dist/widget.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "main:dist/widget.yaml: no such file or directory at main")
	_, stderr, code = runCmd(t, dir, "", "diff", "main:./dist", "dist/widget.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "main:./dist is a directory and dist/widget.yaml a file")
}

// TestDiffDirectories: diff OLD_DIR NEW_DIR pairs files by name and follows a CRD that
// moved to another file; a stream of CRDs joined without "---" (cat dist/*.yaml) is
// refused with a message that says so, at the line where the second document starts.
func TestDiffDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"old", "new", "empty1", "empty2"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	compile := func(name, props string) string {
		t.Helper()
		write(t, dir, "t.yaml", widgetTemplate(name, props))
		stdout, stderr, code := runCmd(t, dir, "", "resolve", "--k8s-version", "1.30", "t.yaml")
		require.Equal(t, 0, code, stderr)
		return stdout
	}
	widget, gizmo := compile("widget", "color: {type: string}, size: {type: integer}"), compile("gizmo", "id: {type: string}")
	write(t, dir, "old/widget.yaml", widget)
	write(t, dir, "old/gizmo.yaml", gizmo)
	write(t, dir, "new/all.yaml", compile("widget", "color: {type: string}")+"---\n"+gizmo)

	stdout, stderr, code := runCmd(t, dir, "", "diff", "old", "new")
	require.Equal(t, 1, code, stderr)
	require.Equal(t, "new/all.yaml:\n  widgets.example.com v1: 1 breaking, 0 compatible\n    breaking:\n      property-removed: a stored value is pruned on every read from etcd and every write: the data is lost\n        .spec: -size\ntotal: 1 breaking, 0 compatible, 0 description(s) changed\n", stdout)

	_, stderr, code = runCmd(t, dir, "", "diff", "empty1", "empty2")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "hold no .yaml, .yml or .json file")
	_, stderr, code = runCmd(t, dir, "", "diff", "old", "new/all.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "old is a directory and new/all.yaml a file: give two files or two directories")

	cat := widget + gizmo
	_, stderr, code = runCmd(t, dir, cat, "diff", "-", "new/all.yaml")
	require.Equal(t, 2, code)
	line := strings.Count(widget, "\n") + 1
	require.Contains(t, stderr, "error: <stdin>:"+strconv.Itoa(line)+`: two documents run together: the top-level key "apiVersion" starts again here without a "---" line before it`)
	require.NotContains(t, stderr, "written twice")
}

// TestDiffHelpIsTrue: diff with no arguments compares the output files of the working
// tree, committed or not, with a fresh build, and its help says so (it used to say "the
// committed outputs").
func TestDiffHelpIsTrue(t *testing.T) {
	dir := baseRepo(t)
	stdout, _, code := runCmd(t, dir, "", "diff", "--help")
	require.Equal(t, 0, code)
	require.NotContains(t, stdout, "committed outputs")
	require.Contains(t, stdout, "with no arguments: the project's output files as they are in the working\n    tree (committed or not) with what build would write now")
	require.Contains(t, stdout, "with --base REF: the project's outputs as committed at REF")

	// Committed, built: nothing differs. An uncommitted edit of dist/ is what diff reads.
	_, stderr, code := runCmd(t, dir, "", "diff")
	require.Equal(t, 0, code, stderr)
	out := filepath.Join(dir, "dist/widget.yaml")
	data := string(must(os.ReadFile(out)))
	edited := strings.Replace(data, "                size:\n                  type: integer\n", "", 1)
	require.NotEqual(t, data, edited)
	require.NoError(t, os.WriteFile(out, []byte(edited), 0o644))
	stdout, stderr, code = runCmd(t, dir, "", "diff")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stdout, ".spec: +size")
	require.Empty(t, git(t, dir, "diff", "--cached", "--name-only"), "nothing staged: diff read the working tree")
}

// TestBaseTakesNoTemplateForAnOutput: a file a template glob matches is a
// template whatever its first line, for --base as for build: an output
// copied into a second set's template directory and edited since is
// compared only through what it compiles to, never as an output itself.
func TestBaseTakesNoTemplateForAnOutput(t *testing.T) {
	dir := baseRepo(t)
	write(t, dir, ".crd-resolver.yaml", "kubernetesVersion: \"1.30\"\nsets:\n- templates: [templates/*.yaml]\n  outputs: [dist]\n- templates: [crds/*.yaml]\n  outputs: [dist2]\n")
	out, err := os.ReadFile(filepath.Join(dir, "dist", "widget.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "crds"), 0o755))
	gadget := strings.NewReplacer("widgets.example.com", "gadgets.example.com", "kind: Widget", "kind: Gadget", "plural: widgets", "plural: gadgets").Replace(string(out))
	write(t, dir, "crds/gadget.yaml", gadget)
	commitAll(t, dir, "a second set, its template copied from an output")
	write(t, dir, "crds/gadget.yaml", strings.Replace(gadget, "type: integer", "type: string", 1))
	commitAll(t, dir, "size is a string")

	for _, args := range [][]string{{"diff", "--base", "HEAD~1"}, {"check", "--no-validate", "--fail-on-breaking", "--base", "HEAD~1"}} {
		stdout, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 1, code, "%v: %s%s", args, stdout, stderr)
		require.Contains(t, stdout, "dist2/gadget.yaml", "%v", args)
		require.NotContains(t, stdout, "crds/gadget.yaml", "%v: the template was compared as an output", args)
	}
}
