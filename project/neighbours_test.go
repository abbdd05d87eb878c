package project

import "testing"

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
