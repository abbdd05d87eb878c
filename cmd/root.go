// Package cmd is the command-line glue of k8s-crd-resolver: it parses flags
// into resolver options, calls the resolver and prints. It holds no logic of
// its own.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crash"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/version"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// Exit codes.
const (
	exitOK       = 0
	exitProblems = 1              // check or validation found problems
	exitBadInput = 2              // bad input or usage
	exitInternal = crash.ExitCode // a bug (a panic caught by crash.Guard)
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// NewRootCmd returns the root command writing to out and errOut. With two
// positional arguments and no subcommand it behaves like the Python tool:
// k8s-crd-resolver [-r] [-j PATCH] SRC DST.
func NewRootCmd(out, errOut io.Writer) *cobra.Command { return newRootCmd(out, errOut, true) }

// newRootCmd is NewRootCmd, with its subcommands only when commands.
func newRootCmd(out, errOut io.Writer, commands bool) *cobra.Command {
	var f compileFlags
	root := &cobra.Command{
		Use:   "k8s-crd-resolver [-r] [-j PATCH] SRC DST",
		Short: "Compile CRD templates with $ref pointers into self-contained structural CRDs",
		Long: `k8s-crd-resolver compiles hand-written CustomResourceDefinition templates
whose schemas contain $ref pointers (io.k8s.api.core.v1.PodSpec, #/definitions/X,
other.yaml#/definitions/X) into self-contained structural CRDs the apiserver
accepts, against the embedded OpenAPI definitions of the Kubernetes version you
target. It never uses the network.

With two arguments and no command it works like the Python k8s-crd-resolver:
SRC and DST are files, "-" is standard input or output.

As in kubectl, helm and kubeconform, -o/--output always names an output format
(check, diff, validate: text or json; resolve: yaml or json), so that one
spelling means one thing in every command; a command that writes files takes
--output-file (resolve) or --output-dir (export), and the -o FILE and -o DIR
they took before still work (resolve: any -o value but yaml and json).
Summaries are plain lines; error:, warning: and note: mark diagnostics.`,
		Example: `  # The Python tool's command line, unchanged
  k8s-crd-resolver -r -j daskcluster.patch.yaml daskcluster.yaml dist/daskcluster.yaml

  # Compile one template for Kubernetes 1.30 to standard output
  k8s-crd-resolver resolve template.yaml --k8s-version 1.30 > crd.yaml

  # What Kubernetes versions are embedded
  k8s-crd-resolver versions`,
		Args: func(c *cobra.Command, args []string) error {
			if err := notACommand(c, args); err != nil {
				return err
			}
			if len(args) == 1 {
				return fmt.Errorf("one argument: to compile the template %[1]s to standard output, run '%[2]s resolve %[1]s'; the Python tool's form takes SRC and DST ('%[2]s %[1]s -')", args[0], c.CommandPath())
			}
			return usageArgs(2, "give a command (see --help), or SRC and DST as the Python tool took them")(c, args)
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, args []string) error {
			if err := notACommand(c, args); err != nil {
				return err
			}
			return runCompile(c, f, args[0], args[1])
		},
	}
	f.register(root)
	root.Flags().BoolVar(&f.validate, "validate", false, "validate the output with the apiserver's code (the k8s-crd-resolver-validate companion) before writing it; off by default, as the Python tool never validated")
	// --version prints version.String, made only then: reading the build
	// information is a fiftieth of a one-file run. (cobra offers the flag
	// when Version is set; the template says what it prints.)
	root.Version = "-"
	root.SetVersionTemplate(`{{k8sCRDResolverVersion}}`)
	root.SetOut(out)
	root.SetErr(errOut)
	// Every command inherits it: an unknown flag gets a "did you mean".
	root.SetFlagErrorFunc(flagSuggestion)
	if !commands {
		crash.Guard(root, "k8s-crd-resolver")
		return root
	}
	root.AddCommand(
		newResolveCmd(),
		newVersionsCmd(),
		newBuildCmd(),
		newCheckCmd(),
		newDiffCmd(),
		newValidateCmd(),
		newExportCmd(),
		newMigrateCmd(),
		newInitCmd(),
		newReconcileCmd(),
		newVersionCmd(),
	)
	crash.Guard(root, "k8s-crd-resolver")
	return root
}

func init() {
	cobra.AddTemplateFunc("k8sCRDResolverVersion", func() string { return version.String("k8s-crd-resolver") })
}

// Execute runs the root command on os.Args and returns the process exit code.
// The Python tool's command line (k8s-crd-resolver -r SRC DST), which
// pre-commit scripts run once per CRD, gets the root command alone: the
// tree of subcommands and their flags costs a one-file run a twentieth of
// its time, and with no subcommand named there is nothing cobra would
// find in it.
func Execute() int {
	root := newRootCmd(os.Stdout, os.Stderr, namesCommand(os.Args[1:]))
	return report(root.ErrOrStderr(), root.Execute())
}

// commandNames are the names of the root's subcommands, with cobra's own
// (help, completion and its hidden __complete); TestCommandNames holds the
// list to the tree.
var commandNames = []string{"build", "check", "diff", "export", "init", "migrate", "reconcile", "resolve", "validate", "version", "versions",
	"help", "completion", "__complete", "__completeNoDesc"}

// namesCommand reports whether args might need the subcommands: an
// argument spelling a subcommand's name (wherever it stands: which
// argument cobra takes for the command depends on the flags before it), or
// one asking for help (--help, or a group of short flags with an h), whose
// text lists the subcommands. It errs on the side of the full tree.
func namesCommand(args []string) bool {
	for _, a := range args {
		if slices.Contains(commandNames, a) || a == "--help" || strings.HasPrefix(a, "--help=") ||
			(len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'h')) {
			return true
		}
	}
	return false
}

// report prints err (one line per problem) and maps it to an exit code.
func report(w io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var q quietExit
	if errors.As(err, &q) { // already reported
		return int(q)
	}
	var ce *crash.Error
	if errors.As(err, &ce) {
		fmt.Fprintf(w, "error: %v\n", err)
		return exitInternal
	}
	code := exitBadInput
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	printError(w, err)
	return code
}

// printError prints err as "error: " lines, one per problem of a
// resolver.ErrorList.
func printError(w io.Writer, err error) {
	var list resolver.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintf(w, "error: %s\n", safetext.Quote(e.Error()))
		}
		return
	}
	// A message may quote repository content (a key, a file name): quoted where it could
	// forge a line.
	fmt.Fprintf(w, "error: %s\n", safetext.Quote(err.Error()))
}

// notACommand reports a first argument that is no file but spells a
// command nearly (resolv, biuld): the Python tool's SRC DST line would
// take it for a template. An existing file, "-" or anything that looks
// like a path is left to the SRC DST line.
func notACommand(c *cobra.Command, args []string) error {
	if len(args) == 0 || args[0] == "-" || strings.ContainsAny(args[0], `/\.`) {
		return nil
	}
	if _, err := os.Lstat(args[0]); err == nil {
		return nil
	}
	// The full tree, for cobra's suggestions (the legacy line was given
	// the root alone).
	full := newRootCmd(io.Discard, io.Discard, true)
	full.SuggestionsMinimumDistance = 2 // what cobra uses for its own "unknown command"
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if s := full.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	} else if len(args) != 2 {
		return nil // the usage message says what the line takes
	}
	return fmt.Errorf("%s (run '%s --help' for the commands; a template named %s would need a path, e.g. ./%s)", msg, c.CommandPath(), args[0], args[0])
}

// flagSuggestion adds to cobra's "unknown flag: --k8s-versoin" the
// command's nearest flag ("; did you mean --k8s-version?").
func flagSuggestion(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	name, _, _ = strings.Cut(name, "=")
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if s := suggest.DidYouMean(name, names); s != "" {
		return fmt.Errorf("%w%s", err, strings.Replace(s, "did you mean ", "did you mean --", 1))
	}
	return err
}

// usageArgs checks the number of positional arguments with a message that
// says what is expected, not only how many.
func usageArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			got := ""
			if len(args) > 0 {
				quoted := make([]string, len(args))
				for i, a := range args {
					quoted[i] = safetext.Quote(a)
				}
				got = ": " + strings.Join(quoted, " ")
			}
			return fmt.Errorf("%s (got %d argument(s)%s); see '%s --help'", what, len(args), got, c.CommandPath())
		}
		return nil
	}
}
