package project

import (
	"fmt"
	"testing"
)

// TestCRDKindLine: the lines that make a file YAML cannot read a CRD
// template (block, sequence item, flow, JSON, one-line JSON, quoted,
// commented), and lines that do not (another kind, a longer name, a value
// that only mentions it).
func TestCRDKindLine(t *testing.T) {
	for src, want := range map[string]int{
		"apiVersion: v1\nkind: CustomResourceDefinition\n":                                  2,
		"- kind: CustomResourceDefinition\n":                                                1,
		"{apiVersion: v1, kind: CustomResourceDefinition, metadata: {{ .x }}}\n":            1,
		"{\n  \"kind\": \"CustomResourceDefinition\",\n":                                    2,
		"{\"apiVersion\": \"v1\", \"kind\": \"CustomResourceDefinition\", \"spec\": {,}}\n": 1,
		"a: {{ x }}\n\nkind: 'CustomResourceDefinition'  # ours\r\n":                        3,
		"kind: Deployment\nmetadata: {{ .x }}\n":                                            0,
		"kind: CustomResourceDefinitionList\n":                                              0,
		"description: \"any kind of CustomResourceDefinition\"\n":                           0,
		"mykind: CustomResourceDefinition\n":                                                0,
		"":                                                                                  0,
	} {
		if got := crdKindLine([]byte(src)); got != want {
			t.Errorf("crdKindLine(%q) = %d, want %d", src, got, want)
		}
	}
}

// TestGlobDir: the directory a template glob takes files from, and whether
// it reaches below it.
func TestGlobDir(t *testing.T) {
	for glob, want := range map[string]string{
		"templates/*.yaml":      "templates false",
		"templates/a.yaml":      "templates false",
		"*.yaml":                ". false",
		"crds/**/*.yaml":        "crds true",
		"crds/v*/a.yaml":        "crds true",
		"**/*.crd.yaml":         " true",
		"deploy/crd-*.yaml":     "deploy false",
		"a/b/../c/templ*/x.yml": "a/c true",
	} {
		d, deep := globDir(glob)
		if got := fmt.Sprintf("%s %t", d, deep); got != want {
			t.Errorf("globDir(%q) = %s, want %s", glob, got, want)
		}
	}
}
