package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

// inputShape is one shape of input every command is run over: what the
// fixture holds besides a project with templates/widget.yaml, and the
// argument naming it.
type inputShape struct {
	name  string
	arg   string            // the argument naming the input; "" for none
	files map[string]string // more files of the fixture ("dir/" makes a directory)
	// nothingToJudge: the input holds no object at all, so a note and exit 0
	// are allowed; for every other shape a non-zero exit is required.
	nothingToJudge bool
	// builtin: the input holds only objects of Kubernetes' own kinds,
	// which validate judges by their schema (exit 0, with a warning that
	// only the schema was judged); the other commands refuse it.
	builtin bool
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`

var inputShapes = []inputShape{
	{name: "missing path", arg: "nothere.yaml"},
	{name: "empty file", arg: "empty.yaml", files: map[string]string{"empty.yaml": ""}, nothingToJudge: true},
	{name: "only comments", arg: "comments.yaml", files: map[string]string{"comments.yaml": "# nothing yet\n---\n# still nothing\n"}, nothingToJudge: true},
	{name: "directory with nothing matching", arg: "emptydir", files: map[string]string{"emptydir/": "", "emptydir/README.md": "# no YAML here\n"}},
	{name: "glob matching nothing", arg: "nomatch*.yaml"},
	{name: "template no glob reaches", arg: "templates/extra/gizmo.yaml", files: map[string]string{"templates/extra/gizmo.yaml": gizmoTemplate}},
	{name: "only built-in objects", arg: "deploy.yaml", files: map[string]string{"deploy.yaml": deployment}, builtin: true},
}

var gizmoTemplate = strings.NewReplacer("widgets", "gizmos", "Widget", "Gizmo").Replace(template)

// commandRows says how each command is run over a shape's argument, and the
// exit code each shape gets (in inputShapes order).
var commandRows = []struct {
	command string
	args    func(arg string) []string
	want    []int
}{
	{"resolve", func(a string) []string { return []string{"resolve", a, "--no-validate"} }, []int{2, 2, 2, 2, 2, 2, 2}},
	{"build", func(a string) []string { return []string{"build", "--no-validate", a} }, []int{2, 0, 0, 2, 2, 2, 2}},
	{"check", func(a string) []string { return []string{"check", "--no-validate", a} }, []int{2, 0, 0, 2, 2, 2, 2}},
	{"diff", func(a string) []string { return []string{"diff", a, "compiled.yaml"} }, []int{2, 2, 2, 2, 2, 2, 2}},
	{"validate", func(a string) []string { return []string{"validate", a} }, []int{2, 0, 0, 2, 2, 1, 0}},
	{"export", func(a string) []string { return []string{"export", "jsonschema", a} }, []int{2, 2, 2, 2, 2, 2, 2}},
	{"migrate", func(a string) []string { return []string{"migrate", a} }, []int{2, 2, 2, 2, 2, 2, 2}},
	{"init", func(a string) []string { return []string{"init", a} }, []int{2, 2, 2, 2, 2, 2, 2}},
}

// noInputShapes are the commands that take no input to judge, with why.
var noInputShapes = map[string]string{
	"version":    "prints the build's version; reads nothing",
	"versions":   "lists the embedded Kubernetes versions; reads nothing",
	"completion": "cobra's shell completion script; reads nothing",
	"help":       "prints help; reads nothing",
	"reconcile":  "runs the operator (its own module and tests: operator/); takes no files",
}

// TestNothingJudgedIsNoPass: every command, over every shape of input that
// holds nothing it can judge, either fails naming the input (non-zero exit)
// or, only for an input with no object at all (an empty file, only
// comments: kubectl and kubectl-validate see no object in them), says so
// in a note or warning and exits 0; validate also exits 0 on built-in
// objects it judged by their schema, with a warning saying only that was.
// A command of the tree without rows fails the test. The whole matrix is testdata/cmd/nothing-judged.txt.
func TestNothingJudgedIsNoPass(t *testing.T) {
	everyCommandHasRows(t, "TestNothingJudgedIsNoPass", "every input shape", func(name string) bool {
		return slices.ContainsFunc(commandRows, func(r struct {
			command string
			args    func(string) []string
			want    []int
		}) bool {
			return r.command == name
		})
	})

	// validate's work is the companion's.
	companionOnPath(t)

	goldenFile, err := filepath.Abs("../testdata/cmd/nothing-judged.txt")
	require.NoError(t, err)
	var matrix strings.Builder
	for _, row := range commandRows {
		require.Len(t, row.want, len(inputShapes), row.command)
		for i, shape := range inputShapes {
			args := row.args(shape.arg)
			t.Run(row.command+"/"+shape.name, func(t *testing.T) {
				dir := gateFixture(t, shape)
				stdout, stderr, code := runCmd(t, dir, "", args...)
				all := strings.ReplaceAll(stdout+stderr, dir, "$DIR")
				fmt.Fprintf(&matrix, "$ k8s-crd-resolver %s\nexit %d\n%s\n", strings.Join(args, " "), code, indent(all))
				require.Equal(t, row.want[i], code, "stdout: %s\nstderr: %s", stdout, stderr)
				if code == 0 {
					require.True(t, shape.nothingToJudge || shape.builtin && row.command == "validate", "exit 0 for %s, which holds something to judge", shape.name)
					require.Regexp(t, `(?m)^(note|warning): .*`+regexpQuote(shape.arg), stderr, "exit 0 without a note naming %s", shape.arg)
				} else {
					require.Contains(t, stdout+stderr, shape.arg, "the error does not name the input")
				}
			})
		}
	}
	// The default glob, templates/*.yaml, does not reach templates/extra/:
	// build and check (and so the hook) refuse the project rather than pass
	// without compiling the template there.
	for _, args := range [][]string{{"build", "--no-validate"}, {"check", "--no-validate"}, {"check", "--no-validate", "--files-only", "templates/widget.yaml"}, {"build", "--no-validate", "--fail-on-change", "--files-only"}, {"diff"}} {
		t.Run(strings.Join(args, " ")+"/uncovered template", func(t *testing.T) {
			dir := gateFixture(t, inputShapes[5])
			stdout, stderr, code := runCmd(t, dir, "", args...)
			fmt.Fprintf(&matrix, "$ k8s-crd-resolver %s  # templates/extra/gizmo.yaml present\nexit %d\n%s\n", strings.Join(args, " "), code, indent(stdout+stderr))
			require.Equal(t, 2, code, "stdout: %s\nstderr: %s", stdout, stderr)
			require.Contains(t, stderr, "templates/extra/gizmo.yaml holds a CustomResourceDefinition")
			require.NoDirExists(t, filepath.Join(dir, "dist"))
		})
	}
	golden.Check(t, goldenFile, []byte(matrix.String()))
}

// everyCommandHasRows fails the test named test for each subcommand of the
// root that has no rows (hasRows) and is not in noInputShapes, and for each
// name noInputShapes lists that is no command any more: a new command
// cannot be added without rows in the tests that run every command.
func everyCommandHasRows(t *testing.T, test, what string, hasRows func(name string) bool) {
	t.Helper()
	root := NewRootCmd(nil, nil)
	for _, c := range root.Commands() {
		if _, ok := noInputShapes[c.Name()]; !ok && !hasRows(c.Name()) {
			t.Errorf("command %q has no rows in %s: add them (%s), or list it in noInputShapes with the reason it reads no input", c.Name(), test, what)
		}
	}
	for name := range noInputShapes {
		if c, _, err := root.Find([]string{name}); err != nil || c == root {
			if name != "help" && name != "completion" { // cobra adds these when it runs
				t.Errorf("noInputShapes lists %q, which is no command any more", name)
			}
		}
	}
}

// companionOnPath builds k8s-crd-resolver-validate (the build cache makes
// it quick after the first) and puts it first on PATH for the test.
func companionOnPath(t *testing.T) {
	t.Helper()
	bin := goBuild(t, "k8s-crd-resolver-validate")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// Built-in objects judged by their schema alone, whatever is
	// installed: the goldens say so.
	t.Setenv("K8S_CRD_RESOLVER_BUILTINS", "none") // crdvalidate.BuiltinsEnv, BuiltinsNone
}

// goBuild builds the main package in pkg (relative to cmd/) into a
// temporary directory, which it returns.
func goBuild(t *testing.T, pkg string) string {
	t.Helper()
	bin := t.TempDir()
	dir, err := filepath.Abs(pkg)
	require.NoError(t, err)
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// gateFixture is a git work tree with templates/widget.yaml, a compiled
// CRD (compiled.yaml, for diff) and the shape's files.
func gateFixture(t *testing.T, shape inputShape) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".git/":                 "",
		"templates/widget.yaml": template,
		"compiled.yaml":         strings.Replace(template, "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{type: object}", 1),
	}
	for name, content := range shape.files {
		files[name] = content
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

func indent(s string) string {
	if s == "" {
		return "  (nothing printed)"
	}
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ")
}

func regexpQuote(s string) string {
	return strings.NewReplacer(".", `\.`, "*", `\*`).Replace(s)
}
