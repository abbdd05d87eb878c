// Package bundlefmt defines the on-disk format of an embedded Kubernetes OpenAPI bundle and
// writes it. The reader lives in package schemas; both sides share the names and the
// Manifest type declared here, so the format is described in exactly one place.
//
// A bundle is a zip archive holding one deflated entry per definition,
// "definitions/<name>" (the definition's minified JSON), plus a stored (uncompressed)
// "manifest.json". Entries are
// sorted by name, so the definitions are in the order of their names, and carry a fixed modification time, so writing the same input twice
// yields identical bytes.
package bundlefmt

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// FormatVersion is the version of the bundle layout. Readers reject any other value.
// Version 2 added what the release's Go types declare: GoModules, Objects, Constraints, and
// the keywords they put into the definitions.
const FormatVersion = 2

// ManifestName is the zip entry holding the Manifest.
const ManifestName = "manifest.json"

// DefinitionPrefix precedes a definition's name to form its entry name. There is no suffix,
// so sorting entry names sorts definition names.
const DefinitionPrefix = "definitions/"

// Caps on decompressed sizes. The largest real definition is about 60 KiB and the largest
// manifest a few KiB; anything near these caps is corrupt or hostile.
const (
	MaxDefinitionSize = 4 << 20
	MaxManifestSize   = 1 << 20
)

// dosDate1980 is 1980-01-01 in MS-DOS date format, the fixed modification date of every
// entry. It is set through FileHeader.ModifiedDate, deprecated for general use, rather than
// FileHeader.Modified, which would add an extended-timestamp field to every entry: 18 bytes
// each, and a field every Load would parse.
const dosDate1980 = 1<<5 | 1

// Manifest records the provenance of a bundle.
type Manifest struct {
	// Format is FormatVersion at the time of writing.
	Format int `json:"format"`
	// KubernetesVersion is the release the definitions come from, e.g. "v1.30.14".
	KubernetesVersion string `json:"kubernetesVersion"`
	// Module is the Go module the sources were read from, e.g. "k8s.io/kubernetes@v1.30.14".
	Module string `json:"module"`
	// ModuleSum is the module's go.sum hash ("h1:..."), as reported by the go command.
	ModuleSum string `json:"moduleSum,omitempty"`
	// SHA256 maps each source file that contributed to the bundle to its hex SHA-256. Files of
	// Module are keyed by their path inside the module ("api/openapi-spec/swagger.json");
	// files borrowed from another module are keyed "<module>@<version>/<path>".
	SHA256 map[string]string `json:"sha256"`
	// DefaultsFrom is set when defaults were borrowed from another release's OpenAPI v3
	// documents because this release publishes none, e.g. "v1.23.17".
	DefaultsFrom string `json:"defaultsFrom,omitempty"`
	// Definitions is the number of definition entries.
	Definitions int `json:"definitions"`
	// DefaultsAdded is the number of "default" values copied from OpenAPI v3 documents.
	DefaultsAdded int `json:"defaultsAdded"`
	// GoModules maps "<module>@<version>" of each Go module whose declarations were read
	// (k8s.io/api@v0.30.14, ...) to its go.sum hash.
	GoModules map[string]string `json:"goModules"`
	// Objects classifies every property-less object definition, by name, and every object
	// definition whose Go type marshals itself (its swagger properties, if any, removed).
	Objects map[string]Object `json:"objects"`
	// Constraints counts the value-constraint keywords taken from the Go types' validation
	// markers, by keyword ("maxItems": 12).
	Constraints map[string]int `json:"constraints,omitempty"`
}

// Object is what the Go declaration of a property-less object definition says it holds.
type Object struct {
	// Kind is ObjectEmpty or ObjectArbitrary.
	Kind string `json:"kind"`
	// Decl is the declaration, "<module>@<version>/<file>:<line>".
	Decl string `json:"decl"`
	// Why is the property of the declaration that decided Kind.
	Why string `json:"why"`
}

// Kinds of property-less objects.
const (
	// ObjectEmpty is a struct without JSON fields: the definition is `type: object` and the
	// apiserver prunes whatever is written under it.
	ObjectEmpty = "empty"
	// ObjectArbitrary holds any JSON (runtime.RawExtension, apiextensions JSON, ...): the
	// definition carries PreserveUnknownFields.
	ObjectArbitrary = "arbitrary"
)

// PreserveUnknownFields is the extension an arbitrary-JSON definition carries.
const PreserveUnknownFields = "x-kubernetes-preserve-unknown-fields"

// IsPropertyless reports whether a decoded schema is an object (or untyped) with nothing
// inside: no properties, additionalProperties, items or junctors, and no $ref. Every such
// definition of a bundle is classified in Manifest.Objects.
func IsPropertyless(s map[string]any) bool {
	if _, ok := s["$ref"]; ok {
		return false
	}
	if t, ok := s["type"]; ok && t != "object" {
		return false
	}
	for _, k := range []string{"properties", "additionalProperties", "items", "allOf", "anyOf", "oneOf"} {
		if _, ok := s[k]; ok {
			return false
		}
	}
	return true
}

// KnownFormat reports whether the apiserver of Kubernetes 1.minor validates a format on a
// value of the schema type typ, as apiextensions-apiserver's supported formats list has it
// (pkg/apiserver/validation/formats.go); the apiserver drops any other format. Bundles hold
// only formats known to their minor, and the resolver emits only those.
func KnownFormat(minor int, typ, format string) bool {
	switch typ {
	case "", "string":
		return stringFormats[strings.ReplaceAll(format, "-", "")] || (minor >= 34 && k8sNameFormats[format])
	case "integer":
		return format == "int32" || format == "int64"
	case "number":
		return format == "float" || format == "double"
	}
	return false
}

// stringFormats are the string formats every supported apiserver recognises (dashes removed,
// as the apiserver compares them).
var stringFormats = map[string]bool{
	"bsonobjectid": true, "uri": true, "email": true, "hostname": true, "ipv4": true, "ipv6": true,
	"cidr": true, "mac": true, "uuid": true, "uuid3": true, "uuid4": true, "uuid5": true, "isbn": true,
	"isbn10": true, "isbn13": true, "creditcard": true, "ssn": true, "hexcolor": true, "rgbcolor": true,
	"byte": true, "password": true, "date": true, "duration": true, "datetime": true,
}

// k8sNameFormats are the formats the apiserver knows from 1.34 on.
var k8sNameFormats = map[string]bool{"k8s-short-name": true, "k8s-long-name": true}

// EntryName returns the zip entry name of a definition.
func EntryName(definition string) string {
	return DefinitionPrefix + definition
}

// ValidName reports whether a definition name can be stored: non-empty, printable ASCII,
// no '/' or '\\' and no leading '.'.
func ValidName(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || c == '/' || c == '\\' {
			return false
		}
	}
	return true
}

// Write writes a bundle to w. definitions maps each definition name to its JSON, which is
// compacted before it is stored; m.Format and m.Definitions are filled in. The output depends
// only on the arguments.
func Write(w io.Writer, m Manifest, definitions map[string][]byte) error {
	names := make([]string, 0, len(definitions))
	for name := range definitions {
		if !ValidName(name) {
			return fmt.Errorf("bundlefmt: invalid definition name %q", name)
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return errors.New("bundlefmt: no definitions")
	}
	slices.Sort(names)
	m.Format = FormatVersion
	m.Definitions = len(names)
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("bundlefmt: manifest: %w", err)
	}
	manifest = append(manifest, '\n')

	type entry struct {
		name   string
		method uint16
		data   []byte
	}
	entries := make([]entry, 0, len(names)+1)
	for _, name := range names {
		var buf bytes.Buffer
		if err := json.Compact(&buf, definitions[name]); err != nil {
			return fmt.Errorf("bundlefmt: definition %s: %w", name, err)
		}
		entries = append(entries, entry{EntryName(name), zip.Deflate, buf.Bytes()})
	}
	// The manifest is stored uncompressed: every Load reads it, and inflating it would cost
	// more than the few KiB it saves.
	entries = append(entries, entry{ManifestName, zip.Store, manifest})
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })

	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.name, Method: e.method}
		hdr.ModifiedDate = dosDate1980 //nolint:staticcheck // see dosDate1980
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return fmt.Errorf("bundlefmt: %s: %w", e.name, err)
		}
		if _, err := fw.Write(e.data); err != nil {
			return fmt.Errorf("bundlefmt: %s: %w", e.name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("bundlefmt: %w", err)
	}
	return nil
}
