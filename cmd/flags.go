package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// compileFlags are the flags every compiling command shares. They bind to
// resolver.Options and nothing else.
type compileFlags struct {
	opts      resolver.Options
	patchFile string
	force     bool
}

func (f *compileFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.opts.KubeVersion, "k8s-version", "", "Kubernetes version whose definitions bare $refs use (1.30, 1.30.2 or v1.30.14; default: the newest embedded; see 'versions')")
	fs.BoolVarP(&f.opts.RemoveDescriptions, "remove-descriptions", "r", false, "remove the descriptions that Kubernetes definitions bring in (your own stay)")
	fs.IntVar(&f.opts.MaxDescriptionLength, "max-description-length", 0, "truncate Kubernetes descriptions longer than N bytes at a sentence or word boundary (0: no limit)")
	fs.StringVarP(&f.patchFile, "jsonpatch", "j", "", "RFC 6902 JSON patch (YAML or JSON) applied to the compiled CRD")
	fs.StringVar(&f.opts.Recursion, "recursion", resolver.RecursionError, `what to do with a recursive $ref: "error", or "preserve" to cut it with x-kubernetes-preserve-unknown-fields`)
	fs.StringVar(&f.opts.Root, "root", "", "directory file $refs may not leave (default: the git top level of the template, else the working directory)")
	fs.BoolVar(&f.opts.AllowOutsideRoot, "allow-outside-root", false, "let the template, its patch, file $refs and the output leave the project root")
	fs.Var(&f.opts.Budget, "budget", "the most one compile may build, in bytes of compact JSON (64Mi, 64MiB, 100MB or plain bytes; default 16MiB): guards against $ref, YAML alias and JSON patch blow-ups")
	fs.BoolVar(&f.force, "force", false, "replace an output file that exists without the generated header (never a symlink, special file or input)")
}

// compiler builds the resolver from the flags; the patch is read through
// reader.
func (f *compileFlags) compiler(reader *fileio.Reader) (*resolver.Compiler, error) {
	opts := f.opts
	if f.patchFile != "" {
		src, err := reader.ReadFile(f.patchFile)
		if err != nil {
			return nil, fmt.Errorf("reading JSON patch: %w", err)
		}
		p, err := resolver.ParsePatch(f.patchFile, src)
		if err != nil {
			return nil, err
		}
		opts.Patch = p
	}
	return resolver.New(opts)
}
