// Package validatecli is the command line of `k8s-crd-resolver validate`:
// its flags, help text and examples, in one place for the two binaries that
// show them. The main binary parses the flags (so its --help, `help
// validate` and docs/cli are the whole reference) and passes them on to the
// k8s-crd-resolver-validate companion, which parses the same flags and
// does the work. It imports only pflag: the main binary links it.
package validatecli

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Use, Short, Long and Example are the command's help, shown by both
// binaries.
const (
	Use   = "validate [FILE|DIR|-]..."
	Short = "Validate CRDs and custom resources with the apiserver's own code"
	Long  = `validate runs the Kubernetes apiserver's CustomResourceDefinition validation
(k8s.io/apiextensions-apiserver as a library, the code kube-apiserver runs on
create) on CRD files and prints every problem with its field path:

  FILE: CRD-NAME: FIELD-PATH: MESSAGE

Custom resources in the same files (each item of a kind: List too) are judged
as a create of them would be (pruning, defaulting, schema, CEL rules, metadata,
version, size), against the CRD of their group and kind: from the same files,
--crd FILE|DIR, or the project's compiled outputs (docs/validating.md):

  FILE:LINE:COL: KIND/NAME: FIELD-PATH: MESSAGE

Objects of Kubernetes' own kinds (Deployment, Service, ConfigMap, RBAC, ...) are
judged by their kind's OpenAPI schema in the target minor (--k8s-version, the
project's pin, or the newest embedded), as custom resources of a CRD compiled
from that definition: unknown fields, types, required fields, formats, list-map
keys (a duplicate key the kind's create accepts, such as two env entries of one
name, is a warning), metadata. The apiserver's hand-written rules per kind
(allowed values, selectors, port ranges, names per kind...) are run by
k8s-crd-resolver-builtins when it is installed (next to
k8s-crd-resolver-validate, or on PATH; K8S_CRD_RESOLVER_BUILTINS=PATH|none) and
links the target minor: its verdict is then the apiserver's. Otherwise a
warning per kind says only the schema was judged, and why (the install command
when it is missing). An apiVersion the minor does not serve names the release
that removed it; a kind nothing defines is a problem.

A custom resource no CRD defines is a problem (nothing judged is no pass)
unless --ignore-missing-schemas; a group ending in k8s.io that no Kubernetes
release defines is a custom resource's. A DIR argument stands for its *.yaml, *.yml
and *.json files; "-" is standard input. Formats the apiserver of --k8s-version does not
recognise are warnings on standard error. With --k8s-version, a CRD is also judged by
what that minor knows: apiextensions.k8s.io/v1 before 1.16, and every field or schema
keyword the minor does not have, or keeps behind a feature gate off by default, is a
problem at its line and column naming the first minor that has it on; and custom
resources are judged by what that minor enforces: their CRD as its apiserver keeps
it (no x-kubernetes-validations rules before 1.25, no defaults before 1.16, no
pruning before 1.15, no k8s-short-name format before 1.34, ...), and an object
of a CRD the minor refuses (v1 before 1.16) is a problem at its apiVersion.

Objects are judged as they are read, so a stream of any length takes the memory
of a few objects. The text output closes with a summary line on standard error,
"N objects: V valid, I invalid, S not judged" (standard output holds only the
problems); -o junit and -o tap list every object with its verdict, for CI.

Exit status: 0 when every file is valid (nothing on standard output), 1 when a
problem was found, 2 when a file cannot be read.`
	Example = `  # Validate compiled CRDs before applying them
  k8s-crd-resolver validate dist/*.yaml

  # A chart's CRDs and objects, as Helm renders them
  helm template my-release ./chart | k8s-crd-resolver validate -

  # Custom resources against the project's CRDs, reporting pruned fields as warnings
  k8s-crd-resolver validate --crd dist/ --pruning=warn examples/*.yaml

  # A CRD from a cluster, machine-readable
  kubectl get crd daskclusters.kubernetes.dask.org -o yaml | k8s-crd-resolver validate -o json -

  # Formats as Kubernetes 1.27 knows them
  k8s-crd-resolver validate --k8s-version 1.27 crd.yaml`
)

// Pruning policies (the values of --pruning).
const (
	PruneError  = "error"
	PruneWarn   = "warn"
	PruneIgnore = "ignore"
)

// Flags are validate's flags.
type Flags struct {
	KubeVersion      string
	Output           string
	Pruning          string
	CRDs             []string
	ShowDefaulted    bool
	AllowOutsideRoot bool
	// IgnoreMissing makes a custom resource whose CRD nobody gave a
	// warning instead of a problem.
	IgnoreMissing bool
}

// Register adds the flags to fs, bound to f.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.KubeVersion, "k8s-version", "", "Kubernetes version whose CRD fields, known formats and custom resource rules apply (default: the newest embedded)")
	fs.StringVarP(&f.Output, "output", "o", "text", "output format: text (problems, then a summary line on standard error), json (a ValidationResponse), junit (JUnit XML) or tap (TAP version 13): junit and tap list every object, valid, invalid or not judged")
	fs.StringArrayVar(&f.CRDs, "crd", nil, "a file or directory of CRDs to judge custom resources against, after those among the files (repeatable; default: the project's compiled outputs)")
	fs.StringVar(&f.Pruning, "pruning", PruneError, "what a field the apiserver would prune is: error (as kubectl's default fieldValidation=Strict), warn, or ignore")
	fs.BoolVar(&f.IgnoreMissing, "ignore-missing-schemas", false, "a custom resource whose CRD none of the files, --crd or the project gives is a warning, not a problem (as kubeconform's -ignore-missing-schemas)")
	fs.BoolVar(&f.ShowDefaulted, "show-defaulted", false, "print each custom resource as the apiserver would store it (pruned, defaulted)")
	fs.BoolVar(&f.AllowOutsideRoot, "allow-outside-root", false, "read files outside the project root (the git top level of the working directory, else the working directory)")
}

// Check reports a flag value out of its set: bad usage, before any file
// is read.
func (f *Flags) Check() error {
	switch f.Output {
	case "text", "json", "junit", "tap":
	default:
		return fmt.Errorf("--output %q: want text, json, junit or tap", f.Output)
	}
	if f.Pruning != PruneError && f.Pruning != PruneWarn && f.Pruning != PruneIgnore {
		return fmt.Errorf("--pruning %q: want error, warn or ignore", f.Pruning)
	}
	return nil
}

// Args returns the command line that gives the companion the flags set
// in fs (those the user gave, each as --name=value) and the positional
// args after "--", so that a file named like a flag stays a file.
func Args(fs *pflag.FlagSet, args []string) []string {
	var out []string
	fs.Visit(func(f *pflag.Flag) {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	out = append(out, "--")
	return append(out, args...)
}
