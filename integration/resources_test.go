package integration

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A custom resource of the "betas" CRD of newRepo, with a misspelt field
// (line 6) and a wrong type (line 8).
const betaResource = `apiVersion: example.com/v1
kind: Kbetas
metadata:
  name: b
spec:
  resourcez: {}
  resources:
    limits: {cpu: 0.5}
`

// TestValidateCustomResources: validate judges custom resources against
// the CRDs of the same stream, of --crd, or by default of the project's
// compiled outputs; problems are FILE:LINE:COL: KIND/NAME: FIELD: MESSAGE;
// --pruning=warn makes a pruned field a warning; a stream on standard
// input (what `helm template ... | validate -` sends, Kubernetes' own
// kinds included) works.
func TestValidateCustomResources(t *testing.T) {
	dir := newRepo(t)
	cli(t, dir, "build").must(t, 0)
	write(t, dir, "cr.yaml", betaResource)

	// Default: the project's outputs.
	r := cli(t, dir, "validate", "cr.yaml").must(t, 1)
	contains(t, "validate stdout", r.stdout,
		"cr.yaml:6:3: Kbetas/b: spec.resourcez: unknown field",
		"cr.yaml:8:14: Kbetas/b: spec.resources.limits.cpu: Invalid value: 0.5: ", `write "0.5" or "500m"`)
	r = cli(t, dir, "validate", "--pruning=warn", "cr.yaml").must(t, 1)
	if strings.Contains(r.stdout, "resourcez") || !strings.Contains(r.stderr, "warning: cr.yaml:6:3: Kbetas/b: spec.resourcez: unknown field") {
		t.Errorf("--pruning=warn: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	// --crd, from elsewhere: a directory.
	other := t.TempDir()
	write(t, other, "cr.yaml", strings.Replace(betaResource, "cpu: 0.5", `cpu: "500m"`, 1))
	r = cli(t, other, "validate", "--pruning=ignore", "--crd", filepath.Join(dir, "dist"), "cr.yaml").must(t, 0)
	if r.stdout != "" {
		t.Errorf("a valid resource printed %q", r.stdout)
	}
	// Without the CRD: nothing judges it, which is no pass; a warning
	// with --ignore-missing-schemas (issue 34, item 4).
	r = cli(t, other, "validate", "cr.yaml").must(t, 1)
	contains(t, "stdout", r.stdout, "cr.yaml:1:1: Kbetas/b: apiVersion: no CRD defines example.com/v1 Kbetas, so nothing judges it")
	r = cli(t, other, "validate", "--ignore-missing-schemas", "cr.yaml").must(t, 0)
	contains(t, "stderr", r.stderr, "warning: cr.yaml:1:1: Kbetas/b: no CRD defines example.com/v1 Kbetas: not validated (--ignore-missing-schemas)")

	// validate DIR reads the directory's YAML and JSON files; an item of
	// a kind: List is judged as an object of its own.
	write(t, other, "crs/list.yaml", "apiVersion: v1\nkind: List\nitems:\n- "+strings.ReplaceAll(strings.TrimSuffix(betaResource, "\n"), "\n", "\n  ")+"\n")
	write(t, other, "crs/notes.txt", "not read\n")
	r = cli(t, other, "validate", "--crd", filepath.Join(dir, "dist"), "crs").must(t, 1)
	contains(t, "validate DIR", r.stdout, "crs/list.yaml:9:5: Kbetas/b: spec.resourcez: unknown field")
	write(t, other, "empty/notes.txt", "not read\n")
	r = cli(t, other, "validate", "empty").must(t, 2)
	contains(t, "validate of an empty DIR", r.stderr, "no *.yaml, *.yml or *.json file in the directory")

	// The same stream, on standard input, between a chart's own kinds; -o json.
	stream := read(t, dir, "dist/beta.yaml") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n" + betaResource
	c := exec.CommandContext(t.Context(), filepath.Join(binDir, "k8s-crd-resolver"), "validate", "-o", "json", "-")
	c.Dir = other
	c.Stdin = strings.NewReader(stream)
	var stdout bytes.Buffer
	c.Stdout = &stdout
	if err := c.Run(); err == nil {
		t.Fatal("validate - of an invalid resource exited 0")
	}
	var resp struct {
		Results []struct {
			Name     string
			Problems []struct {
				Object, Field string
				Line, Column  int
			}
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if len(resp.Results) != 1 {
		t.Fatalf("want one result: %s", stdout.String())
	}
	found := false
	for _, p := range resp.Results[0].Problems {
		// The stream's line 66: the CRD, then the ConfigMap, then the resource.
		found = found || p.Object == "Kbetas/b" && p.Field == "spec.resourcez" && p.Line == strings.Count(stream[:strings.Index(stream, "resourcez")], "\n")+1 && p.Column == 3
	}
	if !found {
		t.Errorf("no problem at spec.resourcez, line and column right: %s", stdout.String())
	}
}

// TestExamplesJudgedByBuildAndCheck: the configuration's examples globs
// are judged against the compiled CRDs by build and check; a misspelt
// field fails both, naming its place.
func TestExamplesJudgedByBuildAndCheck(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, ".crd-resolver.yaml", "kubernetesVersion: \"1.30\"\nremoveDescriptions: true\nsets:\n  - templates: [\"templates/*.yaml\"]\n    outputs: [dist]\n    examples: [\"examples/*.yaml\"]\n")
	write(t, dir, "examples/beta.yaml", strings.Replace(strings.Replace(betaResource, "  resourcez: {}\n", "", 1), "cpu: 0.5", "cpu: 2", 1))
	cli(t, dir, "build").must(t, 0)
	cli(t, dir, "check").must(t, 0)
	write(t, dir, "examples/beta.yaml", betaResource)
	for _, cmd := range []string{"build", "check"} {
		r := cli(t, dir, cmd).must(t, 1)
		contains(t, cmd+" stderr", r.stderr, "error: examples/beta.yaml:6:3: Kbetas/b: spec.resourcez: unknown field")
	}
	// An example whose group has a typo is judged by nothing: a failure
	// naming the project's groups, not a warning advising a flag build and
	// check do not have.
	write(t, dir, "examples/beta.yaml", strings.Replace(betaResource, "example.com/v1", "exmaple.com/v1", 1))
	r := cli(t, dir, "check").must(t, 1)
	contains(t, "check stderr", r.stderr, "error: examples/beta.yaml:1:1: Kbetas/b: apiVersion: no CRD of the project defines exmaple.com/v1 Kbetas, so nothing judges this example", "did you mean example.com?")
	if strings.Contains(r.stderr, "--crd") {
		t.Errorf("check advises --crd: %s", r.stderr)
	}
	write(t, dir, ".crd-resolver.yaml", "examples: [\"nothing/*.yaml\"]\n")
	r = cli(t, dir, "check").must(t, 2)
	contains(t, "check stderr", r.stderr, `examples "nothing/*.yaml" matches no file`)
}
