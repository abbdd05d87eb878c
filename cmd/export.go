package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/jsonschema"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

func newExportCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "export",
		Short: "Export the schemas of CRDs for other tools",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("export %s: unknown format%s; export writes jsonschema (see '%s --help')", safetext.Quote(args[0]), suggest.DidYouMean(args[0], []string{"jsonschema"}), c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newExportJSONSchemaCmd())
	return c
}

func newExportJSONSchemaCmd() *cobra.Command {
	var dir, layout string
	var allowOutside bool
	c := &cobra.Command{
		Use:   "jsonschema [--output-dir DIR] [CRD-FILE|DIR]...",
		Short: "Write one JSON Schema file per kind and version, for kubeconform and editors",
		Long: `export jsonschema writes, for every version of every CRD given (files, or the
*.yaml, *.yml and *.json files of directories; default: the project's compiled
outputs), two JSON Schema (draft-07) files into DIR, in the layout kubeconform
and yaml-language-server read:

  {kind}_{version}.json          e.g. daskcluster_v1.json
  {kind}_{version}-strict.json   additionalProperties: false wherever the
                                 apiserver prunes (kubeconform -strict)

With --layout group, each goes under a directory named after the CRD's group,
the layout of the CRDs-catalog, so that one kind in two groups has room:

  {group}/{kind}_{version}.json  e.g. kubernetes.dask.org/daskcluster_v1.json

Two CRDs that would give one file differently (in the kind layout, one kind
and version in two groups) are an error naming both: nothing is written.

JSON Schema cannot express everything the apiserver checks (CEL rules,
defaults, pruning as the apiserver does it, quantities, metadata names):
"k8s-crd-resolver validate" judges custom resources as the apiserver does
(docs/validating.md).

Every file's first line is the same "$comment" member, which marks it as
generated: a file there without it is never replaced. Files are never removed.
DIR is created when missing, parents included, inside a project or git work
tree; outside any, it must exist. A CRD whose kind, version names or group the
apiserver would refuse is refused (its names make the file names), and every
file is staged before any is renamed into DIR: a refused file leaves DIR as it
was.`,
		Example: `  k8s-crd-resolver export jsonschema
  kubeconform -strict -schema-location default \
    -schema-location 'jsonschema/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}{{ .StrictSuffix }}.json' examples/

  # One directory per group, as the CRDs-catalog lays them out
  k8s-crd-resolver export jsonschema --layout group -o schemas/
  kubeconform -strict -schema-location default \
    -schema-location 'schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}{{ .StrictSuffix }}.json' examples/`,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			l, err := jsonschema.ParseLayout(layout)
			if err != nil {
				return fmt.Errorf("--%w", err)
			}
			return runExportJSONSchema(c, dir, l, allowOutside, args)
		},
	}
	c.Flags().StringVar(&dir, "output-dir", "jsonschema", "the directory to write the schemas into")
	c.Flags().StringVar(&layout, "layout", "kind", "file names: kind ({kind}_{version}.json) or group ({group}/{kind}_{version}.json, the CRDs-catalog's)")
	outputAlias(c, &dir, "output-dir")
	c.Flags().BoolVar(&allowOutside, "allow-outside-root", false, "let the project's compiled outputs lie outside the project root")
	return c
}

func runExportJSONSchema(c *cobra.Command, dir string, layout jsonschema.Layout, allowOutside bool, args []string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	var inputs []jsonschema.Input
	var names []string // the files read: never replaced by an output
	root := fileio.ProjectRoot(wd, wd)
	absDir, err := exportDir(dir, root)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		inputs, names, err = projectOutputs(wd, allowOutside)
		if err != nil {
			return err
		}
	} else {
		reader := fileio.NewReader(root, allowOutside, docread.MaxInputBytes)
		defer reader.Close()
		for _, a := range args {
			in, err := readCRDFiles(reader, a)
			if err != nil {
				return err
			}
			if err := exportable(a, in); err != nil {
				return err
			}
			for _, i := range in {
				inputs = append(inputs, i)
				names = append(names, i.Name)
			}
		}
	}
	files, err := jsonschema.Export(inputs, layout)
	if err != nil {
		// One line per problem (a collision is one per file name), each
		// quoted only where it could forge a line.
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(c.ErrOrStderr(), "error: %s\n", safetext.Quote(line))
		}
		return quietExit(exitBadInput)
	}
	if len(files) == 0 {
		return errors.New("no CustomResourceDefinition with a schema among the inputs")
	}
	// Names inside DIR come from the CRDs (checked by Export): they are
	// confined below DIR's own root (the project, the git work tree
	// holding DIR, else DIR itself) as any name a repository gives.
	wroot := fileio.ExplicitRoot(absDir, root)
	if wroot == "" {
		wroot = absDir
	}
	fileio.HandleSignals(os.Exit)
	w := fileio.NewWriter(fileio.WriterOptions{Root: wroot, AllowOutside: allowOutside && wroot == root, Owned: jsonschema.Owned, Inputs: names})
	defer w.Close()
	// All or nothing: every file is staged before any is renamed into
	// place, so a refused file (one without the generated first line)
	// leaves the directory as it was.
	written, err := fileio.WriteAll(len(files), func(i int) (*fileio.Staged, error) {
		f := files[i]
		target := filepath.Join(absDir, filepath.FromSlash(f.Name))
		parent := filepath.Dir(target)
		if layout == jsonschema.LayoutGroup {
			parent = filepath.Dir(parent) // {group}/ in between
		}
		if parent != absDir {
			return nil, fmt.Errorf("%s: %s would not be a file of %s", f.From, safetext.Quote(f.Name), dir)
		}
		s, err := w.StageKeep(target, func(out io.Writer) error {
			_, err := out.Write(f.Data)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%w (nothing written)", err)
		}
		return s, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.OutOrStdout(), "%d schema file(s) in %s (%d written, %d unchanged)\n", len(files), safetext.Quote(dir), written, len(files)-written)
	return nil
}

// exportable refuses an argument (a file, or a directory's files in) that
// holds no CustomResourceDefinition, naming it, as nothing exported is no
// success; and a CRD template: its $refs would be exported as schemas that
// accept anything.
func exportable(arg string, in []jsonschema.Input) error {
	crds := false
	for _, i := range in {
		docs, err := docread.DecodeDocuments(i.Name, i.Content, 0)
		if err != nil {
			return nil // Export reports it
		}
		for _, d := range docs {
			m, _ := d.Value.(map[string]any)
			if m["kind"] == "List" {
				crds = true // kubectl get crd -o yaml: Export looks into it
			}
			if m["kind"] != "CustomResourceDefinition" {
				continue
			}
			crds = true
			if ptr, ok := resolver.FirstRef(d.Value); ok {
				return fmt.Errorf("%s: %s is a CRD template (a $ref at %s), not a compiled CRD: export writes the schemas of compiled CRDs; compile it first (k8s-crd-resolver build, or k8s-crd-resolver resolve %s --output-file compiled.yaml), or run export with no arguments to export the project's outputs",
					d.Position(ptr), safetext.Quote(i.Name), ptr, safetext.Quote(i.Name))
			}
		}
	}
	if !crds {
		return fmt.Errorf("%s holds no CustomResourceDefinition: export writes the JSON Schemas of CRDs (nothing exported is no success); give compiled CRDs, or no argument to export the project's outputs", safetext.Quote(arg))
	}
	return nil
}

// exportDir checks --output-dir DIR (the user's own) and returns it absolute: a
// directory, or a path that does not exist yet (created below a project
// only: outside any, DIR must exist).
func exportDir(dir, root string) (string, error) {
	if dir == "" {
		return "", errors.New(`--output-dir "": give the directory to write the schemas into (default: jsonschema)`)
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(absDir)
	switch {
	case err == nil && !fi.IsDir():
		return "", fmt.Errorf("--output-dir %s is %s, not a directory: export writes two files per kind and version into it", dir, fileio.Kind(fi.Mode()))
	case errors.Is(err, fs.ErrNotExist) && fileio.ExplicitRoot(absDir, root) == "":
		return "", fmt.Errorf("--output-dir %s does not exist: outside any project, create the directory first", dir)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("--output-dir %s: %w", dir, err)
	}
	return absDir, nil
}

// readCRDFiles reads a CRD-FILE|DIR argument: a file, or every *.yaml,
// *.yml and *.json file of a directory (not its subdirectories). The
// argument is the user's own, read wherever it points; the names found in
// a directory are not, and must be regular files (fileio.ReadListed).
func readCRDFiles(r *fileio.Reader, name string) ([]jsonschema.Input, error) {
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		names, contents, err := r.ReadListed(name)
		if err != nil {
			return nil, err
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: no *.yaml, *.yml or *.json file in the directory", name)
		}
		out := make([]jsonschema.Input, len(names))
		for i, n := range names {
			out[i] = jsonschema.Input{Name: n, Content: contents[i]}
		}
		return out, nil
	}
	content, err := r.ReadExplicit(name)
	if err != nil {
		return nil, err
	}
	return []jsonschema.Input{{Name: name, Content: content}}, nil
}

// projectOutputs reads the compiled outputs of the project of wd (the
// first output of each template, of the first set compiling it: sets
// differ in descriptions and sizes, not in what they accept) through the
// project's confined reader: the repository names them.
func projectOutputs(wd string, allowOutside bool) ([]jsonschema.Input, []string, error) {
	var opts project.Options
	if allowOutside {
		opts.Policy.AllowOutsideRoot = &allowOutside
	}
	p, err := project.Open(wd, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("finding the project's compiled CRDs (or name CRD files): %w", err)
	}
	var out []jsonschema.Input
	var names []string
	seen := map[string]bool{}
	for _, t := range p.Templates {
		if len(t.Outputs) == 0 || seen[t.Path] {
			continue
		}
		seen[t.Path] = true
		content, err := p.Reader().ReadFile(t.Outputs[0])
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s is not built yet: run k8s-crd-resolver build first", p.Rel(t.Outputs[0]))
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, jsonschema.Input{Name: p.Rel(t.Outputs[0]), Content: content})
		names = append(names, t.Outputs[0])
	}
	return out, names, nil
}
