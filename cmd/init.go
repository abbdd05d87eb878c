package cmd

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

func newInitCmd() *cobra.Command {
	var version string
	c := &cobra.Command{
		Use:   "init",
		Short: "Write a .crd-resolver.yaml with the Kubernetes version pinned",
		Long: `init writes ` + project.ConfigFileName + ` in the working directory: templates/*.yaml compile
into dist/, for the newest Kubernetes minor this k8s-crd-resolver embeds (or
--k8s-version), written down. Without a pinned kubernetesVersion a project
compiles for the tool's newest minor, so upgrading k8s-crd-resolver would move
every output to another Kubernetes release; pinned, only a change of the file
does. An existing configuration is never replaced, and a Helm chart's root
(Chart.yaml beside templates/, whose templates are Helm's) gets none.`,
		Example: `  k8s-crd-resolver init                    # the newest embedded minor, pinned
  k8s-crd-resolver init --k8s-version 1.30 # the cluster's oldest supported release`,
		Args: usageArgs(0, "init takes no arguments: it writes "+project.ConfigFileName+" in the working directory"),
		RunE: func(c *cobra.Command, _ []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			if project.IsHelmChart(wd) {
				return fmt.Errorf("the working directory is a Helm chart (%s beside %s/): the configuration init writes takes %s, the chart's own templates, which are Helm's, not CRD templates; nothing was written: run init in the directory of your CRD project, or write %s by hand with sets naming your CRD templates (docs/config.md)",
					project.HelmChartFile, path.Dir(project.DefaultTemplates), project.DefaultTemplates, project.ConfigFileName)
			}
			config, minor, err := project.InitConfig(version)
			if err != nil {
				return err
			}
			path := filepath.Join(wd, project.ConfigFileName)
			if _, err := os.Lstat(path); err == nil {
				return fmt.Errorf("%s exists already: init never replaces it (pin kubernetesVersion there by hand)", project.ConfigFileName)
			}
			w := fileio.NewWriter(fileio.WriterOptions{Root: wd})
			defer w.Close()
			// The door never replaces a file without the generated header: a
			// configuration that appeared since is refused, not overwritten.
			if _, err := w.WriteFile(path, func(out io.Writer) error {
				_, err := out.Write(config)
				return err
			}); err != nil {
				return err
			}
			fmt.Fprintf(c.ErrOrStderr(), "wrote %s: %s into %s/, Kubernetes %s pinned\n", project.ConfigFileName, project.DefaultTemplates, project.DefaultOutput, minor)
			return nil
		},
	}
	c.Flags().StringVar(&version, "k8s-version", "", "the Kubernetes minor to pin (default: the newest embedded)")
	return c
}
