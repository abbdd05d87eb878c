package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// compileFlags are the flags every compiling command shares. They bind to
// resolver.Options and nothing else.
type compileFlags struct {
	opts      resolver.Options
	patchFile string
	// fit is --fit-descriptions, read by project.ParseFitLimit.
	fit      string
	force    bool
	noConfig bool
	// validate is whether the command validates by default (resolve) or
	// only when asked (--validate, the Python tool's line); noValidate is
	// resolve's --no-validate.
	validate, noValidate bool
	// format is resolve's -o: yaml ("" too) or json.
	format string
}

func (f *compileFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.opts.KubeVersion, "k8s-version", "", "Kubernetes version whose definitions bare $refs use (1.30, 1.30.2 or v1.30.14; default: the project's kubernetesVersion, else the newest embedded; see 'versions')")
	fs.BoolVarP(&f.opts.RemoveDescriptions, "remove-descriptions", "r", false, "remove the descriptions that Kubernetes definitions bring in (your own stay)")
	fs.IntVar(&f.opts.MaxDescriptionLength, "max-description-length", 0, "truncate Kubernetes descriptions longer than N bytes at a sentence or word boundary (0: no limit)")
	fs.StringVar(&f.fit, "fit-descriptions", "", "keep as many Kubernetes descriptions as fit LIMIT bytes of compact JSON per CRD, shallowest first (your own stay): client-side-apply, helm, or a size such as 200KiB")
	fs.StringVarP(&f.patchFile, "jsonpatch", "j", "", "RFC 6902 JSON patch (YAML or JSON) applied to the compiled CRD (default in a project: the template's configured or NAME.patch.yaml patch)")
	fs.StringVar(&f.opts.Recursion, "recursion", resolver.RecursionError, `what to do with a recursive $ref: "error", or "preserve" to cut it with x-kubernetes-preserve-unknown-fields`)
	fs.StringVar(&f.opts.Root, "root", "", "directory file $refs may not leave (default: the git top level of the template, else the working directory); ignores the project configuration")
	fs.BoolVar(&f.opts.AllowOutsideRoot, "allow-outside-root", false, "let file $refs (what the template names) leave the project root; paths on the command line need no flag, unless they go through a symbolic link committed in a repository that leads out of it")
	fs.Var(&f.opts.Budget, "budget", budgetUsage)
	fs.BoolVar(&f.opts.AllowRemovedAPI, "allow-removed-api", false, removedAPIUsage)
	fs.BoolVar(&f.force, "force", false, "replace an output file that is neither generated nor a CRD of the same name (never a symlink in the project, a special file or an input)")
	fs.BoolVar(&f.noConfig, "no-config", false, "ignore the project configuration (.crd-resolver.yaml): compile with the flags alone")
}

// removedAPIUsage is the help of every --allow-removed-api.
const removedAPIUsage = "compile an apiextensions.k8s.io/v1beta1 template for Kubernetes 1.22 or later (which serve only v1) with a warning, not an error"

// budgetUsage is the help of every --budget.
var budgetUsage = "the most one compile may build, in bytes of compact JSON (64Mi, 64MiB, 100MB or plain bytes; default " + resolver.DefaultBudget.String() + "): guards against $ref, YAML alias and JSON patch blow-ups"

// policy is what the flags set explicitly on the command line, as a
// project policy: they win over the configuration, in both directions.
func (f *compileFlags) policy(c *cobra.Command) project.Policy {
	var p project.Policy
	fs := c.Flags()
	if fs.Changed("k8s-version") {
		p.KubernetesVersion = f.opts.KubeVersion
	}
	if fs.Changed("remove-descriptions") {
		p.RemoveDescriptions = &f.opts.RemoveDescriptions
	}
	if fs.Changed("max-description-length") {
		p.MaxDescriptionLength = &f.opts.MaxDescriptionLength
	}
	if fs.Changed("fit-descriptions") {
		p.FitDescriptions = f.fit
	}
	if fs.Changed("recursion") {
		p.Recursion = f.opts.Recursion
	}
	if fs.Changed("allow-outside-root") {
		p.AllowOutsideRoot = &f.opts.AllowOutsideRoot
	}
	if fs.Changed("budget") {
		p.Budget = f.opts.Budget.String()
	}
	if fs.Changed("allow-removed-api") {
		p.AllowRemovedAPI = &f.opts.AllowRemovedAPI
	}
	return p
}

// compilerOptions are the resolver's options from the flags; the patch, a
// path the user gave, is read (once) through reader.
func (f *compileFlags) compilerOptions(reader *fileio.Reader) (resolver.Options, error) {
	opts := f.opts
	if f.fit != "" {
		limit, err := project.ParseFitLimit(f.fit)
		if err != nil {
			return opts, fmt.Errorf("--fit-descriptions %q: %w", f.fit, err)
		}
		opts.FitDescriptions = limit
	}
	if f.patchFile != "" {
		src, err := reader.ReadExplicit(f.patchFile)
		if err != nil {
			return opts, fmt.Errorf("reading JSON patch: %w", err)
		}
		p, err := resolver.ParsePatch(f.patchFile, src)
		if err != nil {
			return opts, err
		}
		opts.Patch = p
	}
	return opts, nil
}

// outputAlias adds -o/--output, hidden, as another spelling of the
// command's destination flag name (--output-file, --output-dir). As in
// kubectl, helm and kubeconform, a visible -o/--output always names an
// output format (TestOutputFlags); resolve and export took -o for their
// destination before, and scripts still may.
func outputAlias(c *cobra.Command, p *string, name string) {
	c.Flags().StringVarP(p, "output", "o", c.Flags().Lookup(name).DefValue, "the same as --"+name+" (kept for scripts)")
	_ = c.Flags().MarkHidden("output")
}

// sizeText is a size flag kept as the text given (what project.Policy
// holds), checked as it is parsed: typed "size" in help, as
// resolver.Size is.
type sizeText struct{ p *string }

func (v sizeText) Set(s string) error {
	if _, err := docread.ParseSize(s); err != nil {
		return err
	}
	*v.p = s
	return nil
}

func (v sizeText) String() string { return *v.p }

func (v sizeText) Type() string { return (*resolver.Size)(nil).Type() }
