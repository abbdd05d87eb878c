package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

func newResolveCmd() *cobra.Command {
	f := compileFlags{validate: true}
	var output, format string
	c := &cobra.Command{
		Use:   "resolve FILE|- [--output-file OUT]",
		Short: "Compile one CRD template to standard output or a file",
		Long: `resolve compiles one CRD template (YAML or JSON, one or more documents) into
structural CRDs: every $ref resolved, the schema normalised to what the apiserver
accepts, the JSON patch applied. Warnings go to standard error. On any error
nothing is written and the exit code is 2.

Inside a project (a .crd-resolver.yaml whose sets list the template, or without
one the working directory's templates/*.yaml) it compiles the template exactly as
build would: the set's Kubernetes version, descriptions
and patch, the same bytes; flags given on the command line win over the
configuration, --no-config ignores it. The result is validated with the
apiserver's code when the k8s-crd-resolver-validate companion is installed
(--no-validate skips it); a CRD the apiserver would reject is an error (exit 1)
and is not written.

--output-file OUT is the user's choice and is written wherever it points (a temporary
directory, /dev/stdout, a FIFO: streams are written in place). An existing file
is replaced when it carries the generated header or is a CustomResourceDefinition
of the same name (a CRD being regenerated, whoever wrote it); anything else
needs --force.`,
		Example: `  k8s-crd-resolver resolve templates/daskcluster.yaml --k8s-version 1.30 > crd.yaml
  k8s-crd-resolver resolve templates/daskcluster.yaml -r --output-file /tmp/daskcluster.yaml
  cat template.yaml | k8s-crd-resolver resolve - -j fix.patch.yaml`,
		Args: usageArgs(1, "resolve takes one template file, or - for standard input"),
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case format == "yaml", format == "json":
				f.format = format
			case c.Flags().Changed("output-file"):
				return fmt.Errorf("-o %s: want yaml or json (the output format; --output-file %s names the file)", safetext.Quote(format), safetext.Quote(output))
			default:
				// -o FILE, the destination resolve took before -o
				// named a format everywhere: kept for scripts.
				output, f.format = format, "yaml"
			}
			if output == "" {
				output = "-"
			}
			if f.format == "json" && output != "-" {
				return fmt.Errorf("-o json writes to standard output: an output file carries the generated header, a YAML comment JSON has no room for; redirect standard output instead")
			}
			return runCompile(c, f, args[0], output)
		},
	}
	f.register(c)
	c.Flags().StringVar(&output, "output-file", "", "write here instead of standard output, with the generated header (atomically: a failed run leaves it untouched; see --force)")
	c.Flags().StringVarP(&format, "output", "o", "yaml", "output format: yaml, or json (one CRD as an object, several as a kind: List, as kubectl prints them; standard output only). Any other value is taken as --output-file, as resolve took -o FILE before")
	c.Flags().BoolVar(&f.validate, "validate", true, "validate the output with the apiserver's code (the default; given, a missing k8s-crd-resolver-validate is an error rather than a warning), as the root command's --validate")
	c.Flags().BoolVar(&f.noValidate, "no-validate", false, "skip the apiserver validation (by the k8s-crd-resolver-validate companion)")
	return c
}

// runCompile is the shared body of resolve and the legacy form. The
// template, the -j patch and the output are the user's own paths (read and
// written wherever they point, see fileio.ReadExplicit); everything the
// template names is confined to its project root: the --root flag, else
// the git top level of the template's directory, else the working
// directory.
func runCompile(c *cobra.Command, f compileFlags, src, dst string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if src != "-" && !f.noConfig && !c.Flags().Changed("root") {
		proj, t, err := project.ForTemplate(wd, absPath(wd, src), project.Options{Policy: f.policy(c), Force: f.force})
		if err != nil {
			printErrors(c.ErrOrStderr(), err)
			return quietExit(exitBadInput)
		}
		if t != nil {
			return compileInProject(c, f, wd, proj, t, dst)
		}
	}
	root := f.opts.Root
	if root == "" {
		dir := wd
		if src != "-" {
			dir = filepath.Dir(absPath(wd, src))
		}
		root = fileio.ProjectRoot(dir, wd)
	}
	reader := fileio.NewReader(root, f.opts.AllowOutsideRoot, docread.MaxInputBytes)
	defer reader.Close()
	opts, err := f.compilerOptions(reader)
	if err != nil {
		return err
	}
	comp, err := resolver.New(opts)
	if err != nil {
		return err
	}
	var data []byte
	if src == "-" {
		data, err = reader.ReadFrom("<stdin>", c.InOrStdin())
	} else {
		data, err = reader.ReadExplicit(src)
	}
	if err != nil {
		return fmt.Errorf("reading template: %w", err)
	}
	res, err := comp.Compile(src, data)
	if err != nil {
		return err
	}
	if lim, again := project.ClientSideRefit(f.fit, res); again {
		opts.FitDescriptions = lim
		if comp, err = resolver.New(opts); err != nil {
			return err
		}
		if res, err = comp.Compile(src, data); err != nil {
			return err
		}
	}
	for _, d := range res.Documents {
		if err := project.CheckFit(src, d, f.fit); err != nil {
			return err
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(c.ErrOrStderr(), "warning: %s\n", w)
	}
	// The size warning a project's compile gives, outside one too.
	for _, d := range res.Documents {
		if w := project.SizeWarning(d.Name, d.Annotations(), d.JSONSize(), f.opts.RemoveDescriptions); w != "" {
			fmt.Fprintf(c.ErrOrStderr(), "warning: %s: %s\n", safetext.Quote(src), w)
		}
	}
	name := "<stdin>"
	if src != "-" {
		// The header names the template relative to the project root, so
		// the bytes do not depend on where the project is checked out.
		name = reader.Display(absPath(wd, src))
	}
	var names []string
	for _, d := range res.Documents {
		names = append(names, d.Name)
	}
	if err := f.validateDocs(c, name, comp.KubeVersion(), res.Documents, data); err != nil {
		return err
	}
	if dst == "-" && f.format == "json" {
		objs := make([]map[string]any, len(res.Documents))
		for i, d := range res.Documents {
			objs[i] = d.Object()
		}
		return writeJSON(c.OutOrStdout(), objs)
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
	header := func(seal string) string { return project.HeaderLine(seal, name, res.KubeVersions...) }
	return writeOutput(f, root, inputs, names, absPath(wd, dst), dst, func(w io.Writer) error {
		return fileio.WriteSealed(w, header, res.WriteYAMLAfter)
	})
}

// compileInProject compiles template t of proj as build does, flags
// winning over the configuration, and writes it to dst.
func compileInProject(c *cobra.Command, f compileFlags, wd string, proj *project.Project, t *project.Template, dst string) error {
	if f.patchFile != "" {
		t.Patch = absPath(wd, f.patchFile)
	}
	outs, err := proj.Compile(func(x *project.Template) bool { return x == t })
	if err != nil {
		printErrors(c.ErrOrStderr(), errors.New(shownPositions(proj, err.Error())))
		return quietExit(exitBadInput)
	}
	o := outs[0]
	for _, w := range o.Warnings {
		fmt.Fprintf(c.ErrOrStderr(), "warning: %s\n", shownPositions(proj, w))
	}
	if v, err := f.validator(c); err != nil {
		return err
	} else if v != nil {
		defer v.Close()
		results, err := project.Validate(c.Context(), v, outs)
		if err != nil {
			return err
		}
		src, _ := proj.Reader().ReadFile(t.Path) // for the lines of the problems; unread: none
		if reportProblems(c.ErrOrStderr(), results, proj.Shown(t.Path), src) {
			return quietExit(exitProblems)
		}
	}
	if dst == "-" && f.format == "json" {
		return writeJSON(c.OutOrStdout(), o.Objects())
	}
	if dst == "-" {
		return o.RenderBody(c.OutOrStdout()) // standard output gets no header
	}
	inputs := slices.Clone(o.Files)
	inputs = append(inputs, proj.ConfigFile)
	return writeOutput(f, proj.Dir, inputs, o.CRDs, absPath(wd, dst), dst, o.Render)
}

// writeOutput writes the user's output path dst (abs) through the one
// writer: wherever it points, never over an input, replacing only a
// generated file or a CRD named as one of names unless --force.
func writeOutput(f compileFlags, root string, inputs, names []string, abs, dst string, write func(io.Writer) error) error {
	fileio.HandleSignals(os.Exit)
	out := fileio.NewWriter(fileio.WriterOptions{
		Root:         root,
		AllowOutside: f.opts.AllowOutsideRoot,
		Owned:        project.IsGeneratedLine,
		Replaces:     func(_ string, old *io.SectionReader) bool { return project.TakesOver(old, names) },
		Force:        f.force,
		Inputs:       inputs,
	})
	defer out.Close()
	if len(dst) > 0 && os.IsPathSeparator(dst[len(dst)-1]) {
		abs += string(filepath.Separator) // "DST/" names a directory: refused
	}
	// An output that already holds these bytes is left alone, as build
	// leaves an unchanged file.
	_, err := out.WriteExplicit(abs, write)
	return err
}

// validator returns the companion to validate with, or nil: resolve
// validates when the companion is installed (a one-line warning when it
// is not), the Python tool's line only with --validate (then a missing
// companion is an error).
func (f compileFlags) validator(c *cobra.Command) (*pluginValidator, error) {
	if !f.validate || f.noValidate {
		return nil, nil
	}
	path, err := findPlugin("validate")
	if err != nil {
		if c.Flags().Changed("validate") {
			return nil, err
		}
		fmt.Fprintf(c.ErrOrStderr(), "warning: not validated with the apiserver's code: %s is not installed (pass --no-validate to skip validation without this warning)\n", pluginName("validate"))
		return nil, nil
	}
	return newPluginValidator(c.Context(), path)
}

// validateDocs validates compiled documents as the apiserver would, when
// validator says so; problems are printed and exit 1.
func (f compileFlags) validateDocs(c *cobra.Command, name, kubeVersion string, docs []resolver.Document, src []byte) error {
	v, err := f.validator(c)
	if err != nil || v == nil {
		return err
	}
	defer v.Close()
	doc := project.ValidationDoc{Name: name, KubernetesVersion: kubeVersion}
	for _, d := range docs {
		raw, err := json.Marshal(d.Object())
		if err != nil {
			return err
		}
		doc.Objects = append(doc.Objects, raw)
	}
	results, err := v.Validate(context.WithoutCancel(c.Context()), []project.ValidationDoc{doc})
	if err != nil {
		return err
	}
	if reportProblems(c.ErrOrStderr(), results, name, src) {
		return quietExit(exitProblems)
	}
	return nil
}

// reportProblems prints what the apiserver would reject, and its
// warnings, each at the line of the template (name, whose text is src) that
// holds its field, or the nearest enclosing one that the template writes (a
// $ref that brought the field in); it reports whether anything would be
// rejected.
func reportProblems(w io.Writer, results []project.ValidationResult, name string, src []byte) bool {
	docs, _ := docread.DecodeDocuments(name, src, 0)
	at := func(p project.Problem) string {
		if p.Line == 0 {
			p.Line, p.Column = fieldLine(docs, p.CRD, p.Field)
		}
		if p.Line == 0 {
			return safetext.Quote(name) + ": " + p.String()
		}
		return p.In(name)
	}
	bad := false
	for _, r := range results {
		for _, p := range r.Problems {
			fmt.Fprintf(w, "error: %s (the apiserver would reject the output)\n", at(p))
			bad = true
		}
		for _, p := range r.Warnings {
			fmt.Fprintf(w, "warning: %s\n", at(p))
		}
	}
	return bad
}

// fieldLine is where the template documents docs write the apiserver's
// field path of the CRD named crd (the first CRD when none is named), or
// the nearest enclosing value they write; 0, 0 when none.
func fieldLine(docs []docread.Decoded, crd, field string) (int, int) {
	var doc *docread.Decoded
	for i, d := range docs {
		m, _ := d.Value.(map[string]any)
		if m["kind"] != "CustomResourceDefinition" {
			continue
		}
		name, _ := m["metadata"].(map[string]any)["name"].(string)
		if doc == nil || name == crd {
			doc = &docs[i]
		}
	}
	if doc == nil {
		return 0, 0
	}
	segs := project.FieldSegments(field)
	// The apiserver reports a schema all versions share under spec.validation.
	if len(segs) >= 2 && segs[0] == "spec" && segs[1] == "validation" {
		segs = append([]string{"spec", "versions", "0", "schema"}, segs[2:]...)
	}
	for n := len(segs); n >= 0; n-- {
		ptr := ""
		for _, s := range segs[:n] {
			ptr += "/" + docread.EscapePointerToken(s)
		}
		if pos := doc.Position(ptr); pos.Line > 0 {
			return pos.Line, pos.Col
		}
	}
	return 0, 0
}

// writeJSON writes one object as itself, several as a kind: List (what
// kubectl get -o json prints), indented.
func writeJSON(w io.Writer, objs []map[string]any) error {
	var v any = objs[0]
	if len(objs) != 1 {
		items := make([]any, len(objs))
		for i, o := range objs {
			items[i] = o
		}
		v = map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func absPath(wd, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(wd, name)
}
