package cmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// projectFlags are the flags build and check share. They bind to
// project.Options and nothing else.
type projectFlags struct {
	opts         project.Options
	noValidate   bool
	allowOutside bool
	// allowRemovedAPI is --allow-removed-api (the configuration's allowRemovedAPI).
	allowRemovedAPI bool
	// filesOnly: the FILE arguments are all that changed, none meaning
	// nothing did (what pre-commit's always_run hooks pass).
	filesOnly bool
	// locks are the project directories the command holds (lockProject).
	locks      []*fileio.Lock
	lockedDirs []string // their directories
}

func (f *projectFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.opts.ConfigFile, "config", "", "project configuration (default: the first "+project.ConfigFileName+" in the working directory or above)")
	fs.StringVar(&f.opts.Policy.KubernetesVersion, "k8s-version", "", "compile every template against this Kubernetes version, overriding the configuration")
	fs.BoolVar(&f.opts.AllowLarge, "allow-large", false, fmt.Sprintf("allow compiled CRDs above %d bytes of compact JSON (what a default etcd stores; for an etcd with a larger --max-request-bytes)", project.MaxSize))
	fs.BoolVar(&f.allowOutside, "allow-outside-root", false, "let templates, patches, file $refs and output directories leave the project root (the configuration's allowOutsideRoot)")
	fs.BoolVar(&f.allowRemovedAPI, "allow-removed-api", false, removedAPIUsage+", overriding the configuration's allowRemovedAPI")
	fs.Var(sizeText{&f.opts.Policy.Budget}, "budget", budgetUsage+", overriding the configuration's budget")
	fs.BoolVar(&f.opts.AllowEmpty, "allow-empty", false, "accept template globs that match nothing, and a project without templates (default: an error, so a typo cannot empty dist/)")
	fs.BoolVar(&f.noValidate, "no-validate", false, "skip the apiserver validation of the outputs (needs no k8s-crd-resolver-validate)")
	fs.BoolVar(&f.filesOnly, "files-only", false, "act only on the templates the FILE arguments reach, also when there are none (the pre-commit hooks: a commit that only deletes a template passes no file); outputs no template produces are looked for either way, in every project of the working directory and below")
}

// compiled is a project compiled and validated: what build and check
// compare with the disk.
type compiled struct {
	proj *project.Project
	outs []*project.Output
	// every holds the outputs of all the project's templates (outs only
	// those the file arguments select).
	every []*project.Output
	// reasons are orphanReason's, by path, said before build removes the
	// orphans (a moved CRD is read from the file).
	reasons map[string]string
	// examples are the example files judged (absolute paths): none
	// without validation.
	examples []string
	// orphansOnly: projectRun's.
	orphansOnly bool
}

// compileProject opens the project r, compiles every template, keeps
// those that the named files affect (all without names), and validates
// them with the companion. Compile errors exit 2, validation problems
// exit 1; both are printed to errOut. An optional project without
// templates is nil, nil.
func (f *projectFlags) compileProject(c *cobra.Command, wd string, r projectRun, files []string) (*compiled, error) {
	if c.Flags().Changed("allow-outside-root") {
		f.opts.Policy.AllowOutsideRoot = &f.allowOutside
	}
	if c.Flags().Changed("allow-removed-api") {
		f.opts.Policy.AllowRemovedAPI = &f.allowRemovedAPI
	}
	opts := f.opts
	opts.ConfigFile = r.config
	opts.AllowEmpty = opts.AllowEmpty || r.optional
	proj, err := project.Open(wd, opts)
	if err != nil {
		return nil, err
	}
	if r.optional && len(proj.Templates) == 0 {
		return nil, nil
	}
	if err := f.lockProject(c, proj); err != nil {
		return nil, err
	}
	var validator project.Validator
	var resourceValidator project.ResourceValidator
	if !f.noValidate {
		path, err := findPlugin("validate")
		if err != nil {
			return nil, fmt.Errorf("%w; or skip the apiserver validation with --no-validate", err)
		}
		// Started now, the companion starts while we compile.
		v, err := newPluginValidator(c.Context(), path)
		if err != nil {
			return nil, err
		}
		defer v.Close()
		validator, resourceValidator = v, v
	}
	outs, err := proj.Compile(nil)
	if err != nil {
		printErrors(c.ErrOrStderr(), errors.New(shownPositions(proj, err.Error())))
		return nil, quietExit(exitBadInput)
	}
	// Warnings name files as the user opens them from the working
	// directory (svc/templates/w.yaml), as errors do: two projects'
	// templates/w.yaml are two files.
	for _, o := range outs {
		for i, w := range o.Warnings {
			o.Warnings[i] = shownPositions(proj, w)
		}
	}
	res := &compiled{proj: proj, outs: outs, every: outs, orphansOnly: r.orphansOnly}
	if len(files) > 0 || f.filesOnly {
		res.outs = proj.Affected(outs, wd, files)
	}
	if validator != nil {
		results, err := project.Validate(c.Context(), validator, res.outs)
		if err != nil {
			return nil, err
		}
		bad := false
		// One result per output, in order (a template in two sets is two
		// outputs: each gets its own result's warnings).
		for i, r := range results {
			for _, p := range r.Problems {
				fmt.Fprintf(c.ErrOrStderr(), "error: %s: the apiserver would reject the output: %s\n", safetext.Quote(shownName(proj, r.Name)), p)
				bad = true
			}
			for _, w := range r.Warnings {
				res.outs[i].Warnings = append(res.outs[i].Warnings, w.String())
			}
		}
		if bad {
			return nil, quietExit(exitProblems)
		}
		// The examples, judged against every output (not only the affected).
		examples, err := proj.ValidateExamples(c.Context(), resourceValidator, outs)
		if err != nil {
			return nil, err
		}
		for _, r := range examples {
			res.examples = append(res.examples, filepath.Join(proj.Dir, filepath.FromSlash(r.Name)))
			for _, p := range r.Problems {
				fmt.Fprintf(c.ErrOrStderr(), "error: %s\n", p.In(shownName(proj, r.Name)))
				bad = true
			}
			for _, w := range r.Warnings {
				fmt.Fprintf(c.ErrOrStderr(), "warning: %s\n", w.In(shownName(proj, r.Name)))
			}
		}
		if bad {
			return nil, quietExit(exitProblems)
		}
	}
	return res, nil
}

// printErrors prints one "error: " line per line of err (a joined list of
// resolver error lists).
func printErrors(w io.Writer, err error) {
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "error: %s\n", line)
	}
}
