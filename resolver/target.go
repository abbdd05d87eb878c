package resolver

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdfields"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
)

// pythonSchemataMinor returns the minor a path into the Python tool's
// bundles names: "k8s_crd_resolver/schemata/k8s-1.21.1.json" (or
// "k8s-1.21.json") gives "1.21". Hand-written, like githubSwaggerMinor, so
// that a run with pinned refs does not compile two regexps
// (TestHandwrittenMatchers and FuzzHandwrittenMatchers hold them to the
// regexps they replace).
func pythonSchemataMinor(p string) (string, bool) {
	v, ok := strings.CutPrefix(p, "k8s_crd_resolver/schemata/k8s-")
	if !ok {
		return "", false
	}
	if v, ok = strings.CutSuffix(v, ".json"); !ok {
		return "", false
	}
	minor, rest, ok := leadingMinor(v)
	if !ok || rest != "" && !isDotNumber(rest) {
		return "", false
	}
	return minor, true
}

// githubSwaggerMinor returns the minor a URL of Kubernetes' own swagger.json
// on raw.githubusercontent.com names, at a release tag
// (".../kubernetes/v1.21.1/api/openapi-spec/swagger.json") or branch
// (".../release-1.21/...").
func githubSwaggerMinor(u string) (string, bool) {
	rest, ok := strings.CutPrefix(u, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "http://"); !ok {
			return "", false
		}
	}
	if rest, ok = strings.CutPrefix(rest, "raw.githubusercontent.com/kubernetes/kubernetes/"); !ok {
		return "", false
	}
	if rest, ok = strings.CutSuffix(rest, "/api/openapi-spec/swagger.json"); !ok {
		return "", false
	}
	if tag, ok := strings.CutPrefix(rest, "v"); ok {
		minor, patch, ok := leadingMinor(tag)
		return minor, ok && isDotNumber(patch)
	}
	if branch, ok := strings.CutPrefix(rest, "release-"); ok {
		minor, tail, ok := leadingMinor(branch)
		return minor, ok && tail == ""
	}
	return "", false
}

// leadingMinor splits "1.21" off the front of v ("1.21.1" gives "1.21"
// and ".1"): two runs of ASCII digits joined by a dot.
func leadingMinor(v string) (minor, rest string, ok bool) {
	i := digits(v, 0)
	if i == 0 || i == len(v) || v[i] != '.' {
		return "", "", false
	}
	j := digits(v, i+1)
	if j == i+1 {
		return "", "", false
	}
	return v[:j], v[j:], true
}

// isDotNumber reports whether s is a dot and a run of ASCII digits.
func isDotNumber(s string) bool {
	return len(s) > 1 && s[0] == '.' && digits(s, 1) == len(s)
}

// digits returns the end of the run of ASCII digits in s from i.
func digits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// hasScheme reports whether ref starts with a URI scheme and its colon
// (RFC 3986: a letter, then letters, digits, "+", "-" or "."). Every $ref
// is tested, so this is hand-written rather than a regexp (held to one by
// TestHandwrittenMatchers).
func hasScheme(ref string) bool {
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// parseRef maps a $ref string, written in scope sc, to its target. The
// forms are listed in the package documentation.
func (r *run) parseRef(ref string, sc scope) (target, error) {
	if ref == "" {
		return target{}, fmt.Errorf("%w: empty $ref", ErrUnresolved)
	}
	path, frag, hasFrag := strings.Cut(ref, "#")
	switch {
	case strings.HasPrefix(ref, "python://"):
		pkgPath := strings.TrimPrefix(path, "python://")
		if minor, ok := pythonSchemataMinor(pkgPath); ok {
			return r.bundleTarget(minor, frag)
		}
		abs := filepath.Join(r.c.opts.WorkDir, filepath.FromSlash(pkgPath))
		return r.fileTarget(abs, frag)
	case hasScheme(ref) || strings.HasPrefix(ref, "//"):
		if minor, ok := githubSwaggerMinor(path); ok {
			return r.bundleTarget(minor, frag)
		}
		return target{}, fmt.Errorf("%w; refer to Kubernetes definitions by name (io.k8s.api.core.v1.PodSpec) or to a local file by relative path", ErrNetwork)
	case path == "" && hasFrag:
		return r.localTarget(frag, sc)
	case isFileRef(path) && !(hasFrag == false && r.isDefinitionName(path, sc)):
		if sc.inBundle() {
			return target{}, fmt.Errorf("%w: a bundle definition cannot refer to a file", ErrUnresolved)
		}
		// An absolute path (the Python tool documents them) is taken as it
		// is, under the same confinement as any file $ref.
		abs := filepath.FromSlash(path)
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(filepath.Dir(sc.file), abs)
		}
		return r.fileTarget(abs, frag)
	}
	return r.nameTarget(ref, sc)
}

// isDefinitionName reports whether a bare ref without a slash names a
// definition (io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON
// ends in ".JSON" but is no file).
func (r *run) isDefinitionName(name string, sc scope) bool {
	if strings.ContainsAny(name, `/\`) {
		return false
	}
	if sc.inBundle() {
		return true
	}
	if _, ok := dig(sc.doc.Value, "definitions", name).(map[string]any); ok {
		return true
	}
	return r.c.bundle.Has(name)
}

func isFileRef(path string) bool {
	if strings.ContainsAny(path, `/\`) {
		return true
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func (r *run) bundleTarget(version, frag string) (target, error) {
	toks, err := splitPointer(frag)
	if err != nil || len(toks) != 2 || toks[0] != "definitions" {
		return target{}, fmt.Errorf("%w: a Kubernetes bundle ref must end in #/definitions/NAME", ErrUnresolved)
	}
	b, canonical, err := r.c.bundleFor(version)
	if err != nil {
		return target{}, err
	}
	if !b.Has(toks[1]) {
		return target{}, unknownDefinition(toks[1], canonical, b, nil)
	}
	return target{version: canonical, name: toks[1]}, nil
}

// localTarget resolves "#/pointer" written in scope sc. In a file,
// #/definitions/NAME looks in the document's own definitions first, then
// in the bundle of --k8s-version.
func (r *run) localTarget(frag string, sc scope) (target, error) {
	toks, err := splitPointer(frag)
	if err != nil {
		return target{}, fmt.Errorf("%w: %w", ErrUnresolved, err)
	}
	if sc.inBundle() {
		if len(toks) != 2 || toks[0] != "definitions" {
			return target{}, fmt.Errorf("%w: bundle refs must be #/definitions/NAME", ErrUnresolved)
		}
		return target{version: sc.version, name: toks[1]}, nil
	}
	if len(toks) == 2 && toks[0] == "definitions" {
		return r.definitionTarget(toks[1], frag, sc)
	}
	return target{file: sc.file, doc: sc.doc.Index, pointer: frag}, nil
}

// nameTarget resolves a bare definition name: the document's own
// definitions first, then the bundle.
func (r *run) nameTarget(name string, sc scope) (target, error) {
	if sc.inBundle() {
		return target{version: sc.version, name: name}, nil
	}
	return r.definitionTarget(name, "/definitions/"+docread.EscapePointerToken(name), sc)
}

// definitionTarget resolves the definition name written in file scope sc:
// the document's own, at pointer ptr, if it has one, else the bundle's
// (--k8s-version).
func (r *run) definitionTarget(name, ptr string, sc scope) (target, error) {
	if _, ok := dig(sc.doc.Value, "definitions", name).(map[string]any); ok {
		return target{file: sc.file, doc: sc.doc.Index, pointer: ptr}, nil
	}
	if r.c.bundle.Has(name) {
		return target{version: r.c.version, name: name}, nil
	}
	return target{}, unknownDefinition(name, r.c.version, r.c.bundle, localNames(sc.doc))
}

func localNames(d *document) []string {
	defs, _ := dig(d.Value, "definitions").(map[string]any)
	return sortedKeys(defs)
}

// lookupPointer follows a JSON pointer (RFC 6901) through v.
func lookupPointer(v any, ptr string) (any, error) { return lookupPointerIn(v, ptr, nil) }

// lookupPointerIn is lookupPointer over what view(v) makes of each value
// on the way (nil: the values themselves).
//
// The tokens are read in place, and a message names the way so far as
// ptr spells it (its prefix): addDescriptions looks up one pointer per
// description.
func lookupPointerIn(v any, ptr string, view func(any) any) (any, error) {
	if ptr != "" && ptr[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q must start with /", ptr)
	}
	for pos := 0; pos < len(ptr); {
		end := strings.IndexByte(ptr[pos+1:], '/')
		if end < 0 {
			end = len(ptr)
		} else {
			end += pos + 1
		}
		tok, at := unescapePointerToken(ptr[pos+1:end]), ptr[:pos]
		pos = end
		if view != nil {
			v = view(v)
		}
		switch t := v.(type) {
		case map[string]any:
			next, ok := t[tok]
			if !ok {
				return nil, &hinted{err: fmt.Errorf("JSON pointer #%s: no key %q under %q", ptr, tok, orRoot(at)), suggest: func() string { return suggest.DidYouMean(tok, sortedKeys(t)) }}
			}
			v = next
		case []any:
			i, err := parseIndex(tok, len(t))
			if err != nil {
				return nil, fmt.Errorf("JSON pointer #%s: under %q: %w", ptr, orRoot(at), err)
			}
			v = t[i]
		default:
			return nil, fmt.Errorf("JSON pointer #%s: %q is %s, it has no %q", ptr, orRoot(at), describeValue(v), tok)
		}
	}
	return v, nil
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func parseIndex(tok string, n int) (int, error) {
	i := 0
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, fmt.Errorf("%q is not a list index", tok)
	}
	for _, ch := range tok {
		if ch < '0' || ch > '9' {
			return 0, fmt.Errorf("%q is not a list index", tok)
		}
		i = i*10 + int(ch-'0')
		if i > n {
			break
		}
	}
	if i >= n {
		return 0, fmt.Errorf("index %s is out of range (the list has %d items)", tok, n)
	}
	return i, nil
}

// describeValue names the kind of v in messages (crdfields.DescribeValue).
func describeValue(v any) string { return crdfields.DescribeValue(v) }
