// Package crds embeds the compiled Dask CustomResourceDefinitions in this
// directory so that the operator can install and upgrade them. The files are
// the output of a template set of their own in the repository's
// .crd-resolver.yaml: `make dist` writes them with Kubernetes' descriptions,
// which dist/ and charts/dask-operator/crds/ drop (the operator installs
// them with server-side apply, so they may exceed client-side apply's
// limit); `k8s-crd-resolver check` fails when any of them drifts. Never edit
// them by hand.
package crds

import "embed"

// FS holds the compiled CRDs, one *.yaml file per template.
//
//go:embed *.yaml
var FS embed.FS
