package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crash"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// cmdTestCase runs the root command in-process, in dir, and compares what
// it printed with a golden file under testdata/cmd/.
type cmdTestCase struct {
	name     string
	args     []string
	stdin    string
	golden   string // testdata/cmd/<golden>: stdout, then stderr after a marker
	wantCode int
}

func runCmd(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Chdir(dir)
	// As Execute builds it: without subcommands when args name none.
	return runRoot(t, dir, stdin, namesCommand(args), args...)
}

func runRoot(t *testing.T, dir, stdin string, commands bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	root := newRootCmd(&out, &errOut, commands)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	code = report(&errOut, root.Execute())
	return out.String(), errOut.String(), code
}

// TestCommandNames: namesCommand knows every subcommand of the tree, and
// nothing else.
func TestCommandNames(t *testing.T) {
	root := NewRootCmd(io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
		names = append(names, c.Aliases...)
	}
	names = append(names, cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd)
	require.ElementsMatch(t, names, commandNames)
}

// TestLeanRoot: where Execute leaves the subcommands out, the root alone
// does what the whole tree does: same output, errors and exit code.
func TestLeanRoot(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widget.yaml"), []byte(template), 0o644))
	for _, args := range [][]string{
		{"-r", "widget.yaml", "-", "--k8s-version", "1.30"},
		{"widget.yaml", "out.yaml", "--k8s-version=1.30"},
		{"-r", "-j", "missing.yaml", "widget.yaml", "-"},
		{"widget.yaml"},
		{"a", "b", "c"},
		{},
		{"--no-such-flag", "widget.yaml", "-"},
		{"--version"},
		{"-r", "--k8s-version", "9.99", "widget.yaml", "-"},
	} {
		if namesCommand(args) {
			t.Fatalf("%q names a command", args)
		}
		full, fullErr, fullCode := runRoot(t, dir, "", true, args...)
		lean, leanErr, leanCode := runRoot(t, dir, "", false, args...)
		require.Equal(t, []any{full, fullErr, fullCode}, []any{lean, leanErr, leanCode}, "%q", args)
	}
	for _, args := range [][]string{{"build"}, {"-r", "resolve", "x"}, {"--help"}, {"-rh"}, {"help", "build"}, {"__complete", ""}} {
		if !namesCommand(args) {
			t.Errorf("%q: the subcommands are left out", args)
		}
	}
}

const template = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {$ref: io.k8s.api.core.v1.LocalObjectReference}
`

func TestCLI(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widget.yaml"), []byte(template), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte(strings.Replace(template, "LocalObjectReference", "LocalObjectRef", 1)), 0o644))
	// Values of the wrong type in the CRD's own fields: YAML 1.1's yes, a
	// quoted number, a mapping where a list goes.
	wrongTypes := strings.NewReplacer("served: true", "served: yes", "storage: true", "storage: true\n    additionalPrinterColumns:\n    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp, priority: \"1\"}",
		"scope: Namespaced", "scope: Namespaced\n  conversion: {strategy: None}\n  preserveUnknownFields: false", "names: {kind: Widget, plural: widgets}", "names: {kind: Widget, plural: widgets, shortNames: {w: 1}}").Replace(template)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "types.yaml"), []byte(wrongTypes), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fix.patch.yaml"), []byte("- {op: add, path: /metadata/labels, value: {app: widget}}\n"), 0o644))
	abs, _ := filepath.Abs("../testdata/cmd")
	cases := []cmdTestCase{
		{name: "resolve to stdout", args: []string{"resolve", "widget.yaml", "--k8s-version", "1.30", "-r", "--no-validate"}, golden: "resolve.txt"},
		{name: "legacy form with patch", args: []string{"-r", "-j", "fix.patch.yaml", "widget.yaml", "-", "--k8s-version", "v1.30.14"}, golden: "legacy.txt"},
		{name: "stdin", args: []string{"resolve", "-", "--k8s-version", "1.30", "-r", "--no-validate"}, stdin: template, golden: "resolve.txt"},
		{name: "unknown definition exits 2", args: []string{"resolve", "broken.yaml", "--k8s-version", "1.30", "--no-validate"}, golden: "unknown-definition.txt", wantCode: 2},
		{name: "wrong value types exit 2 before any output", args: []string{"resolve", "types.yaml", "--k8s-version", "1.30", "--no-validate", "-o", "types.out.yaml"}, golden: "wrong-types.txt", wantCode: 2},
		{name: "unknown version exits 2", args: []string{"resolve", "widget.yaml", "--k8s-version", "2.0", "--no-validate"}, golden: "unknown-version.txt", wantCode: 2},
		{name: "usage error exits 2", args: []string{"resolve"}, golden: "usage.txt", wantCode: 2},
		{name: "versions", args: []string{"versions"}, golden: "versions.txt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, dir, tc.stdin, tc.args...)
			require.Equal(t, tc.wantCode, code, "stderr: %s", stderr)
			golden.Check(t, filepath.Join(abs, tc.golden), []byte(stdout+"--- stderr\n"+stderr))
		})
	}
	require.NoFileExists(t, filepath.Join(dir, "types.out.yaml"))
}

// TestFailureLeavesOutputAlone: a failing compile neither creates nor
// truncates the output file.
func TestFailureLeavesOutputAlone(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("kind: [\n"), 0o644))
	_, _, code := runCmd(t, dir, "", "resolve", "broken.yaml", "-o", "new.yaml")
	require.Equal(t, 2, code)
	require.NoFileExists(t, filepath.Join(dir, "new.yaml"))

	previous := string(project.SealedFile("ok.yaml", []byte("previous output\n"), "1.29"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "old.yaml"), []byte(previous), 0o600))
	_, _, code = runCmd(t, dir, "", "broken.yaml", "old.yaml")
	require.Equal(t, 2, code)
	got, err := os.ReadFile(filepath.Join(dir, "old.yaml"))
	require.NoError(t, err)
	require.Equal(t, previous, string(got))
	entries, _ := os.ReadDir(dir)
	require.Len(t, entries, 2, "no temporary files left behind")

	// Success replaces the file atomically and keeps its mode.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte(template), 0o644))
	_, stderr, code := runCmd(t, dir, "", "ok.yaml", "old.yaml", "--k8s-version", "1.30")
	require.Equal(t, 0, code, stderr)
	fi, err := os.Stat(filepath.Join(dir, "old.yaml"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// Run again: the output already holds these bytes, so it is left as
	// it is (same file, same time stamp), as build leaves an unchanged
	// output. A different compile replaces it.
	_, stderr, code = runCmd(t, dir, "", "ok.yaml", "old.yaml", "--k8s-version", "1.30")
	require.Equal(t, 0, code, stderr)
	again, err := os.Stat(filepath.Join(dir, "old.yaml"))
	require.NoError(t, err)
	require.True(t, os.SameFile(fi, again) && again.ModTime().Equal(fi.ModTime()), "an unchanged output was rewritten")
	_, stderr, code = runCmd(t, dir, "", "ok.yaml", "old.yaml", "--k8s-version", "1.29")
	require.Equal(t, 0, code, stderr)
	other, err := os.Stat(filepath.Join(dir, "old.yaml"))
	require.NoError(t, err)
	require.False(t, os.SameFile(fi, other), "a changed output was not replaced")
	got, err = os.ReadFile(filepath.Join(dir, "old.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(got), "for Kubernetes 1.29;")
	entries, _ = os.ReadDir(dir)
	require.Len(t, entries, 3, "no temporary files left behind")
}

// TestBuildSizeGuard: build's summary line gives each CRD's compact-JSON
// size; a CRD too large for client-side apply gets the warning, one above
// the hard limit fails (exit 2, nothing written) unless --allow-large.
func TestBuildSizeGuard(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	tpl := strings.Replace(template, "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{$ref: defs.yaml#/definitions/Spec}", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/widget.yaml"), []byte(tpl), 0o644))
	pad := func(n int) {
		defs := "definitions:\n  Spec: {type: object, description: " + strings.Repeat("x", n) + "}\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "templates/defs.yaml"), []byte(defs), 0o644))
	}
	abs, _ := filepath.Abs("../testdata/cmd")
	for _, tc := range []struct {
		name, golden string
		pad          int
		args         []string
		wantCode     int
	}{
		{"small", "build-size-small.txt", 10, nil, 0},
		{"too large for client-side apply", "build-size-warning.txt", 300 << 10, nil, 0},
		{"above the hard limit", "build-size-error.txt", 1600 << 10, nil, 2},
		{"above the hard limit with --allow-large", "build-size-allow-large.txt", 1600 << 10, []string{"--allow-large"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pad(tc.pad)
			before, _ := os.ReadFile(filepath.Join(dir, "dist/widget.yaml"))
			stdout, stderr, code := runCmd(t, dir, "", append([]string{"build", "--no-validate", "--k8s-version", "1.30"}, tc.args...)...)
			require.Equal(t, tc.wantCode, code, "stderr: %s", stderr)
			golden.Check(t, filepath.Join(abs, tc.golden), []byte(stdout+"--- stderr\n"+stderr))
			if code != 0 {
				after, err := os.ReadFile(filepath.Join(dir, "dist/widget.yaml"))
				require.NoError(t, err)
				require.Equal(t, string(before), string(after), "a failed build wrote its output")
			}
		})
	}
}

// TestInternalError: a panic in a command is one line on standard error and exit 3.
func TestInternalError(t *testing.T) {
	var out, errOut bytes.Buffer
	root := newRootCmd(&out, &errOut, true)
	root.AddCommand(&cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error {
		var a []any
		return fmt.Errorf("%v", a[3]) // index out of range
	}})
	crash.Guard(root, "k8s-crd-resolver")
	root.SetArgs([]string{"boom"})
	require.Equal(t, 3, report(&errOut, root.Execute()))
	require.Empty(t, out.String())
	require.Equal(t, 1, strings.Count(errOut.String(), "\n"), errOut.String())
	require.Contains(t, errOut.String(), "error: internal error in k8s-crd-resolver: runtime error: index out of range [3] with length 0: this is a bug, please report it at "+crash.IssuesURL)
}
