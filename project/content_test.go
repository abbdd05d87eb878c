package project_test

import (
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// content is an output's file content.
func content(t *testing.T, o *project.Output) string {
	t.Helper()
	data, err := o.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
