package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
