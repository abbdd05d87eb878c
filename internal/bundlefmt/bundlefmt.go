// Package bundlefmt defines the on-disk format of an embedded Kubernetes OpenAPI bundle: it
// writes bundles (Write, for the generator) and reads them (Open, for package schemas), so
// the format is described in exactly one place.
//
// A bundle, data/<minor>.bundle, is a small index followed by deflated chunks:
//
//	magic     "KCRBNDL\x04"
//	manifest  u32 length, then the Manifest as JSON, stored
//	names     u32 length, then the definition names, sorted, each followed by '\n'
//	defs      u32 count, then per definition (in name order) nine u32: the chunk, offset and
//	          length of its structure, of its descriptions and of its fragments (length 0:
//	          none)
//	chunks    u32 count, then per chunk four u32: offset in the file, deflated length (0: the
//	          chunk is stored as it is), inflated length, CRC-32 (IEEE) of the inflated bytes
//	data      the chunks, raw deflate (RFC 1951) or stored
//
// A span whose chunk number is the chunk count or more lies in the shared pool (pool.go):
// chunk (count + k) is the pool's chunk k. BuildPool moves every Normalized bundle's
// structures, descriptions and fragments there (the bundle keeps no chunk of its own);
// what Write writes has none.
//
// All integers are little-endian. A chunk holds consecutive definitions, in name order, up
// to ChunkSize inflated bytes (a larger definition gets a chunk of its own); structures,
// descriptions and fragments are chunked apart, so a compile that drops descriptions never
// inflates them. What lies in the pool (and the structures and fragments of a bundle whose
// manifest says Uncompressed) is stored as it is: a compile reads it where it lies in the
// binary, with nothing to inflate and no memory of its own.
// Inflating one chunk for many definitions is what makes the format fast and small: a
// deflate stream per definition spent most of its time building Huffman tables, and could
// not share a word between definitions (the 1.37 bundle: 742 KB as a zip with one entry per
// definition, 323 KB as chunks).
//
// A structure is the definition's compact JSON. In a bundle whose manifest says Normalized
// (Kubernetes 1.16 and later) that is the definition as resolver.Prebuild makes it,
// structural and without descriptions, and its descriptions are a compact JSON object from
// the JSON pointer of each schema node to its text. Its fragments, when it has them, are the
// YAML a compile without descriptions writes for it, pre-rendered (resolver.PrebuildFragments
// defines their encoding). Other bundles store the swagger's
// definitions whole, descriptions inline. Writing the same input twice yields identical
// bytes.
package bundlefmt

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// FormatVersion is the version of the bundle layout. Readers reject any other value.
// Version 2 added what the release's Go types declare: GoModules, Objects, Constraints, and
// the keywords they put into the definitions. Version 3 replaced the zip archive by chunks
// and stores the definitions of 1.16 and later structural, their descriptions apart
// (Normalized). Version 4 stores chunks uncompressed where the manifest says Uncompressed.
// Version 5 lets a bundle's structures and fragments lie in the shared pool (Pool). Version
// 6 has the same layout; its fragments hold a second section, the entries of a compile that
// keeps the descriptions (resolver.PrebuildFragments), so a reader of version 5 would
// misread them.
const FormatVersion = 6

// Suffix ends a bundle's file name: data/1.37.bundle.
const Suffix = ".bundle"

// magic opens every bundle; its last byte is the format version.
const magic = "KCRBNDL\x06"

// ChunkSize is the inflated size up to which Write fills a chunk.
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
	// Format is FormatVersion at the time of writing.
	Format int `json:"format"`
	// KubernetesVersion is the release the definitions come from, e.g. "v1.30.14".
	KubernetesVersion string `json:"kubernetesVersion"`
	// Normalized says the definitions are stored as resolver.Prebuild makes them: imported,
	// structural for this minor (but for what depends on other definitions), and with their
	// descriptions after a newline (see the package documentation). Bundles before 1.16 store
	// the swagger's definitions as they are, descriptions inline. It comes third, always
	// written, so that DecodeHeader stops after it.
	Normalized bool `json:"normalized"`
	// Uncompressed says Write stored the structure and fragment chunks as they are, not
	// deflated. The generator no longer sets it: BuildPool stores every Normalized bundle's
	// in the shared pool, and drops it.
	Uncompressed bool `json:"uncompressed,omitempty"`
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
	Normalized        bool   `json:"normalized"`
}

// DecodeHeader decodes the Header of a manifest's JSON. Write puts its fields first, so the
// decoder stops after them: every process that compiles opens a bundle, and decoding the
// whole manifest (some 15 KiB) had been a tenth of opening it. The rest is not checked.
func DecodeHeader(manifest []byte) (Header, error) {
	var h Header
	dec := json.NewDecoder(bytes.NewReader(manifest))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h, errors.New("bundlefmt: the manifest is not a JSON object")
	}
	var format, version, normalized bool // seen
	for !(format && version && normalized) && dec.More() {
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
		case "normalized":
			dst, normalized = &h.Normalized, true
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

// DefaultKey is where a Normalized bundle keeps Kubernetes' defaults: a compile copies into a
// CRD only those of list-map keys (the apiserver would write any other into every object),
// so the defaults travel under a key no schema uses. Other bundles keep them as "default".
const DefaultKey = "x-k8s-crd-resolver-default"

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

// Write writes a bundle to w. definitions maps each definition name to its JSON (in a
// Normalized bundle, optionally followed by a newline and its descriptions), which is
// compacted before it is stored; fragments (Normalized bundles only; may be nil) maps a
// definition name to its rendered fragments (see resolver.PrebuildFragments), stored as they
// are, laid out in fragmentOrder (the rest by name). m.Format and m.Definitions are filled
// in. The output depends only on the arguments.
func Write(w io.Writer, m Manifest, definitions, fragments map[string][]byte, fragmentOrder []string) error {
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

	if len(fragments) > 0 && !m.Normalized {
		return errors.New("bundlefmt: fragments in a bundle that is not Normalized")
	}
	for name := range fragments {
		if _, ok := definitions[name]; !ok {
			return fmt.Errorf("bundlefmt: fragments of %s, which is no definition", name)
		}
	}
	var structures, descriptions, frags chunker
	defs := make([][9]uint32, len(names))
	var nameBlob bytes.Buffer
	for i, name := range names {
		nameBlob.WriteString(name)
		nameBlob.WriteByte('\n')
		// Prebuild's JSON is compact: its first newline ends the structure.
		def, descs, split := definitions[name], []byte(nil), false
		if m.Normalized {
			def, descs, split = bytes.Cut(def, []byte("\n"))
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, def); err != nil {
			return fmt.Errorf("bundlefmt: definition %s: %w", name, err)
		}
		if buf.Len() > MaxDefinitionSize {
			return fmt.Errorf("bundlefmt: definition %s: %d bytes, over the limit of %d", name, buf.Len(), MaxDefinitionSize)
		}
		defs[i][0], defs[i][1], defs[i][2] = structures.add(buf.Bytes())
		if split {
			buf.Reset()
			if err := json.Compact(&buf, descs); err != nil {
				return fmt.Errorf("bundlefmt: descriptions of definition %s: %w", name, err)
			}
			if buf.Len() > MaxDefinitionSize {
				return fmt.Errorf("bundlefmt: descriptions of definition %s: %d bytes, over the limit of %d", name, buf.Len(), MaxDefinitionSize)
			}
			defs[i][3], defs[i][4], defs[i][5] = descriptions.add(buf.Bytes())
		}
	}
	// Fragments in the order given (what a compile reads together lies together), then the
	// rest by name.
	index := make(map[string]int, len(names))
	for i, name := range names {
		index[name] = i
	}
	done := map[string]bool{}
	for _, name := range append(slices.Clone(fragmentOrder), names...) {
		f := fragments[name]
		if done[name] || len(f) == 0 {
			continue
		}
		done[name] = true
		if len(f) > MaxDefinitionSize {
			return fmt.Errorf("bundlefmt: fragments of definition %s: %d bytes, over the limit of %d", name, len(f), MaxDefinitionSize)
		}
		i := index[name]
		defs[i][6], defs[i][7], defs[i][8] = frags.add(f)
	}
	structures.flush()
	descriptions.flush()
	frags.flush()
	// Description chunks are numbered after the structure chunks, fragment chunks after them.
	for i := range defs {
		if defs[i][5] > 0 {
			defs[i][3] += uint32(len(structures.chunks))
		}
		if defs[i][8] > 0 {
			defs[i][6] += uint32(len(structures.chunks) + len(descriptions.chunks))
		}
	}
	chunks := append(append(structures.chunks, descriptions.chunks...), frags.chunks...)
	compressed := make([][]byte, len(chunks))
	firstDescription, firstFragment := len(structures.chunks), len(structures.chunks)+len(descriptions.chunks)
	for i, c := range chunks {
		if m.Uncompressed && (i < firstDescription || i >= firstFragment) {
			continue // stored: compressed[i] stays nil
		}
		var buf bytes.Buffer
		fw, err := flate.NewWriter(&buf, flate.BestCompression)
		if err != nil {
			return fmt.Errorf("bundlefmt: %w", err)
		}
		if _, err := fw.Write(c); err != nil {
			return fmt.Errorf("bundlefmt: %w", err)
		}
		if err := fw.Close(); err != nil {
			return fmt.Errorf("bundlefmt: %w", err)
		}
		compressed[i] = buf.Bytes()
	}

	raw := make([]rawChunk, len(chunks))
	for i, c := range chunks {
		raw[i] = rawChunk{data: c, ulen: uint32(len(c)), crc: crc32.ChecksumIEEE(c)}
		if compressed[i] != nil {
			raw[i].data, raw[i].clen = compressed[i], uint32(len(compressed[i]))
		}
	}
	var out bytes.Buffer
	if err := assemble(&out, manifest, nameBlob.String(), defs, raw); err != nil {
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

// Reader reads a bundle Write wrote, in place: the index is checked at Open and read where
// it lies, a stored chunk is returned where it lies, and a deflated chunk is inflated, and
// its CRC-32 checked, the first time a definition in it is read, then kept for the life of
// the Reader. A stored chunk's CRC-32 is checked by Check, not on reads: what is stored
// lies in the binary (as much to be trusted as its code, and every embedded bundle is
// checked by the tests), and summing a whole chunk to read one definition of it touched
// every page of the chunk (a twentieth of a one-file run). A Reader is safe for
// concurrent use.
type Reader struct {
	// Manifest is the manifest's JSON (the bundle's own bytes).
	Manifest []byte

	data   []byte
	names  []string // sorted
	table  []byte   // the definition table: nine u32 per definition
	chunks []chunk
	pool   *Pool // chunks numbered from len(chunks) on lie in it; nil: none do
}

type span struct{ chunk, off, n uint32 }

// chunkHead is a chunk's entry in the chunk table: all a pool keeps of one (its chunks are
// stored, so their data is where they lie; 16 bytes a chunk, not chunk's 72: a process that
// opens the pool touches its table, 554 chunks).
type chunkHead struct {
	off, clen, ulen, crc uint32 // clen 0: stored
}

type chunk struct {
	chunkHead

	once sync.Once
	data []byte
	err  error
}

// def returns span k (0 structure, 1 descriptions, 2 fragments) of definition i.
func (r *Reader) def(i, k int) span {
	t := r.table[36*i+12*k:]
	return span{binary.LittleEndian.Uint32(t), binary.LittleEndian.Uint32(t[4:]), binary.LittleEndian.Uint32(t[8:])}
}

// Open checks the frame of the bundle data: the magic and version, the sizes of the
// manifest, names and tables, and every chunk within bounds. A definition's spans are
// checked when it is read, and the names (sorted, unique, valid) by Check: a one-file run
// opens a bundle or two, reads a few dozen definitions of them, and checking all 900
// names and 2,700 spans at Open took it longer than those reads (the tests Check every
// embedded bundle). Whatever the data, the Reader never reads outside it: a span outside
// its chunk is an error when read. The Reader reads data where it lies
// (the bundles embedded in a binary are its read-only data): data must not change while
// the Reader is in use, and what the Reader returns must not be changed.
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
	// Each name is a substring of the bundle's own bytes, which do not change (see above).
	if len(blob) > 1 {
		all := unsafe.String(&blob[0], len(blob)-1)
		r.names = strings.Split(all, "\n")
	}
	if n, err = u32("definition count"); err != nil {
		return nil, err
	}
	if int(n) != len(r.names) {
		return nil, fmt.Errorf("bundlefmt: %d definitions but %d names", n, len(r.names))
	}
	if r.table, err = read(int64(n)*36, "definition table"); err != nil {
		return nil, err
	}
	if n, err = u32("chunk count"); err != nil {
		return nil, err
	}
	if n > uint32(size/16) {
		return nil, errors.New("bundlefmt: truncated bundle (chunk table)")
	}
	table, err := read(int64(n)*16, "chunk table")
	if err != nil {
		return nil, err
	}
	r.chunks = make([]chunk, n)
	for i := range r.chunks {
		v := func(j int) uint32 { return binary.LittleEndian.Uint32(table[16*i+4*j:]) }
		c := &r.chunks[i]
		c.off, c.clen, c.ulen, c.crc = v(0), v(1), v(2), v(3)
		stored := int64(c.clen)
		if c.clen == 0 {
			stored = int64(c.ulen)
		}
		if int64(c.off) < pos || int64(c.off)+stored > size {
			return nil, fmt.Errorf("bundlefmt: chunk %d lies outside the bundle", i)
		}
		if c.ulen > MaxChunkSize {
			return nil, fmt.Errorf("bundlefmt: chunk %d inflates to %d bytes, over the limit of %d", i, c.ulen, MaxChunkSize)
		}
	}
	// One definition's spans (a pooled bundle opened without its pool fails here); the
	// others' are checked as they are read.
	if len(r.names) > 0 {
		for k := range 3 {
			if s := r.def(0, k); s.n > 0 || k == 0 {
				if _, ok := r.chunkLen(int(s.chunk)); !ok {
					return nil, fmt.Errorf("bundlefmt: definition %s lies outside its chunk", r.names[0])
				}
			}
		}
	}
	return r, nil
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
	if ulen, ok := r.chunkLen(int(s.chunk)); !ok || uint64(s.off)+uint64(s.n) > uint64(ulen) {
		return nil, fmt.Errorf("bundlefmt: definition %s lies outside its chunk", r.names[i])
	}
	_, data, err := r.chunk(int(s.chunk))
	if err != nil {
		return nil, err
	}
	return data[s.off : s.off+s.n : s.off+s.n], nil
}

// chunkLen returns the inflated length of chunk i, the bundle's own or the pool's.
func (r *Reader) chunkLen(i int) (uint32, bool) {
	if i < len(r.chunks) {
		return r.chunks[i].ulen, true
	}
	if r.pool != nil && i-len(r.chunks) < len(r.pool.chunks) {
		return r.pool.chunks[i-len(r.chunks)].ulen, true
	}
	return 0, false
}

// Names returns the definition names, sorted. The slice is shared: do not modify it.
func (r *Reader) Names() []string { return r.names }

// Find returns the index of a definition by name.
func (r *Reader) Find(name string) (int, bool) {
	return slices.BinarySearch(r.names, name)
}

// AppendStructure appends the structure of definition i (see Find) to dst.
func (r *Reader) AppendStructure(dst []byte, i int) ([]byte, error) {
	return r.appendSpan(dst, i, r.def(i, 0))
}

// AppendDescriptions appends the descriptions of definition i to dst; nothing when it has
// none (and in bundles that are not Normalized).
func (r *Reader) AppendDescriptions(dst []byte, i int) ([]byte, error) {
	s := r.def(i, 1)
	if s.n == 0 {
		return dst, nil
	}
	return r.appendSpan(dst, i, s)
}

// Structure returns the structure of definition i, the bytes AppendStructure appends, in
// the chunk's own memory: shared as Fragments' are.
func (r *Reader) Structure(i int) ([]byte, error) { return r.spanData(i, r.def(i, 0)) }

// Descriptions returns what AppendDescriptions appends, in the chunk's own memory (nil when
// there are none): shared as Fragments' are.
func (r *Reader) Descriptions(i int) ([]byte, error) {
	s := r.def(i, 1)
	if s.n == 0 {
		return nil, nil
	}
	return r.spanData(i, s)
}

// Fragments returns the fragments of definition i, nil when it has none. The bytes are the
// chunk's own (the bundle's, when it is stored), shared by every caller for the life of the
// Reader: read them, never change them.
func (r *Reader) Fragments(i int) ([]byte, error) {
	s := r.def(i, 2)
	if s.n == 0 {
		return nil, nil
	}
	return r.spanData(i, s)
}

func (r *Reader) appendSpan(dst []byte, i int, s span) ([]byte, error) {
	data, err := r.spanData(i, s)
	if err != nil {
		return dst, err
	}
	return append(dst, data...), nil
}

// Check checks what Open leaves to reads and to Check: the names (valid, sorted, unique),
// every definition's spans, and every chunk, inflated, against its CRC-32, those of the
// pool its definitions lie in included.
func (r *Reader) Check() error {
	var errs []error
	if err := r.checkNames(); err != nil {
		errs = append(errs, err)
	}
	for i := range r.names {
		for k := range 3 {
			if s := r.def(i, k); s.n > 0 || k == 0 {
				if _, err := r.spanData(i, s); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	for i := range r.chunks {
		if err := checkStored(r.chunk(i)); err != nil {
			errs = append(errs, fmt.Errorf("bundlefmt: chunk %d: %w", i, err))
		} else if c := &r.chunks[i]; c.err != nil {
			errs = append(errs, c.err) // inflating it failed: the error names the chunk
		}
	}
	if r.pool != nil {
		if err := r.pool.Check(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Check checks the CRC-32 of every chunk of the pool.
func (p *Pool) Check() error {
	var errs []error
	for i := range p.chunks {
		if err := checkStored(p.chunk(i)); err != nil {
			errs = append(errs, fmt.Errorf("bundlefmt: pool chunk %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// checkStored checks the CRC-32 of a stored chunk (a deflated one's was checked as it was
// inflated).
func checkStored(c *chunkHead, data []byte, err error) error {
	if err == nil && c.clen == 0 && crc32.ChecksumIEEE(data) != c.crc {
		return errCRC
	}
	return nil
}

var errCRC = errors.New("CRC-32 mismatch")

// inflaters reuses flate readers (each holds some 40 KB of tables).
var inflaters sync.Pool

// chunk returns chunk i inflated, inflating it on first use; from len(r.chunks) on, a
// chunk of the pool.
func (r *Reader) chunk(i int) (*chunkHead, []byte, error) {
	if i >= len(r.chunks) {
		return r.pool.chunk(i - len(r.chunks))
	}
	c := &r.chunks[i]
	c.once.Do(func() {
		c.data, c.err = inflate(r.data, i, &c.chunkHead)
	})
	return &c.chunkHead, c.data, c.err
}

func inflate(all []byte, i int, c *chunkHead) ([]byte, error) {
	var data []byte
	if c.clen == 0 {
		return all[c.off : c.off+c.ulen : c.off+c.ulen], nil // its CRC-32: Check
	} else {
		src := bytes.NewReader(all[c.off : c.off+c.clen])
		fr, _ := inflaters.Get().(io.ReadCloser)
		if fr == nil {
			fr = flate.NewReader(src)
		} else if err := fr.(flate.Resetter).Reset(src, nil); err != nil {
			return nil, fmt.Errorf("bundlefmt: chunk %d: %w", i, err)
		}
		defer inflaters.Put(fr)
		data = make([]byte, c.ulen)
		if _, err := io.ReadFull(fr, data); err != nil {
			return nil, fmt.Errorf("bundlefmt: chunk %d: %w", i, err)
		}
		var one [1]byte
		if n, err := fr.Read(one[:]); n != 0 || err != io.EOF {
			return nil, fmt.Errorf("bundlefmt: chunk %d inflates to more than its %d bytes", i, c.ulen)
		}
	}
	if crc32.ChecksumIEEE(data) != c.crc {
		return nil, fmt.Errorf("bundlefmt: chunk %d: %w", i, errCRC)
	}
	return data, nil
}
