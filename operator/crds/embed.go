// Package crds embeds the compiled Dask CustomResourceDefinitions in this
// directory so that the operator can install and upgrade them. The files are
// an output of the Dask template set in the repository's .crd-resolver.yaml
// (`make dist` writes identical bytes to dist/, charts/dask-operator/crds/
// and here; `k8s-crd-resolver check` fails when any of them drifts). Never
// edit them by hand.
package crds

import "embed"

// FS holds the compiled CRDs, one *.yaml file per template.
//
//go:embed *.yaml
var FS embed.FS
