package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

func newVersionsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "versions",
		Short: "List the embedded Kubernetes versions",
		Long: `versions lists every Kubernetes minor whose OpenAPI definitions are embedded,
with the exact release each was taken from. --k8s-version accepts any of them as
1.30, 1.30.2 or v1.30.14; the newest is the default.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			latest := schemas.Latest()
			for _, v := range schemas.Versions() {
				b, err := schemas.Load(v)
				if err != nil {
					return err
				}
				mark := ""
				if v == latest {
					mark = "  (default)"
				}
				fmt.Fprintf(c.OutOrStdout(), "%s\t%s%s\n", v, b.Source().KubernetesVersion, mark)
			}
			return nil
		},
	}
}
