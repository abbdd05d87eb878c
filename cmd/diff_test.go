package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
)

// TestDiffFiles runs `diff OLD NEW` on every case of testdata/diff/ (one per change kind,
// see internal/schemadiff) and wants exactly the golden report, in text and JSON, and the
// exit status diff(1) gives: 0 when nothing differs, 1 when something does; with
// --fail-on-breaking 1 only when a change is breaking.
func TestDiffFiles(t *testing.T) {
	root, err := filepath.Abs("../testdata/diff")
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			dir := filepath.Join(root, e.Name())
			wantJSON, err := os.ReadFile(filepath.Join(dir, "want.json"))
			require.NoError(t, err)
			wantText, err := os.ReadFile(filepath.Join(dir, "want.txt"))
			if os.IsNotExist(err) {
				wantText, err = nil, nil
			}
			require.NoError(t, err)
			var rep struct {
				Changes             []map[string]any
				Breaking            int
				DescriptionsChanged int
			}
			require.NoError(t, json.Unmarshal(wantJSON, &rep))
			wantCode := 0
			if len(rep.Changes) > 0 || rep.DescriptionsChanged > 0 {
				wantCode = 1
			}

			stdout, stderr, code := runCmd(t, dir, "", "diff", "old.yaml", "new.yaml")
			require.Equal(t, wantCode, code, stderr)
			require.Equal(t, string(wantText), stdout)

			stdout, stderr, code = runCmd(t, dir, "", "diff", "--output", "json", "old.yaml", "new.yaml")
			require.Equal(t, wantCode, code, stderr)
			require.JSONEq(t, string(wantJSON), stdout)
			for _, c := range rep.Changes {
				for _, key := range []string{"crd", "version", "path", "kind", "breaking", "reason"} {
					require.Contains(t, c, key)
				}
			}

			_, stderr, code = runCmd(t, dir, "", "diff", "--fail-on-breaking", "old.yaml", "new.yaml")
			require.Equal(t, map[bool]int{true: 1, false: 0}[rep.Breaking > 0], code, stderr)

			// Standard input stands for either side.
			old, err := os.ReadFile(filepath.Join(dir, "old.yaml"))
			require.NoError(t, err)
			stdout, _, code = runCmd(t, dir, string(old), "diff", "-", "new.yaml")
			require.Equal(t, wantCode, code)
			require.Equal(t, strings.ReplaceAll(string(wantText), "old.yaml", "<stdin>"), stdout)
		})
	}
}

// TestDiffBadInput: what cannot be compared exits 2 and says why.
func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("kind: [\n"), 0o644))
	crd, err := os.ReadFile("../testdata/diff/unchanged/old.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "crd.yaml"), crd, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "twice.yaml"), append(append(slices.Clone(crd), "---\n"...), crd...), 0o644))
	twoVersions := strings.Replace(string(crd), "  versions:\n", "  versions:\n  - {name: v1, served: true, storage: false}\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "version-twice.yaml"), []byte(twoVersions), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "key-twice.yaml"), []byte("kind: CustomResourceDefinition\nkind: CustomResourceDefinition\n"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", "crd.yaml", "absent.yaml"}, "absent.yaml"},
		{[]string{"diff", "crd.yaml", "cm.yaml"}, "cm.yaml: no CustomResourceDefinition"},
		{[]string{"diff", "bad.yaml", "crd.yaml"}, "bad.yaml:2:1: bad input: malformed YAML"},
		{[]string{"diff", "crd.yaml"}, "give OLD and NEW"},
		{[]string{"diff", "-", "-"}, `"-" (standard input) can stand for OLD or for NEW, not both`},
		{[]string{"diff", "twice.yaml", "crd.yaml"}, `twice.yaml: document 2: CRD "widgets.example.com" is also document 1: listed twice (keep one)`},
		{[]string{"diff", "crd.yaml", "version-twice.yaml"}, `spec.versions: version "v1" is listed twice (keep one)`},
		{[]string{"diff", "crd.yaml", "key-twice.yaml"}, `key-twice.yaml:2:1: bad input: key "kind" is written twice in this mapping`},
		{[]string{"diff", "--from", "1.21"}, "--from and --to go together"},
		{[]string{"diff", "--from", "1.21", "--to", "1.37", "crd.yaml", "crd.yaml"}, "take no files"},
		{[]string{"diff", "-o", "yaml", "crd.yaml", "crd.yaml"}, "want text or json"},
		{[]string{"diff", "--from", "1.9", "--to", "1.37"}, `unknown Kubernetes version: "1.9" has no embedded bundle`},
	} {
		_, stderr, code := runCmd(t, dir, "", tc.args...)
		require.Equal(t, 2, code, "%v: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.want, "%v", tc.args)
	}
}

// TestDiffDask: the real report for the Dask templates of this repository between
// Kubernetes versions (docs/build-check.md links the goldens). 1.25 is the oldest minor
// that takes all of them: daskautoscaler's x-kubernetes-validations are unknown to 1.20
// to 1.22 and gated off by default in 1.23 and 1.24 (CustomResourceValidationExpressions),
// so comparing from 1.20 or 1.21 is refused at the rule, naming 1.25.
// Sanity-checked against the Kubernetes changelogs: schedulingGates (PodSpec, alpha in
// 1.26), resourceClaims (PodSpec and ResourceRequirements.claims, 1.26), a container's
// resizePolicy (1.27) and restartPolicy (sidecars, 1.28) all appear as added between
// 1.25 and 1.37; os (PodSpec, 1.23), the probe's grpc (1.23) and
// topologySpreadConstraints[].minDomains (1.24) do not.
func TestDiffDask(t *testing.T) {
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	for _, pair := range [][2]string{{"1.25", "1.37"}, {"1.30", "1.37"}, {"1.36", "1.37"}} {
		t.Run(pair[0]+"-"+pair[1], func(t *testing.T) {
			abs := filepath.Join(repo, "testdata/diff-dask")
			stdout, stderr, code := runCmd(t, repo, "", "diff", "--from", pair[0], "--to", pair[1])
			require.Equal(t, 1, code, stderr)
			golden.Check(t, filepath.Join(abs, pair[0]+"-"+pair[1]+".txt"), []byte(stdout))
		})
	}
	for _, from := range []string{"1.20", "1.21"} {
		_, stderr, code := runCmd(t, repo, "", "diff", "--from", from, "--to", "1.37")
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, "templates/daskautoscaler.yaml:49:15: /spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations: bad input: ")
		require.Contains(t, stderr, "Kubernetes "+from+" has no field \"x-kubernetes-validations\" in JSONSchemaProps")
		require.Contains(t, stderr, "it is on by default from 1.25")
	}
	stdout, _, _ := runCmd(t, repo, "", "diff", "--from", "1.25", "--to", "1.37")
	for _, field := range []string{"+schedulingGates", "+resourceClaims", "+resizePolicy", "+restartPolicy", "+claims"} {
		require.Contains(t, stdout, field)
	}
	for _, field := range []string{"+os,", "+grpc", "+minDomains"} {
		require.NotContains(t, stdout, field)
	}
	// A project compared with itself at one version has nothing to say.
	stdout, stderr, code := runCmd(t, repo, "", "diff", "--from", "1.37", "--to", "1.37")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	// The committed outputs are those of a fresh build (what check also says).
	stdout, stderr, code = runCmd(t, repo, "", "diff")
	require.Equal(t, 0, code, stdout+stderr)
	// No change in JSON is an empty list and zero counts, never null.
	stdout, stderr, code = runCmd(t, repo, "", "diff", "--output", "json")
	require.Equal(t, 0, code, stderr)
	require.JSONEq(t, `{"changes":[],"breaking":0,"compatible":0,"descriptionsChanged":0}`, stdout)
}

// BenchmarkDiffVersionsDask is `k8s-crd-resolver diff --from 1.21 --to 1.37` on this
// repository in-process: both compiles of the Dask templates, the comparison and the text.
func BenchmarkDiffVersionsDask(b *testing.B) {
	b.Chdir("..")
	for b.Loop() {
		var out, errOut strings.Builder
		root := NewRootCmd(&out, &errOut)
		root.SetArgs([]string{"diff", "--from", "1.21", "--to", "1.37"})
		if code := report(&errOut, root.Execute()); code != 1 {
			b.Fatalf("exit %d: %s", code, errOut.String())
		}
	}
}

// TestDocsLinkTheDaskReports: docs/build-check.md links every golden report of the Dask
// templates (rather than pasting them, which would drift), and no link dangles.
func TestDocsLinkTheDaskReports(t *testing.T) {
	page, err := os.ReadFile("../docs/build-check.md")
	require.NoError(t, err)
	reports, err := filepath.Glob("../testdata/diff-dask/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, reports)
	for _, r := range reports {
		require.Contains(t, string(page), "](../testdata/diff-dask/"+filepath.Base(r)+")",
			"docs/build-check.md: link testdata/diff-dask/%s in \"The Dask templates across releases\"", filepath.Base(r))
	}
	for _, m := range regexp.MustCompile(`\]\(\.\./(testdata/diff-dask/[^)]+)\)`).FindAllStringSubmatch(string(page), -1) {
		_, err := os.Stat(filepath.Join("..", m[1]))
		require.NoError(t, err, "docs/build-check.md links %s", m[1])
	}
}
