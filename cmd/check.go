package cmd

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/schemadiff"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// checkReport is check's JSON output.
type checkReport struct {
	UpToDate   bool          `json:"upToDate"`
	Stale      []checkFile   `json:"stale"`
	Missing    []checkFile   `json:"missing"`
	Unexpected []checkFile   `json:"unexpected"`
	Warnings   []checkRemark `json:"warnings"`
	// Changes compares the stale, missing and unexpected files with what build writes,
	// schema by schema (what `k8s-crd-resolver diff` prints); nil when up to date.
	Changes *schemadiff.Report `json:"changes,omitempty"`
	// ChangesError says why the comparison failed (an output on disk that is no CRD).
	ChangesError string `json:"changesError,omitempty"`
	// Base compares the outputs as committed at --base with the working tree's (nil
	// without --base).
	Base *checkBase `json:"base,omitempty"`

	groups []schemadiff.Group
}

// checkBase is what check --base found: the changes of the outputs since a revision.
type checkBase struct {
	// Ref is the revision as given.
	Ref string `json:"ref"`
	// Files counts the output files compared (on either side).
	Files int `json:"files"`
	// Changes compares the outputs at Ref with the working tree's, schema by schema.
	Changes *schemadiff.Report `json:"changes"`

	groups []schemadiff.Group
}

type checkFile struct {
	File     string `json:"file"`
	Template string `json:"template,omitempty"`
	Diff     string `json:"diff,omitempty"`
	// Reason says why an unexpected file is one.
	Reason string `json:"reason,omitempty"`
}

type checkRemark struct {
	Template string `json:"template"`
	Message  string `json:"message"`
}

func newCheckCmd() *cobra.Command {
	var f projectFlags
	var output, base string
	var summaryOnly, failOnBreaking bool
	c := &cobra.Command{
		Use:   "check [FILE]...",
		Short: "Fail, with a diff, when the compiled CRDs are out of date",
		Long: `check compiles the project's templates in memory, exactly as build would, and
compares the results with the files in the output directories. It writes nothing.

When everything is up to date it prints nothing and exits 0. Otherwise it prints
what changed schema by schema (as "k8s-crd-resolver diff" does: each change
compatible or breaking for objects already stored), then a unified diff for each
stale file (from the file on disk to what build would write; --summary-only
leaves it out), lists missing outputs and unexpected ones (generated files no
template produces any more), and exits 1. "k8s-crd-resolver build" fixes all
three.

With --fail-on-breaking (or failOn: breaking in the configuration) check exits 1
only when a change is breaking: stale outputs with only compatible changes are
reported and pass. Changes are classified with the update rules of each set's
Kubernetes version (validation ratcheting only from 1.30: see "diff --help").

With --base REF check also compares the outputs as committed at REF (a branch,
tag or commit, read from git's object store: no checkout, no network; a shallow
clone needs REF fetched) with the working tree's, as "diff --base REF" does,
and exits 1 when a change since REF is breaking: the gate of a pull request,
whose outputs the pre-commit hook has already rebuilt. Without --base, outputs
that are up to date leave --fail-on-breaking nothing to judge: check says so.

With FILE arguments only the templates that read one of them are checked, in the
projects the files belong to; unexpected files are looked for whatever the files
(see build). Compile errors exit 2; an output the apiserver would reject exits 1.`,
		Example: `  # The CI gate
  k8s-crd-resolver check

  # For a bot or an editor
  k8s-crd-resolver check --output json

  # Without the validate companion
  k8s-crd-resolver check --no-validate

  # Fail CI only on what breaks stored custom resources, without the text diff
  k8s-crd-resolver check --fail-on-breaking --summary-only

  # The pull-request gate: up to date, and nothing breaking since the base branch
  k8s-crd-resolver check --fail-on-breaking --base origin/main`,
		RunE: func(c *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return fmt.Errorf("--output %q: want text or json", output)
			}
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			defer f.unlock()
			comps, err := f.compileProjects(c, wd, args)
			if err != nil {
				return err
			}
			rep := &checkReport{UpToDate: true, Stale: []checkFile{}, Missing: []checkFile{}, Unexpected: []checkFile{}, Warnings: []checkRemark{}}
			for _, comp := range comps {
				if err := checkProject(comp, rep, summaryOnly); err != nil {
					return err
				}
			}
			if !rep.UpToDate && rep.ChangesError == "" {
				rep.Changes = schemadiff.Total(rep.groups)
			}
			if base != "" {
				if rep.Base, err = checkSinceBase(c, comps, base); err != nil {
					return err
				}
			}
			// The flag, when given, wins over the configuration either way.
			breakingOnly := len(comps) > 0 && comps[0].proj.Config.FailOn == project.FailOnBreaking
			if c.Flags().Changed("fail-on-breaking") {
				breakingOnly = failOnBreaking
			}
			if output == "json" {
				if err := schemadiff.WriteJSON(c.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				printCheckReport(c.OutOrStdout(), rep, summaryOnly, breakingOnly)
			}
			if rep.UpToDate && breakingOnly && base == "" {
				fmt.Fprintln(c.ErrOrStderr(), "note: check --fail-on-breaking compared nothing: the outputs are up to date with the templates, so no schema change was there to judge; to judge what a pull request changes, compare its outputs with its base: --base REF (e.g. --base origin/main)")
			}
			switch {
			case rep.Base != nil && rep.Base.Changes.Breaking > 0:
				return quietExit(exitProblems)
			case rep.UpToDate:
				return nil
			case !breakingOnly, rep.Changes == nil, rep.Changes.Breaking > 0:
				return quietExit(exitProblems)
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().StringVarP(&output, "output", "o", "text", "output format: text, or json: {upToDate, stale, missing, unexpected, warnings, changes}")
	c.Flags().BoolVar(&summaryOnly, "summary-only", false, "print the schema changes and the file lists, without the unified diff (in text and JSON alike)")
	c.Flags().StringVar(&base, "base", "", "also compare the outputs as committed at this git revision (e.g. origin/main) with the working tree's, and fail on a breaking change since then")
	c.Flags().BoolVar(&failOnBreaking, "fail-on-breaking", false, "exit 1 only when a change is breaking for stored objects (the configuration's failOn: breaking)")
	return c
}

// checkProject compares one compiled project with its files and adds what it finds to
// rep. Orphans are always looked for (see buildProject). With summaryOnly no unified
// diff is made (the text report and the JSON alike carry none).
func checkProject(comp *compiled, rep *checkReport, summaryOnly bool) error {
	// What the report needs of each file not up to date, made as the plan
	// compares it: its diff and its schema comparison, not its bytes.
	var cmp planComparer
	var mu sync.Mutex
	diffs := map[string]string{}
	plan, err := comp.proj.Plan(comp.outs, project.PlanOptions{Orphans: true, Compare: func(fs *project.FileStatus, o *project.Output, current, want []byte) {
		cmp.compare(fs, o, current, want)
		if fs.State == project.Stale && !summaryOnly {
			d := project.Diff(fs, current, want)
			mu.Lock()
			diffs[fs.Path] = d
			mu.Unlock()
		}
	}})
	if err != nil {
		return err
	}
	before := len(rep.Stale) + len(rep.Missing) + len(rep.Unexpected)
	addToCheckReport(rep, comp, plan, diffs)
	if len(rep.Stale)+len(rep.Missing)+len(rep.Unexpected) > before && rep.ChangesError == "" {
		groups, err := cmp.groups(comp.proj, plan, comp.every)
		if err != nil {
			rep.ChangesError = err.Error()
			rep.groups = nil
		} else {
			rep.groups = append(rep.groups, groups...)
		}
	}
	return nil
}

// addToCheckReport lists the files of plan in rep; diffs holds the diff of each stale
// file, by path.
func addToCheckReport(rep *checkReport, comp *compiled, plan *project.Plan, diffs map[string]string) {
	for _, fs := range plan.Files {
		switch fs.State {
		case project.Stale:
			rep.Stale = append(rep.Stale, checkFile{File: fs.Name, Template: fs.Template, Diff: diffs[fs.Path]})
		case project.Missing:
			rep.Missing = append(rep.Missing, checkFile{File: fs.Name, Template: fs.Template})
		case project.Orphan:
			reason := orphanReason(comp, fs)
			if fs.Unsealed {
				reason += "; it is not sealed (edited since, or written before seals): build keeps it until you remove it or pass --force"
			}
			rep.Unexpected = append(rep.Unexpected, checkFile{File: fs.Name, Reason: reason})
		}
	}
	for _, o := range comp.outs {
		for _, w := range o.Warnings {
			rep.Warnings = append(rep.Warnings, checkRemark{Template: comp.proj.Shown(o.Template.Path), Message: w})
		}
	}
	rep.UpToDate = len(rep.Stale)+len(rep.Missing)+len(rep.Unexpected) == 0
}

func printCheckReport(w io.Writer, rep *checkReport, summaryOnly, breakingOnly bool) {
	if b := rep.Base; b != nil {
		if b.Changes.Empty() {
			fmt.Fprintf(w, "no schema change since %s (%d output file(s) compared)\n", safetext.Quote(b.Ref), b.Files)
		} else {
			fmt.Fprintf(w, "schema changes since %s (k8s-crd-resolver diff --base %s):\n", safetext.Quote(b.Ref), safetext.Quote(b.Ref))
			printDiffGroups(w, b.groups, b.Changes, false)
		}
	}
	if rep.UpToDate {
		return
	}
	// File and template names come from the repository, and so does every line of a
	// diff: quoted where they could forge a line (safetext).
	q := safetext.Quote
	switch {
	case rep.ChangesError != "":
		fmt.Fprintf(w, "schema changes: cannot compare: %s\n", q(rep.ChangesError))
	case !rep.Changes.Empty():
		fmt.Fprintln(w, "schema changes (k8s-crd-resolver diff):")
		printDiffGroups(w, rep.groups, rep.Changes, false)
	}
	for _, s := range rep.Stale {
		if summaryOnly {
			fmt.Fprintf(w, "stale: %s (from %s)\n", q(s.File), q(s.Template))
			continue
		}
		fmt.Fprintf(w, "stale: %s (from %s):\n%s", q(s.File), q(s.Template), safetext.Lines(s.Diff))
	}
	for _, m := range rep.Missing {
		fmt.Fprintf(w, "missing: %s (from %s)\n", q(m.File), q(m.Template))
	}
	for _, u := range rep.Unexpected {
		fmt.Fprintf(w, "unexpected: %s (%s)\n", q(u.File), u.Reason) // orphanReason quotes its names
	}
	fmt.Fprintf(w, "%d stale, %d missing, %d unexpected: run `k8s-crd-resolver build` and commit the result\n", len(rep.Stale), len(rep.Missing), len(rep.Unexpected))
	if breakingOnly && rep.Changes != nil && rep.Changes.Breaking == 0 && (rep.Base == nil || rep.Base.Changes.Breaking == 0) {
		fmt.Fprintln(w, "no breaking change: check passes (failing on breaking changes only)")
	}
}

// checkSinceBase compares the outputs of every project of comps as committed at rev with
// the working tree's, each classified with its set's Kubernetes version.
func checkSinceBase(c *cobra.Command, comps []*compiled, rev string) (*checkBase, error) {
	b := &checkBase{Ref: rev}
	for _, comp := range comps {
		minors := map[string]string{}
		for _, o := range comp.every {
			for _, p := range o.Template.Outputs {
				minors[p] = o.KubeVersion
			}
		}
		cmp, err := compareWithBase(c.Context(), comp.proj, rev, minors, comp.proj.Config.Policy.KubernetesVersion)
		if err != nil {
			return nil, err
		}
		b.Files += cmp.files
		b.groups = append(b.groups, cmp.groups...)
	}
	b.Changes = schemadiff.Total(b.groups)
	return b, nil
}
