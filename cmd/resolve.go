package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/atomicfile"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

func newResolveCmd() *cobra.Command {
	var f compileFlags
	var output string
	c := &cobra.Command{
		Use:   "resolve FILE|- [-o OUT]",
		Short: "Compile one CRD template to standard output or a file",
		Long: `resolve compiles one CRD template (YAML or JSON, one or more documents) into
structural CRDs: every $ref resolved, the schema normalised to what the apiserver
accepts, the JSON patch applied. Warnings go to standard error. On any error
nothing is written and the exit code is 2.`,
		Example: `  k8s-crd-resolver resolve templates/daskcluster.yaml --k8s-version 1.30 > crd.yaml
  k8s-crd-resolver resolve templates/daskcluster.yaml -r -o dist/daskcluster.yaml
  cat template.yaml | k8s-crd-resolver resolve - -j fix.patch.yaml`,
		Args: usageArgs(1, "resolve takes one template file, or - for standard input"),
		RunE: func(c *cobra.Command, args []string) error {
			if output == "" {
				output = "-"
			}
			return runCompile(c, f, args[0], output)
		},
	}
	f.register(c)
	c.Flags().StringVarP(&output, "output", "o", "", "write here instead of standard output (atomically: a failed run leaves it untouched)")
	return c
}

// runCompile is the shared body of resolve and the legacy form.
func runCompile(c *cobra.Command, f compileFlags, src, dst string) error {
	comp, err := f.compiler()
	if err != nil {
		return err
	}
	data, err := readInput(c.InOrStdin(), src)
	if err != nil {
		return err
	}
	res, err := comp.Compile(src, data)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(c.ErrOrStderr(), "warning: %s\n", w)
	}
	if dst == "-" {
		w := bufio.NewWriterSize(c.OutOrStdout(), 64<<10)
		if err := res.WriteYAML(w); err != nil {
			return err
		}
		return w.Flush()
	}
	return atomicfile.WriteFunc(dst, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := res.WriteYAML(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

func readInput(stdin io.Reader, name string) ([]byte, error) {
	if name == "-" {
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, io.LimitReader(stdin, resolver.MaxInputBytes+1)); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	fi, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("reading template: %w", err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("reading template: %s is a directory", name)
	}
	if fi.Size() > resolver.MaxInputBytes {
		return nil, fmt.Errorf("reading template: %s is %d bytes, more than the %d MiB limit", name, fi.Size(), resolver.MaxInputBytes>>20)
	}
	return os.ReadFile(name)
}
