package schemas

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// Bundle is the OpenAPI v2 definitions of one Kubernetes release, with the defaults of its
// OpenAPI v3 documents merged in. A Bundle is read-only and safe for concurrent use; every
// method returns data the caller owns.
type Bundle struct {
	version string
	rd      *bundlefmt.Reader

	manifest   []byte // decoded into source on first use (Source, Validate)
	sourceOnce sync.Once
	source     Source
	sourceErr  error
}

// Source is the provenance of a Bundle.
type Source struct {
	// KubernetesVersion is the release the definitions come from, e.g. "v1.30.14".
	KubernetesVersion string
	// Module is the Go module the sources were read from, e.g. "k8s.io/kubernetes@v1.30.14".
	Module string
	// SHA256 maps each source file to its hex SHA-256. Files of Module are keyed by their path
	// in it ("api/openapi-spec/swagger.json"); files of another module, such as those
	// DefaultsFrom names, are keyed "<module>@<version>/<path>".
	SHA256 map[string]string
	// DefaultsFrom is empty when defaults came from the release's own OpenAPI v3 documents.
	// Releases before 1.23 publish none; their bundles borrow the defaults of the release
	// named here (e.g. "v1.23.17") for the definitions and properties both releases share.
	DefaultsFrom string
	// GoModules maps "<module>@<version>" of each Go module whose declarations were read
	// (k8s.io/api@v0.30.14, ...) to its go.sum hash.
	GoModules map[string]string
	// Objects classifies every property-less object definition by its Go declaration (and
	// every object whose Go type marshals itself: runtime.RawExtension before 1.16, whose
	// swagger listed a "Raw" property that is not its JSON).
	Objects map[string]Object
	// Constraints counts the value-constraint keywords imported from the Go types'
	// validation markers, by keyword.
	Constraints map[string]int
}

// Object is what the Go declaration of a property-less object definition says it holds.
type Object = bundlefmt.Object

// Kinds of property-less objects (Object.Kind).
const (
	// ObjectEmpty: a struct without JSON fields; the definition is `type: object`, and the
	// apiserver prunes whatever is written under it.
	ObjectEmpty = bundlefmt.ObjectEmpty
	// ObjectArbitrary: any JSON (runtime.RawExtension and the like); the definition carries
	// x-kubernetes-preserve-unknown-fields.
	ObjectArbitrary = bundlefmt.ObjectArbitrary
)

// KnownFormat reports whether the apiserver of Kubernetes 1.minor validates format on a value
// of the schema type typ; it drops any other format. Bundles hold only formats their minor
// knows.
func KnownFormat(minor int, typ, format string) bool {
	return bundlefmt.KnownFormat(minor, typ, format)
}

// newBundle checks the manifest header of an opened bundle.
func newBundle(minor string, rd *bundlefmt.Reader) (*Bundle, error) {
	// Only the header: every process that compiles opens a bundle, few read its provenance.
	h, err := bundlefmt.DecodeHeader(rd.Manifest)
	if err != nil {
		return nil, err
	}
	if h.Format != bundlefmt.FormatVersion {
		return nil, fmt.Errorf("manifest: format %d, want %d", h.Format, bundlefmt.FormatVersion)
	}
	return &Bundle{version: minor, rd: rd, manifest: rd.Manifest}, nil
}

// provenance decodes the manifest, once.
func (b *Bundle) provenance() (Source, error) {
	b.sourceOnce.Do(func() {
		var m bundlefmt.Manifest
		if err := json.Unmarshal(b.manifest, &m); err != nil {
			b.sourceErr = fmt.Errorf("manifest: %w", err)
			return
		}
		b.source = Source{
			KubernetesVersion: m.KubernetesVersion,
			Module:            m.Module,
			SHA256:            m.SHA256,
			DefaultsFrom:      m.DefaultsFrom,
			GoModules:         m.GoModules,
			Objects:           m.Objects,
			Constraints:       m.Constraints,
		}
	})
	return b.source, b.sourceErr
}

// Version returns the bundle's minor, e.g. "1.30".
func (b *Bundle) Version() string { return b.version }

// Source returns the bundle's provenance. Its maps are fresh copies. (The manifest was
// checked to be JSON when the bundle was loaded; a manifest that does not decode into a
// Manifest gives an empty Source, and Validate reports it.)
func (b *Bundle) Source() Source {
	s, _ := b.provenance()
	s.SHA256 = maps.Clone(s.SHA256)
	s.GoModules = maps.Clone(s.GoModules)
	s.Objects = maps.Clone(s.Objects)
	s.Constraints = maps.Clone(s.Constraints)
	return s
}

// Names returns every definition name, sorted. It reads only the bundle's index. The slice
// is a fresh copy the caller may modify.
func (b *Bundle) Names() []string { return slices.Clone(b.rd.Names()) }

// Has reports whether the bundle holds the definition name. It reads only the index.
func (b *Bundle) Has(name string) bool {
	_, ok := b.find(name)
	return ok
}

// Definition returns the JSON of one definition, e.g. "io.k8s.api.core.v1.PodSpec", as fresh
// bytes the caller may keep: the definition as the release publishes it (with the
// generator's additions, see the package documentation), compact, keys sorted, but for the
// descriptions of its schema nodes, which Descriptions returns. It reads only that
// definition. An unknown name is an error wrapping ErrNoDefinition.
func (b *Bundle) Definition(name string) ([]byte, error) {
	return b.AppendDefinition(nil, name)
}

// AppendDefinition appends the JSON of one definition to dst and returns
// the extended slice, so a caller decoding many definitions can reuse one
// buffer. Errors are those of Definition.
func (b *Bundle) AppendDefinition(dst []byte, name string) ([]byte, error) {
	return b.read(dst, name, "definition", func(i int) ([]byte, error) { return b.rd.AppendStructure(dst, i) })
}

// read returns what get returns for the definition of name, or dst and an error that names
// what was read (what, "definition" or "descriptions of").
func (b *Bundle) read(dst []byte, name, what string, get func(i int) ([]byte, error)) ([]byte, error) {
	i, ok := b.find(name)
	if !ok {
		return dst, fmt.Errorf("schemas: Kubernetes %s: %w: %q", b.version, ErrNoDefinition, name)
	}
	data, err := get(i)
	if err != nil {
		return dst, fmt.Errorf("schemas: Kubernetes %s: %s %s: %w", b.version, what, name, err)
	}
	return data, nil
}

// Descriptions returns the descriptions of one definition: a JSON object from the JSON
// pointer of each schema node inside the definition ("" for its root) to its text, or nil
// when it has none. Put back where the pointers say (bundlefmt.JoinDescriptions), they give
// the definition as published.
func (b *Bundle) Descriptions(name string) ([]byte, error) {
	return b.AppendDescriptions(nil, name)
}

// AppendDescriptions appends what Descriptions returns to dst.
func (b *Bundle) AppendDescriptions(dst []byte, name string) ([]byte, error) {
	return b.read(dst, name, "descriptions of", func(i int) ([]byte, error) { return b.rd.AppendDescriptions(dst, i) })
}

// find looks name up by binary search over the sorted names.
func (b *Bundle) find(name string) (int, bool) {
	if !bundlefmt.ValidName(name) {
		return 0, false
	}
	return b.rd.Find(name)
}

// Validate checks the whole bundle, reading every definition: the format version and
// provenance, sorted unique entries with valid names, every chunk's CRC-32, every
// definition a JSON object whose descriptions name schema nodes of it, and every "$ref" a
// "#/definitions/X" whose X the bundle holds. Load does not call it (it
// would cost milliseconds per version); tests and `make schemas` do.
func (b *Bundle) Validate() error {
	var errs []error
	if _, err := b.provenance(); err != nil {
		errs = append(errs, err)
	}
	if b.source.KubernetesVersion == "" || b.source.Module == "" {
		errs = append(errs, errors.New("manifest lacks the Kubernetes version or module"))
	} else if m, ok := minorOf(b.source.KubernetesVersion); !ok || m != b.version {
		errs = append(errs, fmt.Errorf("manifest names Kubernetes %s in the bundle of %s", b.source.KubernetesVersion, b.version))
	} else if !strings.HasSuffix(b.source.Module, "@"+b.source.KubernetesVersion) {
		errs = append(errs, fmt.Errorf("manifest module %s is not at %s", b.source.Module, b.source.KubernetesVersion))
	}
	if len(b.source.SHA256) == 0 {
		errs = append(errs, errors.New("manifest has no source SHA-256"))
	}
	for _, file := range slices.Sorted(maps.Keys(b.source.SHA256)) {
		if sum := b.source.SHA256[file]; !isHexSHA256(sum) {
			errs = append(errs, fmt.Errorf("manifest SHA-256 of %s is malformed: %q", file, sum))
		}
	}
	if len(b.source.GoModules) == 0 {
		errs = append(errs, errors.New("manifest names no Go modules"))
	}
	for _, name := range slices.Sorted(maps.Keys(b.source.Objects)) {
		if o := b.source.Objects[name]; o.Kind != ObjectEmpty && o.Kind != ObjectArbitrary || o.Decl == "" {
			errs = append(errs, fmt.Errorf("manifest object %s: kind %q, declaration %q", name, o.Kind, o.Decl))
		} else if !b.Has(name) {
			errs = append(errs, fmt.Errorf("manifest object %s: %w", name, ErrNoDefinition))
		}
	}
	names := b.rd.Names()
	if len(names) == 0 {
		errs = append(errs, errors.New("no definitions"))
	}
	if err := b.rd.Check(); err != nil {
		errs = append(errs, err)
	}
	for _, name := range names {
		data, err := b.Definition(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		descs, err := b.Descriptions(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		published, err := bundlefmt.JoinDescriptions(data, descs)
		if err != nil {
			errs = append(errs, fmt.Errorf("definition %s: %w", name, err))
			continue
		}
		v, err := bundlefmt.Decode(published)
		if err != nil {
			errs = append(errs, fmt.Errorf("definition %s: %w", name, err))
			continue
		}
		def, ok := v.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("definition %s: not a JSON object", name))
			continue
		}
		if err := b.checkObject(name, def); err != nil {
			errs = append(errs, err)
		}
		walkRefs(def, func(ref string) {
			target, ok := strings.CutPrefix(ref, "#/definitions/")
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("definition %s: $ref %q is not a local definition", name, ref))
			case !b.Has(target):
				errs = append(errs, fmt.Errorf("definition %s: $ref %q: %w", name, ref, ErrNoDefinition))
			}
		})
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("schemas: bundle %s: %w", b.version, err)
	}
	return nil
}

// checkObject checks that a property-less object definition is classified, and that the
// definition says what the classification does: arbitrary JSON preserves unknown fields, an
// empty struct is a plain object.
func (b *Bundle) checkObject(name string, def map[string]any) error {
	if !bundlefmt.IsPropertyless(def) {
		return nil
	}
	o, ok := b.source.Objects[name]
	preserve := def[bundlefmt.PreserveUnknownFields] == true
	switch {
	case !ok:
		return fmt.Errorf("definition %s: a property-less object the manifest does not classify", name)
	case o.Kind == ObjectArbitrary && !preserve:
		return fmt.Errorf("definition %s: arbitrary JSON without %s", name, bundlefmt.PreserveUnknownFields)
	case o.Kind == ObjectEmpty && (preserve || def["type"] != "object"):
		return fmt.Errorf("definition %s: an empty struct must be a plain type: object", name)
	}
	return nil
}

// walkRefs calls fn with the value of every "$ref" key in a decoded JSON value.
func walkRefs(v any, fn func(string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if s, ok := child.(string); ok && k == "$ref" {
				fn(s)
				continue
			}
			walkRefs(child, fn)
		}
	case []any:
		for _, child := range v {
			walkRefs(child, fn)
		}
	}
}

func isHexSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
