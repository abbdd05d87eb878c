package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minorCRD is a v1 CRD with fields newer than most minors: selectableFields
// (on by default from 1.31), a ValidationRule's messageExpression (1.27)
// and reason (1.28).
const minorCRD = `apiVersion: apiextensions.k8s.io/v1
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
      selectableFields:
        - jsonPath: .spec.color
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: self.color != 'red'
                  messageExpression: "'no ' + self.color"
                  reason: FieldValueForbidden
              properties:
                color: {type: string}
`

// TestValidateJudgesWithTheTargetMinor: validate --k8s-version judges a CRD
// by what that minor knows (its bundle's apiextensions definitions and the
// feature gates on by default there), each problem at its line:column
// with the first minor that has the field; apiextensions.k8s.io/v1 for a
// minor serving only v1beta1 is refused with the fix. Without
// --k8s-version, or for a minor that has every field, nothing is added.
func TestValidateJudgesWithTheTargetMinor(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(minorCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tc := range []struct {
		version string
		want    []string // the lines of standard output
	}{
		{"1.15", []string{
			`crd.yaml:1:1: widgets.example.com: apiVersion: Kubernetes 1.15 serves only apiextensions.k8s.io/v1beta1 CRDs (v1 came in 1.16): write the CRD as apiVersion: apiextensions.k8s.io/v1beta1, or pass --k8s-version 1.16 or later`,
		}},
		{"1.26", []string{
			`crd.yaml:23:19: widgets.example.com: spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].messageExpression: Kubernetes 1.26 has no field "messageExpression" in ValidationRule, so its apiserver refuses or drops it; it is on by default from 1.27: remove it, or pass --k8s-version 1.27 or later`,
			`crd.yaml:24:19: widgets.example.com: spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].reason: Kubernetes 1.26 has no field "reason" in ValidationRule, so its apiserver refuses or drops it; it is on by default from 1.28: remove it, or pass --k8s-version 1.28 or later`,
			`crd.yaml:13:7: widgets.example.com: spec.versions[0].selectableFields: Kubernetes 1.26 has no field "selectableFields" in CustomResourceDefinitionVersion, so its apiserver refuses or drops it; it is on by default from 1.31: remove it, or pass --k8s-version 1.31 or later`,
		}},
		{"1.30", []string{
			`crd.yaml:13:7: widgets.example.com: spec.versions[0].selectableFields: Kubernetes 1.30 has CustomResourceDefinitionVersion.selectableFields only behind the CustomResourceFieldSelectors feature gate, off by default, so its apiserver refuses or drops it; it is on by default from 1.31: remove it, or pass --k8s-version 1.31 or later`,
		}},
		{"1.31", nil},
		{"", nil},
	} {
		var stdout, stderr bytes.Buffer
		c := newCmd(strings.NewReader(""), &stdout, &stderr)
		args := []string{"crd.yaml"}
		if tc.version != "" {
			args = append([]string{"--k8s-version", tc.version}, args...)
		}
		c.SetArgs(args)
		err := c.ExecuteContext(t.Context())
		var code exitCode
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("--k8s-version %q: err = %v, want none; stdout:\n%s", tc.version, err, stdout.String())
		case tc.want != nil && (!errors.As(err, &code) || code != exitProblems):
			t.Errorf("--k8s-version %q: err = %v, want exit %d", tc.version, err, exitProblems)
		}
		var got []string
		if s := strings.TrimSpace(stdout.String()); s != "" {
			got = strings.Split(s, "\n")
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("--k8s-version %q: stdout:\n%s\nwant:\n%s", tc.version, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
