package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newReconcileCmd is the name the Dask operator was once run by, hidden:
// a compiler's command line carries no controller (kubectl, helm and
// kubeconform none either), and the operator has its own binary and
// image. Whatever follows the name, --help included, gets the message
// saying what to run instead, and exit 2.
func newReconcileCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "reconcile",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return fmt.Errorf("reconcile is not a k8s-crd-resolver command: the Dask operator is its own program, k8s-crd-resolver-reconcile (`make build` builds it into bin/; its image runs it), with the same flags; see docs/operator.md")
		},
	}
}
