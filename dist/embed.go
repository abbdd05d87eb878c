// Package dist embeds the compiled CustomResourceDefinitions in this
// directory (generated from templates/ by `make dist`; never edit them by
// hand) so that the reconciler can install them.
package dist

import "embed"

// FS holds the compiled CRDs, one *.yaml file per template.
//
//go:embed *.yaml
var FS embed.FS
