package schemas

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas/internal/bundlefmt"
)

// Bundle is the OpenAPI v2 definitions of one Kubernetes release, with the defaults of its
// OpenAPI v3 documents merged in. A Bundle is read-only and safe for concurrent use; every
// method returns data the caller owns.
type Bundle struct {
	version string
	source  Source
	defs    []*zip.File // the definition entries, sorted by name
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

// newBundle indexes an opened zip: it checks that the definition entries are sorted and
// unique (Definition relies on it) and decodes the manifest.
func newBundle(minor string, zr *zip.Reader) (*Bundle, error) {
	b := &Bundle{version: minor}
	var manifest *zip.File
	start := -1
	for i, f := range zr.File {
		switch {
		case f.Name == bundlefmt.ManifestName:
			manifest = f
		case strings.HasPrefix(f.Name, bundlefmt.DefinitionPrefix):
			if start < 0 {
				start = i
			} else if i != start+len(b.defs) {
				return nil, fmt.Errorf("definition entries are not contiguous at %q", f.Name)
			}
			if n := len(b.defs); n > 0 && b.defs[n-1].Name >= f.Name {
				return nil, fmt.Errorf("definition entries are not sorted: %q after %q", f.Name, b.defs[n-1].Name)
			}
			b.defs = zr.File[start : i+1]
		default:
			return nil, fmt.Errorf("unexpected entry %q", f.Name)
		}
	}
	if manifest == nil {
		return nil, fmt.Errorf("no %s", bundlefmt.ManifestName)
	}
	data, err := readEntry(manifest, bundlefmt.MaxManifestSize)
	if err != nil {
		return nil, err
	}
	var m bundlefmt.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", bundlefmt.ManifestName, err)
	}
	if m.Format != bundlefmt.FormatVersion {
		return nil, fmt.Errorf("%s: format %d, want %d", bundlefmt.ManifestName, m.Format, bundlefmt.FormatVersion)
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
	return b, nil
}

// Version returns the bundle's minor, e.g. "1.30".
func (b *Bundle) Version() string { return b.version }

// Source returns the bundle's provenance. Its maps are fresh copies.
func (b *Bundle) Source() Source {
	s := b.source
	s.SHA256 = maps.Clone(s.SHA256)
	s.GoModules = maps.Clone(s.GoModules)
	s.Objects = maps.Clone(s.Objects)
	s.Constraints = maps.Clone(s.Constraints)
	return s
}

// Names returns every definition name, sorted. It reads only the bundle's index.
func (b *Bundle) Names() []string {
	names := make([]string, len(b.defs))
	for i, f := range b.defs {
		names[i] = definitionName(f.Name)
	}
	return names
}

// Has reports whether the bundle holds the definition name. It reads only the index.
func (b *Bundle) Has(name string) bool {
	_, ok := b.find(name)
	return ok
}

// Definition returns the JSON of one definition, e.g. "io.k8s.api.core.v1.PodSpec", as fresh
// bytes the caller may keep. It decompresses only that definition. An unknown name is an
// error wrapping ErrNoDefinition.
func (b *Bundle) Definition(name string) ([]byte, error) {
	return b.AppendDefinition(nil, name)
}

// AppendDefinition appends the JSON of one definition to dst and returns
// the extended slice, so a caller decoding many definitions can reuse one
// buffer. Errors are those of Definition.
func (b *Bundle) AppendDefinition(dst []byte, name string) ([]byte, error) {
	f, ok := b.find(name)
	if !ok {
		return dst, fmt.Errorf("schemas: Kubernetes %s: %w: %q", b.version, ErrNoDefinition, name)
	}
	data, err := appendEntry(dst, f, bundlefmt.MaxDefinitionSize)
	if err != nil {
		return dst, fmt.Errorf("schemas: Kubernetes %s: %w", b.version, err)
	}
	return data, nil
}

// find looks name up by binary search over the sorted definition entries.
func (b *Bundle) find(name string) (*zip.File, bool) {
	if !bundlefmt.ValidName(name) {
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(b.defs, name, func(f *zip.File, name string) int {
		return strings.Compare(definitionName(f.Name), name)
	})
	if !ok {
		return nil, false
	}
	return b.defs[i], true
}

// Validate checks the whole bundle, decompressing every definition: the format version and
// provenance, sorted unique entries with valid names, every definition a JSON object, and
// every "$ref" a "#/definitions/X" whose X the bundle holds. Load does not call it (it
// would cost milliseconds per version); tests and `make schemas` do.
func (b *Bundle) Validate() error {
	var errs []error
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
	if len(b.defs) == 0 {
		errs = append(errs, errors.New("no definitions"))
	}
	for i, f := range b.defs {
		name := definitionName(f.Name)
		if !bundlefmt.ValidName(name) {
			errs = append(errs, fmt.Errorf("invalid entry name %q", f.Name))
			continue
		}
		if i > 0 && definitionName(b.defs[i-1].Name) >= name {
			errs = append(errs, fmt.Errorf("entry %q is out of order", f.Name))
		}
		data, err := readEntry(f, bundlefmt.MaxDefinitionSize)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var def map[string]any
		if err := dec.Decode(&def); err != nil {
			errs = append(errs, fmt.Errorf("definition %s: %w", name, err))
			continue
		}
		if dec.More() {
			errs = append(errs, fmt.Errorf("definition %s: trailing data", name))
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

// readEntry decompresses one zip entry of at most limit bytes. The zip reader checks the
// entry's CRC-32 and declared size.
func readEntry(f *zip.File, limit int64) ([]byte, error) {
	return appendEntry(nil, f, limit)
}

// appendEntry appends the content of f to dst, refusing more than limit
// bytes (the zip header's size is checked first, then what inflates).
func appendEntry(dst []byte, f *zip.File, limit int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(limit) {
		return dst, fmt.Errorf("%s: %d bytes exceeds the limit of %d", f.Name, f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return dst, fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rc.Close()
	start := len(dst)
	buf := bytes.NewBuffer(slices.Grow(dst, int(f.UncompressedSize64)+1))
	if _, err := buf.ReadFrom(io.LimitReader(rc, limit+1)); err != nil {
		return dst, fmt.Errorf("%s: %w", f.Name, err)
	}
	if int64(buf.Len()-start) > limit {
		return dst, fmt.Errorf("%s: exceeds the limit of %d bytes", f.Name, limit)
	}
	return buf.Bytes(), nil
}

func definitionName(entry string) string {
	return strings.TrimPrefix(entry, bundlefmt.DefinitionPrefix)
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
