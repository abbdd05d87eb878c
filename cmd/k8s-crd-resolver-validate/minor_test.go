package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
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
		validateFor(t, tc.version, tc.want, "crd.yaml")
	}
}

// validateFor runs validate --k8s-version version (none for "") on args and
// checks its standard output's lines, and its exit status: 1 when lines
// are wanted, 0 otherwise.
func validateFor(t *testing.T, version string, want []string, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := newCmd(strings.NewReader(""), &stdout, &stderr)
	if version != "" {
		args = append([]string{"--k8s-version", version}, args...)
	}
	c.SetArgs(args)
	err := c.ExecuteContext(t.Context())
	var code exitCode
	switch {
	case want == nil && err != nil:
		t.Errorf("--k8s-version %q: err = %v, want none; stdout:\n%s", version, err, stdout.String())
	case want != nil && (!errors.As(err, &code) || code != exitProblems):
		t.Errorf("--k8s-version %q: err = %v, want exit %d; stderr:\n%s", version, err, exitProblems, stderr.String())
	}
	var got []string
	if s := strings.TrimSpace(stdout.String()); s != "" {
		got = strings.Split(s, "\n")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("--k8s-version %q: stdout:\n%s\nwant:\n%s", version, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// resourceCRDs are the CRDs of TestValidateResourcesForTheTargetMinor: a v1
// Widget whose spec has a CEL rule and a k8s-short-name format, and a
// v1beta1 Gadget that prunes and defaults a required field.
const resourceCRDs = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
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
            spec:
              type: object
              x-kubernetes-validations:
                - rule: self.size <= 10
                  message: at most 10
              properties:
                size: {type: integer}
                name: {type: string, format: k8s-short-name}
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  version: v1
  preserveUnknownFields: false
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec:
          type: object
          required: [mode]
          properties:
            mode: {type: string, default: auto}
`

const resourceObjects = `apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {size: 20, name: Bad_Name}
---
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g}
spec: {extra: 1}
`

// v1Refused is the problem of a Widget for a minor that serves no v1 CRD.
func v1Refused(minor string) string {
	return "crs.yaml:1:1: Widget/w: apiVersion: its CRD widgets.example.com cannot be created in Kubernetes " + minor + ", so neither can the object: Kubernetes " + minor +
		" serves only apiextensions.k8s.io/v1beta1 CRDs (v1 came in 1.16): write the CRD as apiVersion: apiextensions.k8s.io/v1beta1, or pass --k8s-version 1.16 or later"
}

// betaRefused is the problem of a Gadget for a minor that serves no v1beta1
// CRD.
func betaRefused(minor string) string {
	return "crs.yaml:6:1: Gadget/g: apiVersion: its CRD gadgets.example.com cannot be created in Kubernetes " + minor + ", so neither can the object: Kubernetes " + minor +
		" serves only apiextensions.k8s.io/v1 CRDs (v1beta1 was served up to 1.21): write the CRD as apiVersion: apiextensions.k8s.io/v1, or pass --k8s-version 1.21 or earlier"
}

// TestValidateResourcesForTheTargetMinor: validate --k8s-version M judges
// custom resources with what M's apiserver enforces of their CRD: no CEL
// rules where M lacks x-kubernetes-validations (1.22) or gates it off
// (1.23-1.24), no defaulting before 1.16 (so a required field with a
// default is missing), no pruning before 1.15 (v1beta1
// preserveUnknownFields: false is 1.15's), no k8s-short-name format
// before 1.34, and no object at all of a v1 CRD before 1.16 or of a
// v1beta1 CRD from 1.22.
func TestValidateResourcesForTheTargetMinor(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"crds.yaml": resourceCRDs, "crs.yaml": resourceObjects} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	const (
		cel    = `crs.yaml:4:1: Widget/w: spec: Invalid value: at most 10`
		format = `crs.yaml:4:18: Widget/w: spec.name: Invalid value: "Bad_Name": spec.name in body must be of type k8s-short-name: "Bad_Name"`
		// As in the apiserver, a schema error keeps the CEL rules from running.
		blocked  = `crs.yaml:2:1: Widget/w: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`
		pruned   = `crs.yaml:9:8: Gadget/g: spec.extra: unknown field, pruned by the apiserver (kubectl's default fieldValidation=Strict refuses the object)`
		required = `crs.yaml:9:1: Gadget/g: spec.mode: Required value`
	)
	for _, tc := range []struct {
		version string
		want    []string // the lines of standard output
	}{
		{"1.14", []string{v1Refused("1.14"), required}},
		{"1.15", []string{v1Refused("1.15"), required, pruned}},
		{"1.16", []string{pruned}},
		{"1.22", []string{betaRefused("1.22")}},
		{"1.24", []string{betaRefused("1.24")}},
		{"1.25", []string{cel, betaRefused("1.25")}},
		{"1.33", []string{cel, betaRefused("1.33")}},
		{"1.34", []string{blocked, format, betaRefused("1.34")}},
		{"", []string{blocked, format, pruned}},
	} {
		validateFor(t, tc.version, tc.want, "--crd", "crds.yaml", "crs.yaml")
	}
}

// TestValidateCELFunctionsOfTheTargetMinor: a rule calling a CEL function
// the target minor's apiserver does not have yet (isQuantity, 1.28; the
// real kube-apiserver v1.25.15 answers "undeclared reference") is refused
// for that minor, at the rule, and accepted from the minor that has it;
// a message expression likewise.
func TestValidateCELFunctionsOfTheTargetMinor(t *testing.T) {
	dir := t.TempDir()
	crd := strings.Replace(minorCRD, `                - rule: self.color != 'red'
                  messageExpression: "'no ' + self.color"
                  reason: FieldValueForbidden
`, `                - rule: "!has(self.size) || isQuantity(self.size)"
                - rule: self.color != 'red'
                  messageExpression: "isQuantity(self.size) ? 'bad color' : 'bad color, bad size'"
`, 1)
	crd = strings.Replace(crd, "      selectableFields:\n        - jsonPath: .spec.color\n", "", 1)
	crd = strings.Replace(crd, "                color: {type: string}\n", "                color: {type: string, maxLength: 64}\n                size: {type: string, maxLength: 64}\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(crd), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	c := newCmd(strings.NewReader(""), &stdout, &stderr)
	c.SetArgs([]string{"--k8s-version", "1.27", "crd.yaml"})
	_ = c.ExecuteContext(t.Context())
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 ||
		!strings.Contains(lines[0], "x-kubernetes-validations[0].rule: \"Invalid value") || !strings.Contains(lines[0], "undeclared reference to 'isQuantity'") ||
		!strings.Contains(lines[1], "x-kubernetes-validations[1].messageExpression: \"Invalid value") || !strings.Contains(lines[1], "isQuantity") {
		t.Errorf("--k8s-version 1.27: stdout:\n%s\nwant the rule and the message expression refused (isQuantity: 1.28)", stdout.String())
	}
	validateFor(t, "1.28", nil, "crd.yaml")
	validateFor(t, "", nil, "crd.yaml")
}

// TestBuiltinKindsForTheProjectPin: objects of Kubernetes' own kinds are
// judged for --k8s-version, else for the project's kubernetesVersion, else
// for the newest embedded minor: an extensions/v1beta1 Ingress (removed in
// 1.22) passes in a project pinned to 1.21, and is refused for 1.22.
func TestBuiltinKindsForTheProjectPin(t *testing.T) {
	dir := t.TempDir()
	ingress := "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  backend: {serviceName: web, servicePort: 80}\n"
	removed := "ingress.yaml:1:1: Ingress/web: apiVersion: extensions/v1beta1 Ingress is not served by Kubernetes %s: it was removed in Kubernetes 1.22 (last served by 1.21); use networking.k8s.io/v1"
	for name, content := range map[string]string{".crd-resolver.yaml": "kubernetesVersion: \"1.21\"\n", "ingress.yaml": ingress} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	validateFor(t, "", nil, "ingress.yaml")
	validateFor(t, "1.22", []string{fmt.Sprintf(removed, "1.22")}, "ingress.yaml")
	if err := os.Remove(filepath.Join(dir, ".crd-resolver.yaml")); err != nil {
		t.Fatal(err)
	}
	validateFor(t, "", []string{fmt.Sprintf(removed, schemas.Latest())}, "ingress.yaml")
}

// duplicateObjects are built-in objects with duplicate list-map keys that
// kube-apiserver's create accepts: two env entries named A (line 12), two
// container ports 8080/TCP (line 31).
const duplicateObjects = `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: nginx
    env:
    - name: A
      value: "1"
    - name: A
      value: "2"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  selector:
    matchLabels: {app: d}
  template:
    metadata:
      labels: {app: d}
    spec:
      containers:
      - name: c
        image: nginx
        ports:
        - {containerPort: 8080, name: metrics}
        - {containerPort: 8080, name: probes}
`

// duplicateWidget is a CRD whose list is x-kubernetes-list-type: map, and
// a custom resource with a duplicate key in it (line 27).
const duplicateWidget = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
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
            env:
              type: array
              x-kubernetes-list-type: map
              x-kubernetes-list-map-keys: [name]
              items: {type: object, required: [name], properties: {name: {type: string}}}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
env:
- name: A
- name: A
`

// TestBuiltinDuplicatesExit: judged by their schema alone (this package's
// tests run with K8S_CRD_RESOLVER_BUILTINS=none), built-in objects whose
// only fault is a duplicate key create accepts pass (exit 0) with a
// warning at each duplicate, for the newest minor and 1.30; the same
// duplicate in a custom resource is a problem (exit 1).
func TestBuiltinDuplicatesExit(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"dup.yaml": duplicateObjects, "widget.yaml": duplicateWidget} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, version := range []string{"", "1.30"} {
		var stdout, stderr bytes.Buffer
		c := newCmd(strings.NewReader(""), &stdout, &stderr)
		args := []string{"dup.yaml"}
		if version != "" {
			args = append(args, "--k8s-version", version)
		}
		c.SetArgs(args)
		if err := c.ExecuteContext(t.Context()); err != nil || stdout.Len() > 0 {
			t.Errorf("--k8s-version %q: err = %v, want none; stdout:\n%s", version, err, stdout.String())
		}
		for _, w := range []string{
			`warning: dup.yaml:12:7: Pod/p: spec.containers[0].env[1]: duplicate name "A": create accepts it`,
			`warning: dup.yaml:31:11: Deployment/d: spec.template.spec.containers[0].ports[1]: duplicate containerPort 8080 and protocol "TCP": create accepts it`,
		} {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("--k8s-version %q: no %q in standard error:\n%s", version, w, stderr.String())
			}
		}
	}
	var stdout, stderr bytes.Buffer
	c := newCmd(strings.NewReader(""), &stdout, &stderr)
	c.SetArgs([]string{"widget.yaml"})
	err := c.ExecuteContext(t.Context())
	var code exitCode
	if !errors.As(err, &code) || code != exitProblems {
		t.Errorf("err = %v, want exit %d", err, exitProblems)
	}
	if want := `widget.yaml:27:3: Widget/w: env[1]: Duplicate value: {"name":"A"}`; strings.TrimSpace(stdout.String()) != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
}
