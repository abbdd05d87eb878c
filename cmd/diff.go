package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/schemadiff"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

func newDiffCmd() *cobra.Command {
	var output, from, to, config, minor, base string
	var failOnBreaking, allowOutside, allowLarge, allowRemovedAPI bool
	c := &cobra.Command{
		Use:   "diff [OLD NEW]",
		Short: "Compare compiled CRD schemas property by property, and say what breaks stored objects",
		Long: `diff compares the schemas of CustomResourceDefinitions property by property (not
as text) and classifies every change as compatible or breaking for custom
resources already stored in a cluster. It compares

  - with no arguments: the project's output files as they are in the working
    tree (committed or not) with what build would write now (like check, it
    compiles in memory and writes nothing); once build has run, nothing differs;
  - with --base REF: the project's outputs as committed at REF (a branch, tag
    or commit, read from git's object store: no checkout, no network; a shallow
    clone needs REF fetched) with the working tree's: what a pull request
    changes. Every output on either side is compared: one added or removed is
    reported so, and a CRD that moved to another file is compared with its old
    self;
  - with --from and --to: the project's templates compiled for two Kubernetes
    versions, e.g. before bumping kubernetesVersion;
  - with OLD NEW: two files, YAML or JSON streams of CRDs separated by "---"
    ("-" is standard input), or two directories (their *.yaml, *.yml and
    *.json files, paired by name, moved CRDs followed as with --base). Either
    may be REF:PATH, a file or directory as committed at REF (PATH relative to
    the repository's top level, or to the working directory when it starts
    with ./), e.g. "diff main:dist dist".

For each CRD version and schema path it reports added and removed properties,
type changes, required fields added or removed, bounds, lengths, item limits,
enums, patterns and formats tightened or loosened, defaults, list types and
list-map keys, map types, preserve-unknown-fields and int-or-string; and, outside
the schemas, group, scope, names, versions served, stored and deprecated,
subresources, conversion, printer columns and selectable fields. A change no rule
reads is an unhandled-change, counted as breaking. Changed descriptions are
counted. "Breaking" means an object stored under the old schema may lose data
when read (pruning) or be rejected when updated, the apiserver refuses the CRD
update, or clients lose an endpoint, name or selector; docs/diff.md gives every
rule and its reason, validation ratcheting included.

Changes are classified with the update rules of the Kubernetes version the new
CRDs are applied in: a project's outputs (no arguments, --base) with their
set's kubernetesVersion, --from/--to with --to, OLD NEW with --k8s-version
(default: the newest embedded). Validation ratcheting is on by default from
1.30: for an older version no change is marked ratcheted but what the list-type
check skips on its own, and updates that leave an offending value unchanged
fail too. A change of what the version does not keep in a CRD
(x-kubernetes-validations before 1.25, a rule's optionalOldSelf before 1.30,
selectableFields before 1.31, ...: dropped, or the CRD refused under strict
field validation) affects no stored object there: compatible, with that reason.

--output json prints {"changes": [{"crd", "version", "path", "kind",
"breaking", "reason", "old", "new", ...}], "breaking", "compatible",
"descriptionsChanged"}.

Exit status: 0 when nothing differs, 1 when something does (descriptions
included), like diff(1); with --fail-on-breaking, 1 only when a change is
breaking. 2 on bad input.`,
		Example: `  # What bumping kubernetesVersion from 1.21 to 1.37 changes for users
  k8s-crd-resolver diff --from 1.21 --to 1.37

  # What dist/ in the working tree lacks compared with a fresh build
  k8s-crd-resolver diff

  # What a pull request changes in the outputs, against its base branch
  k8s-crd-resolver diff --base origin/main --fail-on-breaking

  # Two directories, or a directory as committed at a revision
  k8s-crd-resolver diff old-dist/ dist/
  k8s-crd-resolver diff v1.2.0:dist dist

  # A CRD installed in a cluster against a new one, for a CI gate, with the cluster's rules
  kubectl get crd daskclusters.kubernetes.dask.org -o yaml | k8s-crd-resolver diff --k8s-version 1.29 --fail-on-breaking - dist/daskcluster.yaml`,
		RunE: func(c *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return fmt.Errorf("--output %q: want text or json", output)
			}
			if (from == "") != (to == "") {
				return fmt.Errorf("--from and --to go together: give both Kubernetes versions")
			}
			if from != "" && len(args) > 0 {
				return fmt.Errorf("--from/--to compare the project's templates and take no files")
			}
			if base != "" && (len(args) > 0 || from != "") {
				return fmt.Errorf("--base compares the project's outputs as committed at REF with the working tree's, and takes no files and no --from/--to; to compare two commits' files give REF:PATH as OLD or NEW")
			}
			if len(args) != 0 && len(args) != 2 {
				return fmt.Errorf("give OLD and NEW, or no files at all (see '%s --help')", c.CommandPath())
			}
			if minor != "" && len(args) == 0 {
				return fmt.Errorf("--k8s-version names the cluster's Kubernetes version for OLD NEW; the project's outputs are classified with their set's kubernetesVersion (with --from/--to, with --to)")
			}
			if len(args) > 0 && (c.Flags().Changed("allow-removed-api") || c.Flags().Changed("allow-large")) {
				return fmt.Errorf("--allow-removed-api and --allow-large apply to compiling the project's templates; OLD and NEW are compiled CRDs, compared as they are")
			}
			var groups []schemadiff.Group
			var err error
			single := false
			switch {
			case len(args) == 2:
				groups, single, err = diffFiles(c, args, allowOutside, minor)
			default:
				opts := project.Options{ConfigFile: config, AllowLarge: allowLarge}
				if c.Flags().Changed("allow-outside-root") {
					opts.Policy.AllowOutsideRoot = &allowOutside
				}
				if c.Flags().Changed("allow-removed-api") {
					opts.Policy.AllowRemovedAPI = &allowRemovedAPI
				}
				switch {
				case from != "":
					groups, err = diffVersions(c, opts, from, to)
				case base != "":
					groups, err = diffBase(c, opts, base)
				default:
					groups, err = diffProject(c, opts)
				}
			}
			if err != nil {
				return err
			}
			total := schemadiff.Total(groups)
			if output == "json" {
				if err := schemadiff.WriteJSON(c.OutOrStdout(), total); err != nil {
					return err
				}
			} else {
				printDiffGroups(c.OutOrStdout(), groups, total, single)
			}
			if (failOnBreaking && total.Breaking > 0) || (!failOnBreaking && !total.Empty()) {
				return quietExit(exitProblems)
			}
			return nil
		},
	}
	fs := c.Flags()
	fs.StringVarP(&output, "output", "o", "text", "output format: text, or json: {changes, breaking, compatible, descriptionsChanged}")
	fs.Bool("summary-only", false, "accepted as check takes it: diff prints the schema changes and never a unified diff")
	fs.StringVar(&base, "base", "", "compare the project's outputs as committed at this git revision (a branch, tag or commit; read from git's object store, no checkout) with the working tree's")
	fs.StringVar(&from, "from", "", "compile the project's templates for this Kubernetes version as the old side (with --to)")
	fs.StringVar(&minor, "k8s-version", "", "classify OLD NEW with the update rules of this Kubernetes version, the cluster's (default: the newest embedded)")
	fs.StringVar(&to, "to", "", "compile the project's templates for this Kubernetes version as the new side (with --from)")
	fs.BoolVar(&failOnBreaking, "fail-on-breaking", false, "exit 1 only when a change is breaking for stored objects")
	fs.StringVar(&config, "config", "", "project configuration (default: the first "+project.ConfigFileName+" in the working directory or above)")
	fs.BoolVar(&allowOutside, "allow-outside-root", false, "read files (and let the project's inputs reach) outside the project root")
	fs.BoolVar(&allowLarge, "allow-large", false, fmt.Sprintf("compile CRDs above %d bytes of compact JSON (as build --allow-large does), to compare them", project.MaxSize))
	fs.BoolVar(&allowRemovedAPI, "allow-removed-api", false, removedAPIUsage+", overriding the configuration's allowRemovedAPI (as build takes it)")
	return c
}

// diffFiles compares OLD and NEW (args): two files, or two directories (their *.yaml,
// *.yml and *.json files, paired by name: a CRD that moved to another file is compared
// with its old self), each a path, "-" (standard input) or REV:PATH (as committed, read
// from git's object store). single reports the two-file form (one report, no file names).
func diffFiles(c *cobra.Command, args []string, allowOutside bool, minor string) (groups []schemadiff.Group, single bool, err error) {
	if args[0] == "-" && args[1] == "-" {
		return nil, false, fmt.Errorf(`"-" (standard input) can stand for OLD or for NEW, not both: give the other side as a file`)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, false, err
	}
	reader := fileio.NewReader(fileio.ProjectRoot(wd, wd), allowOutside, docread.MaxInputBytes)
	defer reader.Close()
	var sides [2][]schemadiff.Content
	var dirs [2]bool
	for i, name := range args {
		if sides[i], dirs[i], err = diffSide(c, reader, name); err != nil {
			return nil, false, err
		}
		for _, f := range sides[i] {
			if err := notATemplate(f.Shown, f.Data); err != nil {
				return nil, false, err
			}
		}
	}
	rules, err := schemadiff.RulesFor(minor)
	if err != nil {
		return nil, false, err
	}
	switch {
	case dirs[0] != dirs[1]:
		return nil, false, fmt.Errorf("%s is a directory and %s a file: give two files or two directories", args[slices.Index(dirs[:], true)], args[slices.Index(dirs[:], false)])
	case dirs[0] && len(sides[0])+len(sides[1]) == 0:
		return nil, false, fmt.Errorf("%s and %s hold no .yaml, .yml or .json file: nothing to compare", args[0], args[1])
	case dirs[0]:
		shown := map[string]string{}
		for _, side := range sides {
			for _, f := range side {
				shown[f.Key] = f.Shown // the new side's name when both have one
			}
		}
		reps, err := schemadiff.CompareContents(sides[0], sides[1], func(string) string { return minor })
		if err != nil {
			return nil, false, err
		}
		groups, err := schemadiff.GroupFiles(reps, shown)
		return groups, false, err
	}
	old, err := schemadiff.Parse(sides[0][0].Shown, sides[0][0].Data, 0)
	if err != nil {
		return nil, false, err
	}
	new, err := schemadiff.Parse(sides[1][0].Shown, sides[1][0].Data, 0)
	if err != nil {
		return nil, false, err
	}
	return []schemadiff.Group{{Report: schemadiff.CompareFor(old, new, rules)}}, true, nil
}

// diffSide reads one side of diff OLD NEW: standard input ("-"), REV:PATH (a path that
// does not exist and holds a colon), a directory's listed files, or a file.
func diffSide(c *cobra.Command, reader *fileio.Reader, name string) ([]schemadiff.Content, bool, error) {
	if name == "-" {
		data, err := reader.ReadFrom("<stdin>", c.InOrStdin())
		return []schemadiff.Content{{Key: "<stdin>", Shown: "<stdin>", Data: data}}, false, err
	}
	fi, statErr := os.Stat(name)
	if rev, _, ok := strings.Cut(name, ":"); ok && rev != "" && errors.Is(statErr, fs.ErrNotExist) {
		return gitSide(c.Context(), reader, name)
	}
	if statErr == nil && fi.IsDir() {
		names, contents, err := reader.ReadListed(name)
		if err != nil {
			return nil, false, err
		}
		files := make([]schemadiff.Content, len(names))
		for i, n := range names {
			files[i] = schemadiff.Content{Key: filepath.Base(n), Shown: n, Data: contents[i]}
		}
		return files, true, nil
	}
	data, err := reader.ReadExplicit(name)
	return []schemadiff.Content{{Key: name, Shown: name, Data: data}}, false, err
}

// openAndCompile opens the project of the working directory and compiles every template
// (no validation: the comparison needs none). Compile errors are printed and exit 2.
func openAndCompile(c *cobra.Command, opts project.Options) (*project.Project, []*project.Output, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	proj, err := project.Open(wd, opts)
	if err != nil {
		return nil, nil, err
	}
	outs, err := proj.Compile(nil)
	if err != nil {
		printErrors(c.ErrOrStderr(), err)
		return nil, nil, quietExit(exitBadInput)
	}
	return proj, outs, nil
}

func diffVersions(c *cobra.Command, opts project.Options, from, to string) ([]schemadiff.Group, error) {
	for _, v := range []string{from, to} {
		if _, err := schemas.Canonical(v); err != nil {
			return nil, err
		}
	}
	var sides [2][]*project.Output
	var proj *project.Project
	for i, v := range []string{from, to} {
		o := opts
		o.Policy.KubernetesVersion = v
		var err error
		if proj, sides[i], err = openAndCompile(c, o); err != nil {
			return nil, err
		}
	}
	var pairs []schemadiff.Pair
	for i, o := range sides[0] {
		n := sides[1][i]
		// Pins win over the version asked for: say so, rather than let an
		// empty report pass for "nothing changed between the versions".
		if pinned := pinnedOnly(o.KubeVersions, from) || pinnedOnly(n.KubeVersions, to); pinned {
			fmt.Fprintf(c.ErrOrStderr(), "note: %s: its $refs pin Kubernetes %s, whatever --from/--to say, so the sides are the same there; 'k8s-crd-resolver migrate' rewrites the pins as bare names\n",
				o.Template.Name, strings.Join(slices.DeleteFunc(slices.Clone(n.KubeVersions), func(v string) bool { return v == to }), ", "))
		}
		// Both sides are compared as objects: their text is only hashed, as it renders.
		var sums [2]schemadiff.Sum
		for i, out := range []*project.Output{o, n} {
			sum := schemadiff.NewSummer()
			if err := out.Render(sum); err != nil {
				return nil, err
			}
			sums[i] = sum.Sum()
		}
		for _, path := range o.Template.Outputs {
			pairs = append(pairs, schemadiff.Pair{Name: proj.Rel(path), OldObjects: o.Objects(), NewObjects: n.Objects(), Sums: sums, Minor: n.KubeVersion})
		}
	}
	return schemadiff.ComparePairs(pairs)
}

// pinnedOnly reports whether content that came from versions holds some
// that did not come from want (pinned elsewhere).
func pinnedOnly(versions []string, want string) bool {
	canonical, err := schemas.Canonical(want)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(versions, func(v string) bool { return v != canonical })
}

func diffProject(c *cobra.Command, opts project.Options) ([]schemadiff.Group, error) {
	proj, outs, err := openAndCompile(c, opts)
	if err != nil {
		return nil, err
	}
	var cmp planComparer
	plan, err := proj.Plan(outs, project.PlanOptions{Orphans: true, Compare: cmp.compare})
	if err != nil {
		return nil, err
	}
	return cmp.groups(proj, plan, outs)
}

// planComparer compares the files of a plan that are not up to date: the file on disk
// (old) with what build writes (new), each as the plan compares it (compare is a
// project.PlanOptions.Compare), so that neither side's bytes outlive their comparison.
// Safe for concurrent use.
type planComparer struct {
	cache  schemadiff.Cache
	mu     sync.Mutex
	byPath map[string]comparedFile
}

type comparedFile struct {
	rep *schemadiff.Report
	err error
}

func (pc *planComparer) compare(fs *project.FileStatus, o *project.Output, current, want []byte) {
	p := schemadiff.PairOf(fs.Name, current, want)
	p.NewObjects = o.ObjectsUnkept()
	p.Minor = o.KubeVersion
	rep, err := pc.cache.Report(p)
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.byPath == nil {
		pc.byPath = map[string]comparedFile{}
	}
	pc.byPath[fs.Path] = comparedFile{rep, err}
}

// groups are the comparisons of the plan's files that are not up to date, in plan order
// (the first error in that order fails them): those compare saw, and the orphans, read
// now. every is every output of the project: a CRD an orphan held that one of them
// defines is not removed from a cluster but moved (see project.MovedReports).
func (pc *planComparer) groups(proj *project.Project, plan *project.Plan, every []*project.Output) ([]schemadiff.Group, error) {
	moved, err := proj.MovedReports(plan, every)
	if err != nil {
		return nil, err
	}
	var names []string
	var reps []*schemadiff.Report
	for _, fs := range plan.Files {
		var rep *schemadiff.Report
		switch fs.State {
		case project.Unchanged:
			continue
		case project.Stale, project.Missing:
			if rep = moved[fs.Path]; rep != nil {
				break
			}
			cf, ok := pc.byPath[fs.Path]
			if !ok {
				return nil, fmt.Errorf("%s: not compared", fs.Name)
			}
			if cf.err != nil {
				return nil, cf.err
			}
			rep = cf.rep
		case project.Orphan:
			rep = moved[fs.Path]
		}
		names = append(names, fs.Name)
		reps = append(reps, rep)
	}
	return schemadiff.GroupReports(names, reps)
}

// printDiffGroups prints each group under the files it covers (unless single, the two-file
// form), then the total.
func printDiffGroups(w io.Writer, groups []schemadiff.Group, total *schemadiff.Report, single bool) {
	if total.Empty() {
		return
	}
	said := map[string]bool{} // each reason is explained once
	for _, g := range groups {
		if g.Report.Empty() {
			continue
		}
		indent, rep := "", g.Report
		if !single {
			names := slices.Clone(g.Files)
			if slices.ContainsFunc(g.Descs, func(n int) bool { return n != g.Descs[0] }) {
				// The same changes, not the same descriptions: say how many per file.
				for i, n := range g.Descs {
					names[i] += fmt.Sprintf(" (%d description(s) changed)", n)
				}
				rep = rep.WithoutDescriptions()
			}
			for i, n := range names {
				names[i] = safetext.Quote(n)
			}
			fmt.Fprintf(w, "%s:\n", strings.Join(names, ", "))
			indent = "  "
		}
		rep.WriteTextOnce(w, indent, said)
	}
	fmt.Fprintf(w, "total: %s\n", total.Summary())
}
