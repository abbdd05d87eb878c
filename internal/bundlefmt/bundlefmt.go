// Package bundlefmt defines the on-disk format of an embedded Kubernetes OpenAPI bundle: it
// writes bundles (Write, for the generator) and reads them (Open, for package schemas), so
// the format is described in exactly one place.
//
// A bundle, data/<minor>.bundle, is a small index followed by chunks:
//
//	magic     "KCRBNDL\x07"
//	manifest  u32 length, then the Manifest as JSON
//	names     u32 length, then the definition names, sorted, each followed by '\n'
//	defs      u32 count, then per definition (in name order) six u32: the chunk, offset and
//	          length of its structure and of its descriptions (length 0: none)
//	chunks    u32 count, then per chunk three u32: offset in the file, length, CRC-32 (IEEE)
//	data      the chunks, stored as they are
//
// A span whose chunk number is the chunk count or more lies in the shared pool (pool.go):
// chunk (count + k) is the pool's chunk k. BuildPool moves every bundle's structures and
// descriptions there (the bundle keeps no chunk of its own); what Write writes has none.
//
// All integers are little-endian. A chunk holds consecutive byte strings, in name order, up
// to ChunkSize bytes (a larger one gets a chunk of its own); structures and descriptions are
// chunked apart, so a compile that drops descriptions never reads them. A compile reads a
// definition where it lies in the binary, with nothing to inflate and no memory of its own.
//
// A bundle holds each definition as the release publishes it (with the generator's
// additions, see package schemas), split losslessly in two (SplitDescriptions): its
// structure is the definition's compact JSON, keys sorted, without the "description" of
// any schema node; its descriptions are a compact JSON object from the JSON pointer of each
// schema node that had one to the text. JoinDescriptions puts them back, and gives the
// definition as Write was given it, byte for byte (when it was compact JSON with sorted keys,
// as the generator writes it). Writing the same input twice yields identical bytes.
package bundlefmt

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"
)

// FormatVersion is the version of the bundle layout. Readers reject any other value.
// Version 2 added what the release's Go types declare: GoModules, Objects, Constraints, and
// the keywords they put into the definitions. Version 7 stores every minor's definitions as
// published, their descriptions apart, in stored chunks, and no pre-rendered fragments.
const FormatVersion = 7

// Suffix ends a bundle's file name: data/1.37.bundle.
const Suffix = ".bundle"

// magic opens every bundle; its last byte is the format version.
const magic = "KCRBNDL\x07"

// ChunkSize is the size up to which Write and BuildPool fill a chunk.
const ChunkSize = 16 << 10

// Caps on sizes. The largest real definition is about 60 KiB (with descriptions) and the
// largest manifest some 20 KiB; anything near these caps is corrupt or hostile.
const (
	MaxDefinitionSize = 4 << 20
	MaxManifestSize   = 1 << 20
	MaxChunkSize      = MaxDefinitionSize
)

// Manifest records the provenance of a bundle.
type Manifest struct {
	// Format is FormatVersion at the time of writing. It and KubernetesVersion come first,
	// always written, so that DecodeHeader stops after them.
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

// Header is the part of a Manifest a reader needs to open a bundle.
type Header struct {
	Format            int    `json:"format"`
	KubernetesVersion string `json:"kubernetesVersion"`
}

// DecodeHeader decodes the Header of a manifest's JSON. Write puts its fields first, so the
// decoder stops after them: every process that compiles opens a bundle, and few read the
// rest of the manifest (some 15 KiB). The rest is not checked.
func DecodeHeader(manifest []byte) (Header, error) {
	var h Header
	dec := json.NewDecoder(bytes.NewReader(manifest))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h, errors.New("bundlefmt: the manifest is not a JSON object")
	}
	var format, version bool // seen
	for !(format && version) && dec.More() {
		t, err := dec.Token()
		if err != nil {
			return h, fmt.Errorf("bundlefmt: manifest: %w", err)
		}
		var dst any = new(json.RawMessage) // not a header field: skipped
		switch t {
		case "format":
			dst, format = &h.Format, true
		case "kubernetesVersion":
			dst, version = &h.KubernetesVersion, true
		}
		if err := dec.Decode(dst); err != nil {
			return h, fmt.Errorf("bundlefmt: manifest: %v: %w", t, err)
		}
	}
	return h, nil
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

// Write writes a bundle to w. definitions maps each definition name to its JSON, as
// published; each is split into its structure and descriptions (SplitDescriptions) and
// stored. m.Format and m.Definitions are filled in. The output depends only on the
// arguments.
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

	var structures, descriptions chunker
	defs := make([][6]uint32, len(names))
	var nameBlob bytes.Buffer
	for i, name := range names {
		nameBlob.WriteString(name)
		nameBlob.WriteByte('\n')
		structure, descs, err := SplitDescriptions(definitions[name])
		if err != nil {
			return fmt.Errorf("bundlefmt: definition %s: %w", name, err)
		}
		if len(structure)+len(descs) > MaxDefinitionSize {
			return fmt.Errorf("bundlefmt: definition %s: %d bytes, over the limit of %d", name, len(structure)+len(descs), MaxDefinitionSize)
		}
		defs[i][0], defs[i][1], defs[i][2] = structures.add(structure)
		if descs != nil {
			defs[i][3], defs[i][4], defs[i][5] = descriptions.add(descs)
		}
	}
	structures.flush()
	descriptions.flush()
	// Description chunks are numbered after the structure chunks.
	for i := range defs {
		if defs[i][5] > 0 {
			defs[i][3] += uint32(len(structures.chunks))
		}
	}
	var out bytes.Buffer
	if err := assemble(&out, manifest, nameBlob.String(), defs, append(structures.chunks, descriptions.chunks...)); err != nil {
		return err
	}
	if _, err := w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("bundlefmt: %w", err)
	}
	return nil
}

// chunker cuts a sequence of byte strings into chunks of about ChunkSize.
type chunker struct {
	chunks [][]byte
	cur    []byte
}

// add appends data and returns where it is: chunk, offset, length.
func (c *chunker) add(data []byte) (chunk, off, n uint32) {
	if len(c.cur) > 0 && len(c.cur)+len(data) > ChunkSize {
		c.flush()
	}
	off = uint32(len(c.cur))
	c.cur = append(c.cur, data...)
	return uint32(len(c.chunks)), off, uint32(len(data))
}

func (c *chunker) flush() {
	if len(c.cur) > 0 {
		c.chunks = append(c.chunks, c.cur)
		c.cur = nil
	}
}

// Reader reads a bundle Write (or BuildPool) wrote, in place: the index is checked at Open
// and read where it lies, and a span is returned where it lies. A chunk's CRC-32 is checked
// by Check, not on reads: what is read lies in the binary (as much to be trusted as its
// code, and every embedded bundle is checked by the tests), and summing a whole chunk to
// read one definition of it would touch every page of the chunk. A Reader is safe for
// concurrent use.
type Reader struct {
	// Manifest is the manifest's JSON (the bundle's own bytes).
	Manifest []byte

	data   []byte
	names  []string // sorted
	table  []byte   // the definition table: six u32 per definition
	chunks []chunk
	pool   *Pool // chunks numbered from len(chunks) on lie in it; nil: none do
}

type span struct{ chunk, off, n uint32 }

// chunk is a chunk's entry in a chunk table.
type chunk struct{ off, n, crc uint32 }

// def returns span k (0 structure, 1 descriptions) of definition i.
func (r *Reader) def(i, k int) span {
	t := r.table[24*i+12*k:]
	return span{binary.LittleEndian.Uint32(t), binary.LittleEndian.Uint32(t[4:]), binary.LittleEndian.Uint32(t[8:])}
}

// Open checks the frame of the bundle data: the magic and version, the sizes of the
// manifest, names and tables, and every chunk within bounds. A definition's spans are
// checked when it is read, and the names (sorted, unique, valid) by Check: a one-file run
// opens a bundle or two and reads a few dozen definitions of them (the tests Check every
// embedded bundle). Whatever the data, the Reader never reads outside it: a span outside
// its chunk is an error when read. The Reader reads data where it lies (package schemas
// passes the bundles embedded in the binary, never copied): data must not change while the
// Reader is in use, and what the Reader returns must not be changed.
func Open(data []byte) (*Reader, error) { return OpenPooled(data, nil) }

// OpenPooled is Open for a bundle whose spans may lie in pool (see Pool): a span's chunk
// number from the bundle's chunk count on is a chunk of the pool.
func OpenPooled(data []byte, pool *Pool) (*Reader, error) {
	r := &Reader{data: data, pool: pool}
	size := int64(len(data))
	pos := int64(0)
	read := func(n int64, what string) ([]byte, error) {
		if n < 0 || pos+n > size {
			return nil, fmt.Errorf("bundlefmt: truncated bundle (%s)", what)
		}
		b := data[pos : pos+n : pos+n]
		pos += n
		return b, nil
	}
	u32 := func(what string) (uint32, error) {
		b, err := read(4, what)
		if err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint32(b), nil
	}
	m, err := read(int64(len(magic)), "magic")
	if err != nil {
		return nil, err
	}
	if string(m[:len(magic)-1]) != magic[:len(magic)-1] {
		return nil, errors.New("bundlefmt: not a bundle")
	}
	if m[len(magic)-1] != magic[len(magic)-1] {
		return nil, fmt.Errorf("bundlefmt: bundle format %d, want %d", m[len(magic)-1], FormatVersion)
	}
	n, err := u32("manifest length")
	if err != nil {
		return nil, err
	}
	if n > MaxManifestSize {
		return nil, fmt.Errorf("bundlefmt: a manifest of %d bytes, over the limit of %d", n, MaxManifestSize)
	}
	if r.Manifest, err = read(int64(n), "manifest"); err != nil {
		return nil, err
	}
	if n, err = u32("names length"); err != nil {
		return nil, err
	}
	blob, err := read(int64(n), "names")
	if err != nil {
		return nil, err
	}
	if len(blob) > 0 && blob[len(blob)-1] != '\n' {
		return nil, errors.New("bundlefmt: the names do not end in a newline")
	}
	if len(blob) > 1 {
		r.names = strings.Split(string(blob[:len(blob)-1]), "\n")
	}
	if n, err = u32("definition count"); err != nil {
		return nil, err
	}
	if int(n) != len(r.names) {
		return nil, fmt.Errorf("bundlefmt: %d definitions but %d names", n, len(r.names))
	}
	if r.table, err = read(int64(n)*24, "definition table"); err != nil {
		return nil, err
	}
	if n, err = u32("chunk count"); err != nil {
		return nil, err
	}
	if n > uint32(size/12) {
		return nil, errors.New("bundlefmt: truncated bundle (chunk table)")
	}
	table, err := read(int64(n)*12, "chunk table")
	if err != nil {
		return nil, err
	}
	if r.chunks, err = readChunkTable(table, n, pos, size); err != nil {
		return nil, err
	}
	// One definition's spans (a pooled bundle opened without its pool fails here); the
	// others' are checked as they are read.
	if len(r.names) > 0 {
		for k := range 2 {
			if s := r.def(0, k); s.n > 0 || k == 0 {
				if _, ok := r.chunkLen(int(s.chunk)); !ok {
					return nil, fmt.Errorf("bundlefmt: definition %s lies outside its chunk", r.names[0])
				}
			}
		}
	}
	return r, nil
}

// readChunkTable reads a table of n chunks whose data must lie in [start, size).
func readChunkTable(table []byte, n uint32, start, size int64) ([]chunk, error) {
	chunks := make([]chunk, n)
	for i := range chunks {
		t := table[12*i:]
		c := &chunks[i]
		c.off, c.n, c.crc = binary.LittleEndian.Uint32(t), binary.LittleEndian.Uint32(t[4:]), binary.LittleEndian.Uint32(t[8:])
		if int64(c.off) < start || int64(c.off)+int64(c.n) > size {
			return nil, fmt.Errorf("bundlefmt: chunk %d lies outside its file", i)
		}
		if c.n > MaxChunkSize {
			return nil, fmt.Errorf("bundlefmt: chunk %d has %d bytes, over the limit of %d", i, c.n, MaxChunkSize)
		}
	}
	return chunks, nil
}

// checkNames checks that the names are valid, sorted and unique.
func (r *Reader) checkNames() error {
	for i, name := range r.names {
		if !ValidName(name) {
			return fmt.Errorf("bundlefmt: invalid definition name %q", name)
		}
		if i > 0 && r.names[i-1] >= name {
			return fmt.Errorf("bundlefmt: definition names not sorted: %q after %q", name, r.names[i-1])
		}
	}
	return nil
}

// spanData returns the bytes of span s of definition i, in its chunk (shared: never change
// them), or an error when the span lies outside it.
func (r *Reader) spanData(i int, s span) ([]byte, error) {
	c, ok := r.chunk(int(s.chunk))
	if !ok || uint64(s.off)+uint64(s.n) > uint64(c.n) {
		return nil, fmt.Errorf("bundlefmt: definition %s lies outside its chunk", r.names[i])
	}
	data := r.chunkData(int(s.chunk))
	return data[s.off : s.off+s.n : s.off+s.n], nil
}

// chunk returns the entry of chunk i, the bundle's own or the pool's.
func (r *Reader) chunk(i int) (chunk, bool) {
	if i < len(r.chunks) {
		return r.chunks[i], true
	}
	if r.pool != nil && i-len(r.chunks) < len(r.pool.chunks) {
		return r.pool.chunks[i-len(r.chunks)], true
	}
	return chunk{}, false
}

// chunkLen returns the length of chunk i, the bundle's own or the pool's.
func (r *Reader) chunkLen(i int) (uint32, bool) {
	c, ok := r.chunk(i)
	return c.n, ok
}

// chunkData returns the bytes of chunk i, which exists (chunk).
func (r *Reader) chunkData(i int) []byte {
	if i < len(r.chunks) {
		c := r.chunks[i]
		return r.data[c.off : c.off+c.n : c.off+c.n]
	}
	return r.pool.chunkData(i - len(r.chunks))
}

// Names returns the definition names, sorted. The slice is shared: do not modify it.
func (r *Reader) Names() []string { return r.names }

// Find returns the index of a definition by name.
func (r *Reader) Find(name string) (int, bool) {
	return slices.BinarySearch(r.names, name)
}

// AppendStructure appends the structure of definition i (see Find) to dst.
func (r *Reader) AppendStructure(dst []byte, i int) ([]byte, error) {
	data, err := r.Structure(i)
	return append(dst, data...), err
}

// AppendDescriptions appends the descriptions of definition i to dst; nothing when it has
// none.
func (r *Reader) AppendDescriptions(dst []byte, i int) ([]byte, error) {
	data, err := r.Descriptions(i)
	if data == nil {
		return dst, err
	}
	return append(dst, data...), err
}

// Structure returns the structure of definition i, the bytes AppendStructure appends, in
// the chunk's own memory (the bundle's or the pool's), shared by every caller for the life
// of the Reader: read them, never change them.
func (r *Reader) Structure(i int) ([]byte, error) { return r.spanData(i, r.def(i, 0)) }

// Descriptions returns what AppendDescriptions appends, in the chunk's own memory (nil when
// there are none): shared as Structure's are.
func (r *Reader) Descriptions(i int) ([]byte, error) {
	s := r.def(i, 1)
	if s.n == 0 {
		return nil, nil
	}
	return r.spanData(i, s)
}

// Check checks what Open leaves to reads and to Check: the names (valid, sorted, unique),
// every definition's spans, and every chunk against its CRC-32, those of the pool its
// definitions lie in included.
func (r *Reader) Check() error {
	var errs []error
	if err := r.checkNames(); err != nil {
		errs = append(errs, err)
	}
	for i := range r.names {
		for k := range 2 {
			if s := r.def(i, k); s.n > 0 || k == 0 {
				if _, err := r.spanData(i, s); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	for i, c := range r.chunks {
		if crc32.ChecksumIEEE(r.chunkData(i)) != c.crc {
			errs = append(errs, fmt.Errorf("bundlefmt: chunk %d: %w", i, errCRC))
		}
	}
	if r.pool != nil {
		if err := r.pool.Check(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

var errCRC = errors.New("CRC-32 mismatch")
