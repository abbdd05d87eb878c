package cmd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
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
	c.Flags().StringVarP(&output, "output", "o", "", "write here instead of standard output, with the generated header (atomically: a failed run leaves it untouched; an existing file is replaced only when it carries the header, see --force)")
	return c
}

// runCompile is the shared body of resolve and the legacy form. Every
// file goes through the one reader and the one writer (internal/fileio),
// confined to the template's project root: the --root flag, else the git
// top level of the template's directory, else the working directory.
func runCompile(c *cobra.Command, f compileFlags, src, dst string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root := f.opts.Root
	if root == "" {
		dir := wd
		if src != "-" {
			dir = filepath.Dir(absPath(wd, src))
		}
		root = fileio.ProjectRoot(dir, wd)
	}
	reader := fileio.NewReader(root, f.opts.AllowOutsideRoot, resolver.MaxInputBytes)
	defer reader.Close()
	comp, err := f.compiler(reader)
	if err != nil {
		return err
	}
	var data []byte
	if src == "-" {
		data, err = reader.ReadFrom("<stdin>", c.InOrStdin())
	} else {
		data, err = reader.ReadFile(src)
	}
	if err != nil {
		return fmt.Errorf("reading template: %w", err)
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
	inputs := slices.Clone(res.Files)
	if src != "-" {
		inputs = append(inputs, absPath(wd, src))
	}
	if f.patchFile != "" {
		inputs = append(inputs, absPath(wd, f.patchFile))
	}
	fileio.HandleSignals(os.Exit)
	out := fileio.NewWriter(fileio.WriterOptions{
		Root:         root,
		AllowOutside: f.opts.AllowOutsideRoot,
		Owned:        project.IsGeneratedLine,
		Force:        f.force,
		Inputs:       inputs,
	})
	defer out.Close()
	// The header names the template relative to the project root, so the
	// bytes do not depend on where the project is checked out.
	name := "<stdin>"
	if src != "-" {
		name = reader.Display(absPath(wd, src))
	}
	header := project.GeneratedHeader(name, comp.KubeVersion())
	// An output that already holds these bytes is left alone, as build
	// leaves an unchanged file.
	_, err = out.WriteFile(absPath(wd, dst), func(w io.Writer) error {
		return res.WriteYAMLAfter(w, header)
	})
	return err
}

func absPath(wd, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(wd, name)
}
