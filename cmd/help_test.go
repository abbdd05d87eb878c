package cmd

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValidateHelp: `validate --help`, `validate -h` and `help validate`
// print one text, this binary's (no companion is needed for it), with
// validate's flags and none of the companion's protocol.
func TestValidateHelp(t *testing.T) {
	dir := t.TempDir()
	help, stderr, code := runCmd(t, dir, "", "help", "validate")
	require.Equal(t, 0, code, stderr)
	for _, args := range [][]string{{"validate", "--help"}, {"validate", "-h"}, {"validate", "--crd", "dist", "--help"}} {
		out, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 0, code, "%q: %s", args, stderr)
		require.Equal(t, help, out, "%q", args)
	}
	for _, want := range []string{"Usage:\n  k8s-crd-resolver validate [FILE|DIR|-]...", "--crd", "--pruning", "--show-defaulted", "-o, --output", "custom resources"} {
		require.Contains(t, help, want)
	}
	for _, unwanted := range []string{"--batch", "Usage: k8s-crd-resolver-validate", "k8s-crd-resolver-validate [FILE"} {
		require.NotContains(t, help, unwanted)
	}
	// Bad usage is found before any companion is looked for.
	_, stderr, code = runCmd(t, dir, "", "validate", "-o", "yaml", "x.yaml")
	require.Equal(t, 2, code)
	require.Equal(t, "error: --output \"yaml\": want text, json, junit or tap\n", stderr)
}

// TestNoReconcileCommand: the compiler's command line carries no
// controller. The root's help does not offer the operator; the name it
// once had (also with --help) says which program runs it, exit 2.
func TestNoReconcileCommand(t *testing.T) {
	dir := t.TempDir()
	help, _, code := runCmd(t, dir, "", "--help")
	require.Equal(t, 0, code)
	require.NotContains(t, strings.ToLower(help), "reconcile")
	require.NotContains(t, help, "Dask operator")
	for _, args := range [][]string{{"reconcile"}, {"reconcile", "--help"}, {"reconcile", "--namespace", "dask"}} {
		out, stderr, code := runCmd(t, dir, "", args...)
		require.Equal(t, 2, code, "%q", args)
		require.Empty(t, out)
		require.Contains(t, stderr, "the Dask operator is its own program, k8s-crd-resolver-reconcile", "%q", args)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "%q: one line: %s", args, stderr)
	}
}

// TestCompanionMissingMessage: a missing companion is one readable line
// (no quoted \n) that recommends what the README does.
func TestCompanionMissingMessage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := findPlugin("validate-absent")
	require.Error(t, err)
	var buf strings.Builder
	require.Equal(t, 2, report(&buf, err))
	msg := buf.String()
	require.Equal(t, 1, strings.Count(msg, "\n"), msg)
	require.NotContains(t, msg, `\n`)
	require.NotContains(t, msg, "make install")
	require.Contains(t, msg, "make build-cli")
	require.Contains(t, msg, "go install . ./cmd/...")
}
