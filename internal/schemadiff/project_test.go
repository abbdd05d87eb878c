package schemadiff_test

// The tests that compile the repository's templates through project, which
// imports schemadiff (moved CRDs: project.MovedReports): outside the
// package, as an import cycle forbids them inside it.

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/schemadiff"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// TestObjectsAndYAMLAgree: a compiled CRD compared as the compiler holds it (decoded JSON)
// and as its YAML file reads back shows no change at all, so check and diff, which compare
// a file on disk with a fresh compile, report nothing that is only a difference of decoding.
func TestObjectsAndYAMLAgree(t *testing.T) {
	for _, version := range []string{"1.25", "1.37"} {
		proj, err := project.Open("../..", project.Options{Policy: project.Policy{KubernetesVersion: version}})
		require.NoError(t, err)
		outs, err := proj.Compile(nil)
		require.NoError(t, err)
		require.NotEmpty(t, outs)
		for _, o := range outs {
			data, err := o.Bytes()
			require.NoError(t, err)
			fromYAML, err := schemadiff.Parse(o.Template.Name, data, 0)
			require.NoError(t, err)
			fromObjects, err := schemadiff.FromObjects(o.Template.Name, o.Objects())
			require.NoError(t, err)
			for _, pair := range [][2][]*schemadiff.CRD{{fromYAML, fromObjects}, {fromObjects, fromYAML}} {
				rep := schemadiff.Compare(pair[0], pair[1])
				require.True(t, rep.Empty(), "%s for %s: %+v", o.Template.Name, version, rep.Changes)
			}
		}
	}
}
