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
1.30, 1.30.2 or v1.30.14; the newest is the default. Minors before 1.16 serve
CRDs only as apiextensions.k8s.io/v1beta1, and are marked so.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			latest := schemas.Latest()
			for _, v := range schemas.Versions() {
				b, err := schemas.Load(v)
				if err != nil {
					return err
				}
				mark := ""
				switch {
				case v == latest:
					mark = "  (default)"
				case !servesV1CRDs(v):
					mark = "  (CRDs: apiextensions.k8s.io/v1beta1 only)"
				}
				fmt.Fprintf(c.OutOrStdout(), "%s\t%s%s\n", v, b.Source().KubernetesVersion, mark)
			}
			return nil
		},
	}
}

// servesV1CRDs reports whether Kubernetes minor v ("1.15") serves
// apiextensions.k8s.io/v1 CustomResourceDefinitions (1.16 and later).
func servesV1CRDs(v string) bool {
	var major, minor int
	_, err := fmt.Sscanf(v, "%d.%d", &major, &minor)
	return err != nil || major > 1 || minor >= 16
}
