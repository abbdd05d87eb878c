package resolver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// verdictTemplate is a template whose spec is the schema at ref, with
// verdictSchema in its own definitions as Own.
func verdictTemplate(ref string) string {
	return crdTemplate(`spec: {$ref: "`+ref+`"}`) + "definitions:\n  Own:\n" + indent(verdictSchema, "    ")
}

// verdictSchema holds a CEL rule with every field a newer minor added.
const verdictSchema = `type: object
x-kubernetes-validations:
- rule: self.a > 0
  messageExpression: "'a must be positive'"
  reason: FieldValueInvalid
properties:
  a: {type: integer}
`

func indent(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
}

// TestRefdFileFieldsJudgedPerMinor: a field a minor does not have (or
// keeps off by default) is an error whatever path brought it into the
// CRD: written in a definitions file a $ref reaches, or in the template's
// own definitions, it is refused at the key, in that file, as it is in
// the template's spec; from the minor that has it on, it compiles.
func TestRefdFileFieldsJudgedPerMinor(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "defs.yaml"), []byte("definitions:\n  Spec:\n"+indent(verdictSchema, "    ")), 0o644))
	cases := []struct {
		minor, field, on string
		line             string // of the field in defs.yaml
	}{
		{"1.24", `"x-kubernetes-validations"`, "1.25", "defs.yaml:4:5"},
		{"1.26", `"x-kubernetes-validations[0].messageExpression"`, "1.27", "defs.yaml:6:7"},
		{"1.27", `"x-kubernetes-validations[0].reason"`, "1.28", "defs.yaml:7:7"},
	}
	for _, ref := range []string{"defs.yaml#/definitions/Spec", "#/definitions/Own"} {
		for _, tc := range cases {
			c, err := resolver.New(resolver.Options{KubeVersion: tc.minor, WorkDir: dir, Root: dir})
			require.NoError(t, err)
			_, err = c.Compile("template.yaml", []byte(verdictTemplate(ref)))
			require.Error(t, err, "%s for %s", ref, tc.minor)
			msg := err.Error()
			require.Contains(t, msg, "field "+tc.field+": Kubernetes "+tc.minor, "%s for %s", ref, tc.minor)
			require.Contains(t, msg, "pass --k8s-version "+tc.on+" or later")
			if strings.HasPrefix(ref, "defs.yaml") {
				require.Contains(t, msg, tc.line+": /definitions/Spec/", "at the key, in the file that writes it")
			} else {
				require.Contains(t, msg, "template.yaml:", "at the key, in the template's definitions")
			}
		}
		c, err := resolver.New(resolver.Options{KubeVersion: "1.28", WorkDir: dir, Root: dir})
		require.NoError(t, err)
		_, err = c.Compile("template.yaml", []byte(verdictTemplate(ref)))
		require.NoError(t, err, "1.28 has every field of the rule on")
	}
}

// TestNullBefore114: a type list allowing null is nullable, which 1.12
// and 1.13 do not have: an error where it is written, in the template or
// in a file its $refs reach, rather than a CRD validate refuses.
func TestNullBefore114(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "defs.yaml"), []byte("definitions:\n  Name: {type: [string, \"null\"]}\n"), 0o644))
	for _, minor := range []string{"1.12", "1.13", "1.14"} {
		c, err := resolver.New(resolver.Options{KubeVersion: minor, WorkDir: dir, Root: dir})
		require.NoError(t, err)
		_, err = c.Compile("template.yaml", []byte(crdTemplateV1beta1(`name: {$ref: "defs.yaml#/definitions/Name"}`)))
		if minor == "1.14" {
			require.NoError(t, err)
			continue
		}
		require.ErrorContains(t, err, "defs.yaml:2:10: /definitions/Name/type: bad input: Kubernetes "+minor+" has no nullable")
	}
}
