package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

func newMigrateCmd() *cobra.Command {
	var opts project.MigrateOptions
	var write bool
	c := &cobra.Command{
		Use:   "migrate [--write]",
		Short: "Rewrite the Python tool's pinned $refs as bare names and record the version in .crd-resolver.yaml",
		Long: `migrate moves a project off the Python tool's pinned refs
(python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/X and
https://raw.githubusercontent.com/kubernetes/kubernetes/v1.21.1/api/openapi-spec/swagger.json#/definitions/X):
a pin wins over kubernetesVersion, so with pins a bump changes nothing.

It rewrites every pin in the project's YAML and JSON files as the bare name X, and
writes .crd-resolver.yaml with the pinned minor as kubernetesVersion and, as each
set's outputs, the directories where the compiled CRDs were found (an existing
configuration only gets kubernetesVersion, when it has none). build at that
version then gives the same CRDs; bump kubernetesVersion afterwards and review
'k8s-crd-resolver check' or 'diff'.

Without --write it only prints the changes as a unified diff (exit 0).`,
		Example: `  k8s-crd-resolver migrate                # review what would change
  k8s-crd-resolver migrate -r --write     # apply (the hook ran the Python tool with -r)
  k8s-crd-resolver build                  # the same CRDs, now from bare refs`,
		Args: usageArgs(0, "migrate takes no arguments: it works on the project of the working directory"),
		RunE: func(c *cobra.Command, _ []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			m, err := project.Migrate(wd, opts)
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			// The project as the migration leaves it compiles, or nothing
			// is written (and the dry run says --write would refuse).
			if len(m.Edits) > 0 {
				if err := m.Verify(); err != nil {
					if !write {
						_ = m.Diff(out)
					}
					printErrors(c.ErrOrStderr(), err) // compile errors, one line each, as build prints them
					return quietExit(exitBadInput)
				}
			}
			if !write {
				if err := m.Diff(out); err != nil {
					return err
				}
			}
			for _, n := range m.Notes {
				fmt.Fprintf(c.ErrOrStderr(), "note: %s\n", n)
			}
			if len(m.Edits) == 0 {
				fmt.Fprintln(c.ErrOrStderr(), "nothing to do")
				return nil
			}
			verb := "would rewrite"
			// The summary is a line of its own with no prefix, as every
			// command's is; error:, warning: and note: mark diagnostics.
			if write {
				l, err := fileio.LockDir(m.Dir, fileio.Rel(wd, m.Dir), false, c.ErrOrStderr())
				if err != nil {
					return err
				}
				defer l.Unlock()
				fileio.HandleSignals(os.Exit)
				if err := m.Apply(); err != nil {
					return err
				}
				verb = "rewrote"
			}
			// The templates and the configuration counted apart.
			files, config := 0, ""
			for _, e := range m.Edits {
				switch {
				case !e.Config:
					files++
				case e.Old == nil:
					config = "; " + map[bool]string{true: "wrote", false: "would write"}[write] + " " + e.Name
				default:
					config = "; " + map[bool]string{true: "edited", false: "would edit"}[write] + " " + e.Name
				}
			}
			fmt.Fprintf(c.ErrOrStderr(), "%s %d pinned $ref(s) in %d file(s)%s; kubernetesVersion %s", verb, m.Pins, files, config, m.Minor)
			if !write {
				fmt.Fprint(c.ErrOrStderr(), "; run with --write to apply")
			}
			fmt.Fprintln(c.ErrOrStderr())
			return nil
		},
	}
	c.Flags().BoolVar(&write, "write", false, "apply the changes (default: print them as a diff)")
	c.Flags().StringVar(&opts.KubernetesVersion, "k8s-version", "", "the kubernetesVersion to record (default: the pinned minor; needed when pins name several)")
	c.Flags().BoolVarP(&opts.RemoveDescriptions, "remove-descriptions", "r", false, "record removeDescriptions: true in the sets written (what -r did for the Python tool)")
	return c
}
