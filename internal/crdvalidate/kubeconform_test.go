package crdvalidate

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/jsonschema"
)

// kubeconformModule is the kubeconform the test builds from the Go module
// proxy.
const kubeconformModule = "github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0"

// beyondJSONSchema are the corpus cases on which kubeconform, with the
// strict schemas export jsonschema writes, cannot agree with validate (the
// apiserver), and why: what JSON Schema cannot express. Every other case
// must get the same verdict (accepted or refused) from both: misspelt
// fields at every depth (the strict schemas close what the apiserver
// prunes), types, enums, bounds, formats, int-or-string and quantity
// patterns, required fields, metadata name and label syntax (the exported
// ObjectMeta schema), unserved and unknown versions (no schema file).
// Beyond the corpus, JSON Schema also misses: defaults, quantity values
// (a pattern, no arithmetic or canonical form), label key part lengths,
// CEL cost limits, and pruning under the non-strict schemas.
var beyondJSONSchema = map[string]string{
	"widget-cel-minmax":         "a CEL rule (x-kubernetes-validations): JSON Schema has no CEL",
	"widget-cel-owner":          "a CEL rule (x-kubernetes-validations): JSON Schema has no CEL",
	"widget-cel-default-minmax": "a CEL rule that sees a default (maxReplicas: 10) the object does not carry: JSON Schema applies no defaults",
	"widget-listmap-duplicate":  "list-map key uniqueness (x-kubernetes-list-type: map): uniqueItems compares whole items, not keys",
}

// TestKubeconformAgrees builds kubeconform, runs it with the strict
// schemas of the corpus CRDs over every corpus case, and asserts that it
// accepts and refuses what validate does, except the cases listed in
// beyondJSONSchema, on which it must disagree (so the list stays true).
func TestKubeconformAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kubeconform from the Go module proxy")
	}
	bin := t.TempDir()
	build := exec.CommandContext(t.Context(), "go", "install", kubeconformModule)
	build.Dir = bin
	build.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go install %s: %v\n%s", kubeconformModule, err, out)
	}
	crds := corpusCRDs(t)
	var inputs []jsonschema.Input
	for _, c := range crds {
		inputs = append(inputs, jsonschema.Input{Name: c.Name, Content: c.Content})
	}
	files, err := jsonschema.Export(inputs, jsonschema.LayoutKind)
	if err != nil {
		t.Fatal(err)
	}
	schemas := t.TempDir()
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(schemas, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := t.TempDir()
	var args []string
	for _, tc := range corpus(t) {
		p := filepath.Join(cases, tc.name+".yaml")
		if err := os.WriteFile(p, tc.content, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	run := exec.CommandContext(t.Context(), filepath.Join(bin, "kubeconform"), append([]string{"-strict", "-output", "json",
		"-schema-location", filepath.Join(schemas, "{{ .ResourceKind }}_{{ .ResourceAPIVersion }}{{ .StrictSuffix }}.json")}, args...)...)
	out, _ := run.Output() // exit 1 when a resource is invalid
	var report struct {
		Resources []struct {
			Filename, Status, Msg string
		}
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("kubeconform's output: %v\n%s", err, out)
	}
	kc := map[string]string{}
	for _, r := range report.Resources {
		kc[filepath.Base(r.Filename)] = r.Status + " " + r.Msg
	}
	var disagree []string
	for _, tc := range corpus(t) {
		results, _, err := Files(t.Context(), []Input{{Name: tc.name, Content: tc.content}}, Options{CRDs: crds})
		if err != nil {
			t.Fatal(err)
		}
		validAccepts := len(results[0].Problems) == 0
		// kubeconform omits valid resources from its JSON unless -verbose.
		status, ok := kc[tc.name+".yaml"]
		kcAccepts := !ok || strings.HasPrefix(status, "statusValid")
		why, listed := beyondJSONSchema[tc.name]
		switch {
		case validAccepts == kcAccepts && listed:
			t.Errorf("%s: kubeconform agrees with validate (accepts: %v), yet the case is listed as beyond JSON Schema (%s)", tc.name, validAccepts, why)
		case validAccepts != kcAccepts && !listed:
			t.Errorf("%s: validate accepts: %v (%v), kubeconform accepts: %v (%s)", tc.name, validAccepts, results[0].Problems, kcAccepts, status)
		}
		if validAccepts != kcAccepts {
			disagree = append(disagree, tc.name)
		}
		t.Logf("%s: validate accepts %v, kubeconform %q", tc.name, validAccepts, status)
	}
	t.Logf("beyond JSON Schema: %v (listed: %v)", disagree, slices.Sorted(maps.Keys(beyondJSONSchema)))
}
