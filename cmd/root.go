// Package cmd is the command-line glue of k8s-crd-resolver: it parses flags
// into resolver options, calls the resolver and prints. It holds no logic of
// its own.
package cmd

import (
	"io"
	"os"

	"github.com/spf13/cobra"
)

// NewRootCmd returns the root command writing to out and errOut.
func NewRootCmd(out, errOut io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "k8s-crd-resolver",
		Short:         "Compile CRD templates with $ref pointers into structural CRDs",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(out)
	root.SetErr(errOut)
	return root
}

// Execute runs the root command on os.Args and returns the process exit code.
func Execute() int {
	root := NewRootCmd(os.Stdout, os.Stderr)
	if err := root.Execute(); err != nil {
		return 2
	}
	return 0
}
