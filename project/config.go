package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// ConfigFileName is the project configuration file Open looks for.
const ConfigFileName = ".crd-resolver.yaml"

// Default template glob and output directory of a project without a
// configuration file (or a configuration without sets).
const (
	DefaultTemplates = "templates/*.yaml"
	DefaultOutput    = "dist"
)

// ErrConfig marks a configuration file that cannot be used.
var ErrConfig = errors.New("bad configuration")

// Policy is how templates compile. Unset fields inherit: a set's Policy
// falls back to the file's, which falls back to the resolver's defaults.
type Policy struct {
	// KubernetesVersion is the Kubernetes release bare $refs resolve
	// against ("1.30"). Default: the newest embedded.
	KubernetesVersion string `yaml:"kubernetesVersion,omitempty" json:"kubernetesVersion,omitempty"`
	// RemoveDescriptions drops the descriptions Kubernetes definitions
	// bring in.
	RemoveDescriptions *bool `yaml:"removeDescriptions,omitempty" json:"removeDescriptions,omitempty"`
	// MaxDescriptionLength truncates Kubernetes descriptions (0: no limit).
	MaxDescriptionLength *int `yaml:"maxDescriptionLength,omitempty" json:"maxDescriptionLength,omitempty"`
	// FitDescriptions keeps as many of Kubernetes' descriptions as let
	// each CRD's compact JSON stay within a limit (ParseFitLimit):
	// "client-side-apply", "helm" or a size ("200KiB"). It and
	// RemoveDescriptions exclude each other: the one set where the
	// other is inherited wins.
	FitDescriptions string `yaml:"fitDescriptions,omitempty" json:"fitDescriptions,omitempty"`
	// Recursion is "error" or "preserve" (resolver.RecursionError,
	// resolver.RecursionPreserve).
	Recursion string `yaml:"recursion,omitempty" json:"recursion,omitempty"`
	// AllowOutsideRoot lets file $refs, templates, patches and output
	// directories leave the project directory.
	AllowOutsideRoot *bool `yaml:"allowOutsideRoot,omitempty" json:"allowOutsideRoot,omitempty"`
	// Budget is the most one compile may build, a size such as "64MiB"
	// (resolver.Options.Budget; default resolver.DefaultBudget).
	Budget string `yaml:"budget,omitempty" json:"budget,omitempty"`
	// ServerSideApply says the outputs are installed with server-side
	// apply (by an operator, `kubectl apply --server-side`, Helm's crds/
	// is not): a CRD too large for client-side apply's annotation is then
	// no warning. The hard size limit (MaxSize) stays.
	ServerSideApply *bool `yaml:"serverSideApply,omitempty" json:"serverSideApply,omitempty"`
	// AllowRemovedAPI compiles apiextensions.k8s.io/v1beta1 templates for
	// Kubernetes 1.22 and later with a warning, not an error
	// (resolver.Options.AllowRemovedAPI).
	AllowRemovedAPI *bool `yaml:"allowRemovedAPI,omitempty" json:"allowRemovedAPI,omitempty"`
}

// over returns p with the fields set in o replacing its own.
func (p Policy) over(o Policy) Policy {
	if o.KubernetesVersion != "" {
		p.KubernetesVersion = o.KubernetesVersion
	}
	if o.RemoveDescriptions != nil {
		p.RemoveDescriptions = o.RemoveDescriptions
		if *o.RemoveDescriptions && o.FitDescriptions == "" {
			p.FitDescriptions = ""
		}
	}
	if o.FitDescriptions != "" {
		p.FitDescriptions = o.FitDescriptions
		if o.RemoveDescriptions == nil {
			p.RemoveDescriptions = nil
		}
	}
	if o.MaxDescriptionLength != nil {
		p.MaxDescriptionLength = o.MaxDescriptionLength
	}
	if o.Recursion != "" {
		p.Recursion = o.Recursion
	}
	if o.AllowOutsideRoot != nil {
		p.AllowOutsideRoot = o.AllowOutsideRoot
	}
	if o.Budget != "" {
		p.Budget = o.Budget
	}
	if o.ServerSideApply != nil {
		p.ServerSideApply = o.ServerSideApply
	}
	if o.AllowRemovedAPI != nil {
		p.AllowRemovedAPI = o.AllowRemovedAPI
	}
	return p
}

// options turns the policy into resolver options; python://pkg refs
// resolve under dir.
func (p Policy) options(dir string) resolver.Options {
	o := resolver.Options{
		KubeVersion: p.KubernetesVersion,
		Recursion:   p.Recursion,
		WorkDir:     dir,
	}
	if p.RemoveDescriptions != nil {
		o.RemoveDescriptions = *p.RemoveDescriptions
	}
	if p.MaxDescriptionLength != nil {
		o.MaxDescriptionLength = *p.MaxDescriptionLength
	}
	if p.AllowOutsideRoot != nil {
		o.AllowOutsideRoot = *p.AllowOutsideRoot
	}
	if p.AllowRemovedAPI != nil {
		o.AllowRemovedAPI = *p.AllowRemovedAPI
	}
	if p.Budget != "" {
		o.Budget, _ = docread.ParseSize(p.Budget) // checked by validate
	}
	if p.FitDescriptions != "" {
		o.FitDescriptions, _ = ParseFitLimit(p.FitDescriptions) // checked by validate
	}
	return o
}

// Limits fitDescriptions names (ParseFitLimit).
const (
	// FitClientSideApply is WarnSize: the largest compact JSON of a CRD
	// (without annotations of its own) that client-side `kubectl apply`
	// can create (docs/validation.md derives it).
	FitClientSideApply = "client-side-apply"
	// FitHelm is HelmShare.
	FitHelm = "helm"
)

// HelmShare is the compact JSON a CRD in a Helm chart's crds/ may have
// under fitDescriptions: helm. Helm installs crds/ with a create (no
// last-applied annotation), but stores the whole chart in its release
// Secret, whose data the apiserver limits to 1,048,576 bytes: every file
// base64-encoded in the release's JSON, which is gzipped and
// base64-encoded again. Measured on this repository's CRDs, a byte of
// compact JSON costs at most 0.52 bytes of that Secret (0.41 to 0.52 with
// some or all of Kubernetes' descriptions, 0.34 to 0.36 with none; 0.92
// for a 2 KB CRD, too small to matter). Three quarters of the Secret for
// the CRDs (the rest for the chart's templates, values and rendered
// manifest), shared by four large CRDs, at 0.52 bytes a byte: 786,432 / 4
// / 0.52 = 378,092 bytes of compact JSON each.
const HelmShare = (1 << 20) * 3 / 4 / 4 * 100 / 52

// ParseFitLimit reads a fitDescriptions limit: FitClientSideApply
// (WarnSize bytes), FitHelm (HelmShare bytes), or a size as budget
// takes it ("200KiB", "262078").
func ParseFitLimit(s string) (resolver.Size, error) {
	switch s {
	case FitClientSideApply:
		return WarnSize, nil
	case FitHelm:
		return HelmShare, nil
	}
	n, err := docread.ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("want %s, %s or a size such as 200KiB: %w", FitClientSideApply, FitHelm, err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("want %s, %s or a size above 0 such as 200KiB", FitClientSideApply, FitHelm)
	}
	return n, nil
}

// validate reports a policy value that cannot be used.
func (p Policy) validate() error {
	if p.KubernetesVersion != "" {
		if _, err := schemas.Canonical(p.KubernetesVersion); err != nil {
			return &policyError{"kubernetesVersion", fmt.Errorf("kubernetesVersion %q: %w", p.KubernetesVersion, err)}
		}
	}
	if p.FitDescriptions != "" {
		if _, err := ParseFitLimit(p.FitDescriptions); err != nil {
			return &policyError{"fitDescriptions", fmt.Errorf("fitDescriptions %q: %w", p.FitDescriptions, err)}
		}
		if p.RemoveDescriptions != nil && *p.RemoveDescriptions {
			return &policyError{"fitDescriptions", fmt.Errorf("fitDescriptions %q and removeDescriptions: true exclude each other; keep one", p.FitDescriptions)}
		}
	}
	if p.Budget != "" {
		if _, err := docread.ParseSize(p.Budget); err != nil {
			return &policyError{"budget", fmt.Errorf("budget %q: %w", p.Budget, err)}
		}
	}
	return nil
}

// policyError is a Policy value out of its set, with the key that holds it.
type policyError struct {
	key string
	err error
}

func (e *policyError) Error() string { return e.err.Error() }
func (e *policyError) Unwrap() error { return e.err }

// policyFlags are the command-line flags that set each policy key.
var policyFlags = map[string]string{"kubernetesVersion": "--k8s-version", "fitDescriptions": "--fit-descriptions", "budget": "--budget"}

// flagError rewords a policy error of the command line's flags (Options.Policy) as one of
// the flag given, with the values it takes: they are no configuration.
func flagError(err error) error {
	var pe *policyError
	if !errors.As(err, &pe) {
		return err
	}
	msg := strings.TrimPrefix(err.Error(), pe.key+" ")
	switch pe.key {
	case "fitDescriptions":
		if strings.Contains(msg, "removeDescriptions") {
			return fmt.Errorf("--fit-descriptions and -r/--remove-descriptions exclude each other; keep one")
		}
		return fmt.Errorf("--fit-descriptions %s", msg) // ParseFitLimit's error says what it takes
	}
	return fmt.Errorf("%s %s", policyFlags[pe.key], msg)
}

// Set is a group of templates compiled the same way into the same output
// directories.
type Set struct {
	Policy `yaml:",inline"`
	// Templates are globs of template files ("templates/*.yaml",
	// "crds/**/*.yaml"). Matched files holding no CRD are skipped. A file
	// holding a CRD in a glob's directory (templates/ for
	// "templates/a.yaml") that no set matches is an error unless a set
	// excludes it: a template added there is never silently left out.
	Templates []string `yaml:"templates"`
	// Exclude are globs of files never treated as templates; a CRD
	// beside a set's templates that is no template is listed here.
	Exclude []string `yaml:"exclude,omitempty"`
	// Outputs are the directories every compiled template is written to,
	// under the template's base name. Several directories receive
	// identical bytes (e.g. dist/ and a Helm chart's crds/).
	Outputs []string `yaml:"outputs"`
	// Patches maps a template path to its RFC 6902 patch file, overriding
	// the NAME.patch.yaml beside the template.
	Patches map[string]string `yaml:"patches,omitempty"`
	// Examples are globs of custom resource files (examples/*.yaml) that
	// build and check judge as the apiserver would on create, against the
	// CRDs compiled where they stand: a set's against the set's, the top
	// level's against every set's. Any problem (a pruned field included)
	// fails the run.
	Examples []string `yaml:"examples,omitempty"`
}

// Config is the content of a .crd-resolver.yaml file.
type Config struct {
	// Policy applies to every set that does not override it.
	Policy `yaml:",inline"`
	// Sets are the template sets. Empty means one set: DefaultTemplates
	// into DefaultOutput.
	Sets []Set `yaml:"sets,omitempty"`
	// FailOn is what makes check fail: FailOnChange (the default: any stale, missing or
	// unexpected output) or FailOnBreaking (only a change the schema comparison calls
	// breaking for objects already stored). check --fail-on-breaking overrides it.
	FailOn string `yaml:"failOn,omitempty"`
	// Examples are globs of custom resource files (examples/*.yaml) that
	// build and check judge as the apiserver would on create, against the
	// CRDs compiled where they stand: a set's against the set's, the top
	// level's against every set's. Any problem (a pruned field included)
	// fails the run.
	Examples []string `yaml:"examples,omitempty"`

	// lines are where keys stand in the file, by path ("sets[0].templates[1]"),
	// for messages; nil for DefaultConfig.
	lines map[string]int
}

// line returns "NAME:LINE" for the value at path in the file name, or
// name alone when its position is unknown.
func (c *Config) line(name, path string) string {
	if n := c.lines[path]; n > 0 {
		return fmt.Sprintf("%s:%d", name, n)
	}
	return name
}

// policyKey is where the key of a policyError stands (prefix "sets[i]." for a set's),
// for Config.line.
func policyKey(err error, prefix string) string {
	var pe *policyError
	if errors.As(err, &pe) {
		return prefix + pe.key
	}
	return ""
}

// recordLines notes where the top-level keys, the sets and their keys and globs
// stand in doc.
func (c *Config) recordLines(doc *yaml.Node) {
	c.lines = map[string]int{}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		c.lines[doc.Content[i].Value] = doc.Content[i].Line
		if doc.Content[i].Value != "sets" || doc.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for si, set := range doc.Content[i+1].Content {
			c.lines[fmt.Sprintf("sets[%d]", si)] = set.Line
			if set.Kind != yaml.MappingNode {
				continue
			}
			for k := 0; k+1 < len(set.Content); k += 2 {
				key, val := set.Content[k].Value, set.Content[k+1]
				c.lines[fmt.Sprintf("sets[%d].%s", si, key)] = set.Content[k].Line
				if val.Kind == yaml.SequenceNode {
					for gi, g := range val.Content {
						c.lines[fmt.Sprintf("sets[%d].%s[%d]", si, key, gi)] = g.Line
					}
				}
			}
		}
	}
}

// FailOn values.
const (
	FailOnChange   = "change"
	FailOnBreaking = "breaking"
)

// DefaultConfig is the configuration of a project without a file.
func DefaultConfig() *Config {
	return &Config{Sets: []Set{{Templates: []string{DefaultTemplates}, Outputs: []string{DefaultOutput}}}}
}

// ParseConfig reads a configuration strictly: unknown keys, a second
// document and empty template or output lists are errors. name is used in
// messages only.
func ParseConfig(name string, src []byte) (*Config, error) {
	if err := checkConfigText(name, src); err != nil { // linear: yaml.v3 alone is quadratic in a mapping's keys
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	var c Config
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, name, err)
	}
	if doc.Kind != 0 {
		if err := checkKeys(name, &doc); err != nil {
			return nil, err
		}
		if err := doc.Decode(&c); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrConfig, name, err)
		}
		c.recordLines(&doc)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %s: holds more than one YAML document", ErrConfig, name)
	}
	if len(c.Sets) == 0 {
		c.Sets = DefaultConfig().Sets
	}
	if err := c.Policy.validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, c.line(name, policyKey(err, "")), err)
	}
	if c.FailOn != "" && c.FailOn != FailOnChange && c.FailOn != FailOnBreaking {
		return nil, fmt.Errorf("%w: %s: failOn %q: want %q or %q", ErrConfig, c.line(name, "failOn"), c.FailOn, FailOnChange, FailOnBreaking)
	}
	policies := []Policy{c.Policy}
	for _, s := range c.Sets {
		policies = append(policies, s.Policy)
	}
	for _, p := range policies {
		if b, err := docread.ParseSize(p.Budget); p.Budget != "" && err == nil && b > MaxBudget {
			return nil, fmt.Errorf("%w: %s: budget %q is above the ceiling of %s: no CRD etcd can store needs that much (the default is %s)", ErrConfig, name, p.Budget, resolver.Size(MaxBudget), resolver.DefaultBudget)
		}
	}
	for i, s := range c.Sets {
		if err := checkOutputs(name, &c, i, s); err != nil {
			return nil, err
		}
		if err := s.Policy.validate(); err != nil {
			return nil, fmt.Errorf("%w: %s: sets[%d]: %w", ErrConfig, c.line(name, policyKey(err, fmt.Sprintf("sets[%d].", i))), i, err)
		}
		if len(s.Templates) == 0 {
			return nil, fmt.Errorf("%w: %s: sets[%d] has no templates", ErrConfig, name, i)
		}
		if len(s.Outputs) == 0 {
			return nil, fmt.Errorf("%w: %s: sets[%d] has no outputs", ErrConfig, name, i)
		}
	}
	return &c, nil
}

// FindConfig returns the ConfigFileName in dir or the nearest ancestor of
// it within dir's git work tree, or "" when there is none. Outside a work
// tree only dir itself is looked at: a configuration in $HOME, /tmp or a
// shared CI workspace above the checkout is never picked up.
func FindConfig(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	top := fileio.GitTop(dir)
	for {
		if file, err := configIn(dir); err != nil || file != "" {
			return file, err
		}
		parent := filepath.Dir(dir)
		if top == "" || dir == top || parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// FindConfigFor returns the configuration of the project a file named
// on the command line belongs to: the nearest ConfigFileName at or above
// dir (the file's directory) within its git work tree (FindConfig), and,
// outside a work tree, in the directories from dir up to the working
// directory wd when dir lies below it (the user's own tree, where build
// and resolve run from wd find the configuration of wd too). "" when
// there is none.
func FindConfigFor(dir, wd string) (string, error) {
	file, err := FindConfig(dir)
	if err != nil || file != "" {
		return file, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil || fileio.GitTop(dir) != "" {
		return "", err
	}
	for d := dir; d != wd && strings.HasPrefix(d, wd+string(filepath.Separator)); {
		d = filepath.Dir(d)
		if file, err := configIn(d); err != nil || file != "" {
			return file, err
		}
	}
	return "", nil
}

// configIn returns the ConfigFileName in dir, "" when there is none (or
// a directory of that name).
func configIn(dir string) (string, error) {
	file := filepath.Join(dir, ConfigFileName)
	fi, err := os.Lstat(file)
	switch {
	case err == nil && !fi.IsDir():
		return file, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return "", err
	}
	return "", nil
}

// MaxBudget is the largest budget a configuration may set. The largest
// CRD etcd stores is about 1.5 MiB of JSON (its default request limit;
// a raised --max-request-bytes rarely goes past a few MiB), so no
// storable CRD needs a compile of more than 64 MiB; a budget above it only
// turns a blow-up into running out of memory.
const MaxBudget = 64 << 20

// checkOutputs checks the output directories of set i: each non-empty and
// never inside a .git directory (where git keeps hooks), whatever
// allowOutsideRoot says.
func checkOutputs(name string, c *Config, i int, set Set) error {
	for j, dir := range set.Outputs {
		at := c.line(name, fmt.Sprintf("sets[%d].outputs[%d]", i, j))
		if strings.TrimSpace(dir) == "" {
			return fmt.Errorf("%w: %s: sets[%d].outputs[%d] is empty; name a directory (e.g. dist)", ErrConfig, at, i, j)
		}
		if slices.Contains(strings.Split(filepath.ToSlash(dir), "/"), ".git") {
			return fmt.Errorf("%w: %s: sets[%d].outputs[%d] %q is inside a .git directory; outputs never go there", ErrConfig, at, i, j, dir)
		}
	}
	return nil
}
