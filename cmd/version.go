package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/version"
)

// newVersionCmd prints what `--version` prints: the module version, the
// embedded Kubernetes minors and the Go toolchain.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the embedded Kubernetes minors and the Go version",
		Long: `version prints the module version of this build (the release tag, or the
pseudo-version Go records for a build from a checkout), the range of
Kubernetes minors whose OpenAPI definitions are embedded (versions lists
them), and the Go toolchain it was built with. --version prints the same.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(c.OutOrStdout(), version.String(c.Root().Name()))
			return err
		},
	}
}
