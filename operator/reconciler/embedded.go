package reconciler

import (
	"fmt"
	"io/fs"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/crds"
)

// EmbeddedCRDs returns the compiled CRDs embedded at build time (package
// crds: dist/'s CRDs with Kubernetes' descriptions kept).
func EmbeddedCRDs() CRDSource { return fsCRDs{crds.FS} }

// fsCRDs reads every *.yaml file of an fs.FS.
type fsCRDs struct{ fsys fs.FS }

// CRDs implements CRDSource.
func (f fsCRDs) CRDs() ([]*unstructured.Unstructured, error) {
	names, err := fs.Glob(f.fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	y := YAMLCRDs{}
	for _, n := range names {
		b, err := fs.ReadFile(f.fsys, n)
		if err != nil {
			return nil, fmt.Errorf("reading embedded %s: %w", n, err)
		}
		y[n] = b
	}
	return y.CRDs()
}
