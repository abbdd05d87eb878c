package project

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// Size guard. A CRD above WarnSize no longer fits the last-applied-
// configuration annotation client-side `kubectl apply` writes (256 KiB
// for all annotations); one above MaxSize is near the apiserver's request
// and etcd limits and fails to compile unless Options.AllowLarge.
const (
	WarnSize = 256 << 10
	MaxSize  = 1 << 20
)

// ErrTooLarge marks a compiled CRD above MaxSize.
var ErrTooLarge = errors.New("compiled CRD too large")

// Output is one compiled template.
type Output struct {
	Template *Template
	// Data is the file content: GeneratedHeader, then the CRD YAML.
	Data []byte
	// KubeVersion is the Kubernetes minor compiled against, e.g. "1.30".
	KubeVersion string
	// CRDs are the metadata.name of each compiled CRD, in order.
	CRDs []string
	// Files are the absolute paths of every file the output depends on:
	// the template, each file its $refs read, and its patch. Sorted.
	Files []string
	// Warnings are the resolver's diagnostics and the size warning.
	Warnings []string

	objects []map[string]any // the compiled CRDs, for validation
}

// Compile compiles every template (only those for which keep returns
// true, when keep is not nil). Every failure is reported: the error joins
// one resolver.ErrorList (or other error) per failed template.
func (p *Project) Compile(keep func(*Template) bool) ([]*Output, error) {
	compilers := map[string]*resolver.Compiler{}
	var outs []*Output
	var errs []error
	for _, t := range p.Templates {
		if keep != nil && !keep(t) {
			continue
		}
		out, err := p.compile(compilers, t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		outs = append(outs, out)
	}
	return outs, errors.Join(errs...)
}

func (p *Project) compile(compilers map[string]*resolver.Compiler, t *Template) (*Output, error) {
	opts := t.Policy.options(p.Dir)
	// Templates with the same options share a Compiler, and with it the
	// resolved $ref targets (a PodSpec is decoded and normalised once per
	// build, not once per template).
	key := fmt.Sprintf("%s|%t|%d|%s|%s|%t|%d|%s", opts.KubeVersion, opts.RemoveDescriptions, opts.MaxDescriptionLength,
		opts.Recursion, opts.Root, opts.AllowOutsideRoot, opts.Budget, t.Patch)
	c := compilers[key]
	if c == nil {
		if t.Patch != "" {
			src, err := p.reader.ReadFile(t.Patch)
			if err != nil {
				return nil, fmt.Errorf("%s: reading its patch: %w", t.Name, err)
			}
			if opts.Patch, err = resolver.ParsePatch(p.Rel(t.Patch), src); err != nil {
				return nil, err
			}
		}
		var err error
		if c, err = resolver.New(opts); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		compilers[key] = c
	}
	src, err := p.reader.ReadFile(t.Path)
	if err != nil {
		return nil, err
	}
	res, err := c.Compile(filepath.FromSlash(t.Name), src)
	if err != nil {
		return nil, err
	}
	body, err := res.YAML()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	out := &Output{
		Template:    t,
		KubeVersion: c.KubeVersion(),
		Data:        append([]byte(GeneratedHeader(t.Name, c.KubeVersion())), body...),
		Files:       slices.Clone(res.Files),
	}
	if t.Patch != "" {
		out.Files = append(out.Files, t.Patch)
		slices.Sort(out.Files)
		out.Files = slices.Compact(out.Files)
	}
	for _, d := range res.Documents {
		out.CRDs = append(out.CRDs, d.Name)
		out.objects = append(out.objects, d.Object())
	}
	for _, w := range res.Warnings {
		out.Warnings = append(out.Warnings, w.String())
	}
	switch n := len(out.Data); {
	case n > MaxSize && !p.opts.AllowLarge:
		return nil, fmt.Errorf("%s: %w: %s is more than the %s limit; shorten it (remove-descriptions, maxDescriptionLength) or pass --allow-large", t.Name, ErrTooLarge, FormatSize(n), FormatSize(MaxSize))
	case n > WarnSize:
		shrink := "shrink it with removeDescriptions (-r)"
		if opts.RemoveDescriptions {
			shrink = "shrink it with maxDescriptionLength or shorter descriptions of your own"
		}
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s: the compiled CRD is %s, above %s: client-side `kubectl apply` will fail (the last-applied annotation is limited to 256 KiB); apply with `kubectl apply --server-side`, or %s", t.Name, FormatSize(n), FormatSize(WarnSize), shrink))
	}
	return out, nil
}

// FormatSize renders a byte count for people: "812 B", "181.4 KiB".
func FormatSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
}

// Affected selects the outputs a change to the named files can alter:
// those whose Files, or whose output paths, include one of them. Names
// are relative to workDir or absolute. A change to the configuration file
// affects every output. Names that nothing depends on are ignored.
func (p *Project) Affected(outs []*Output, workDir string, changed []string) []*Output {
	set := map[string]bool{}
	for _, name := range changed {
		if !filepath.IsAbs(name) {
			name = filepath.Join(workDir, name)
		}
		set[filepath.Clean(name)] = true
	}
	if p.ConfigFile != "" && set[p.ConfigFile] {
		return outs
	}
	var sel []*Output
	for _, o := range outs {
		hit := slices.ContainsFunc(o.Files, func(f string) bool { return set[f] }) ||
			slices.ContainsFunc(o.Template.Outputs, func(f string) bool { return set[f] })
		if hit {
			sel = append(sel, o)
		}
	}
	return sel
}
