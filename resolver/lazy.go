package resolver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"unsafe"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// Lazy definitions: a compile without descriptions for the minor of a
// bundle that stores fragments (1.16 and later), or against a pinned
// minor that settles for it (settles), never decodes the definitions its
// $refs reach through other definitions; nor does a compile that keeps
// the descriptions untruncated, against the newest minors (their bundles
// store the fragments of such a compile too).
//
// `make schemas` resolves every definition as a compile would
// (PrebuildFragments) and stores, for each top-level value of it that is a
// non-empty mapping (its properties, items, additionalProperties...), an
// entry: the YAML the emitter writes for that value, the compact-JSON cost
// the budget counts for it, and the warnings resolving the definition
// raises. A $ref site copies its target's top-level keys, never their
// values, so an entry of one definition that holds an entry of another
// stores a reference to it: a fragment is text, references (each with the
// indentation it is written at), text.
//
// A compile then decodes only the definitions the template's own $refs
// name: their top-level values become *lazyEntry, opaque to every pass
// that does not look inside them (the emitter writes the fragment, the
// budget adds the cost). A pass that looks inside one (list-map keys,
// allOf merging, v1beta1 defaults, a JSON patch's path, Document.Object)
// gets the value resolved, once per Compiler (materialize): exactly what
// the entry stands for, its own values decoded, the entries they hold
// still lazy. PrebuildFragments checks every
// fragment against the emitter and every cost against the measurer when
// the bundle is made.
//
// A definition's stored entries have two sections (parseEntries): those
// of a compile without descriptions, and, for the newest minors, those of
// a compile that keeps them untruncated, their texts holding the
// descriptions (a pass that puts descriptions back leaves alone what an
// entry stands for: addDescriptions). Encoding of a section (integers
// uvarint, strings a length then the bytes): the number of entries; per entry (keys sorted) its key,
// its cost (nodes, bytes, indent, depth) and its segments (a count, then
// 't' and a text, or 'r', a definition name, a key and an indentation);
// then the warnings, as JSON.

// entrySource is implemented by sources (such as *schemas.Bundle) that
// store entries.
type entrySource interface {
	// Fragments returns the encoded entries of a definition, nil when it
	// has none; shared bytes, never changed.
	Fragments(name string) ([]byte, error)
}

// lazyEntry stands for the resolved value of key of definition name.
type lazyEntry struct {
	store *lazyStore
	name  string
	key   string
	cost  cost
}

// value returns the entry resolved in full (shared: never modify it).
func (l *lazyEntry) value() (map[string]any, error) {
	root, err := l.store.materialize(l.name)
	if err != nil {
		return nil, err
	}
	m, ok := root[l.key].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: definition %s resolves to no mapping under %s", ErrInput, l.name, l.key)
	}
	return m, nil
}

// mustValue is value for callers that cannot fail: what it resolves was
// resolved when the bundle was made, so only a corrupt bundle fails.
func (l *lazyEntry) mustValue() map[string]any {
	m, err := l.value()
	if err != nil {
		panic(fmt.Sprintf("resolver: entry %s.%s of the Kubernetes %s bundle: %v", l.name, l.key, l.store.version, err))
	}
	return m
}

// asSchema returns v as a schema mapping, resolving a lazy entry in full;
// nil when v is neither.
func asSchema(v any) map[string]any {
	switch t := v.(type) {
	case map[string]any:
		return t
	case *lazyEntry:
		return t.mustValue()
	}
	return nil
}

// materializeAll returns v with every lazy entry resolved in full,
// copying the maps and lists on the way to one (the others stay shared);
// it reports whether there was any. A resolved entry holds entries of its
// own (materialize), resolved in turn; each entry in full is kept by its
// store, and each map is copied once per call, however often it is
// shared.
func materializeAll(v any) (any, bool) {
	return deepen(v, map[unsafe.Pointer]deepened{})
}

type deepened struct {
	v       any
	changed bool
}

func deepen(v any, memo map[unsafe.Pointer]deepened) (any, bool) {
	switch t := v.(type) {
	case *lazyEntry:
		return t.deepValue(), true
	case map[string]any:
		id := mapID(t)
		if d, ok := memo[id]; ok {
			return d.v, d.changed
		}
		var out map[string]any
		for k, x := range t {
			if nx, changed := deepen(x, memo); changed {
				if out == nil {
					out = maps.Clone(t)
				}
				out[k] = nx
			}
		}
		if out != nil {
			memo[id] = deepened{out, true}
			return out, true
		}
		memo[id] = deepened{t, false}
	case []any:
		var out []any
		for i, x := range t {
			if nx, changed := deepen(x, memo); changed {
				if out == nil {
					out = slices.Clone(t)
				}
				out[i] = nx
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// deepValue returns the entry resolved in full, no lazy entry left in
// it (shared: never modify it).
func (l *lazyEntry) deepValue() map[string]any {
	k := fragKey{l.name, l.key}
	l.store.mu.Lock()
	m, ok := l.store.deep[k]
	l.store.mu.Unlock()
	if ok {
		return m
	}
	v, _ := materializeAll(l.mustValue())
	m = v.(map[string]any)
	l.store.mu.Lock()
	if l.store.deep == nil {
		l.store.deep = map[fragKey]map[string]any{}
	}
	if have, ok := l.store.deep[k]; ok { // another goroutine's, equal
		m = have
	} else {
		l.store.deep[k] = m
	}
	l.store.mu.Unlock()
	return m
}

// lazyDef is the stored entries of one definition.
type lazyDef struct {
	entries  []lazyEntryData // sorted by key; a definition has a few
	warnings []bundleWarning // relative to the definition, as cachedTarget keeps them
}

// lazyEntryData is one entry: its cost, and its fragment's segments as
// encodeSegs writes them, decoded as they are written out (a compile reads
// hundreds of entries, and decoding them into values had been a fifth of
// what a one-file run allocates).
type lazyEntryData struct {
	key  string
	cost cost
	n    int    // segments
	segs []byte // encoded, checked when the entries were parsed
}

// entry returns the entry of key.
func (d *lazyDef) entry(key string) (lazyEntryData, bool) {
	for _, e := range d.entries {
		if e.key == key {
			return e, true
		}
	}
	return lazyEntryData{}, false
}

// each calls f with each segment of e, in order.
func (e lazyEntryData) each(f func(fragSeg) error) error {
	for rest := e.segs; len(rest) > 0; {
		s, next, err := decodeSeg(rest)
		if err != nil {
			return err
		}
		if err := f(s); err != nil {
			return err
		}
		rest = next
	}
	return nil
}

// encodeSegs encodes segments: 't' and the text, or 'r', the entry's
// definition and key, and its indentation (lengths and numbers as
// uvarints).
func encodeSegs(segs []fragSeg) []byte {
	var b []byte
	num := func(v int64) { b = binary.AppendUvarint(b, uint64(v)) }
	str := func(s []byte) { num(int64(len(s))); b = append(b, s...) }
	for _, s := range segs {
		if s.text != nil {
			b = append(b, 't')
			str(s.text)
			continue
		}
		b = append(b, 'r')
		str([]byte(s.ref.name))
		str([]byte(s.ref.key))
		num(int64(s.indent))
	}
	return b
}

// decodeSeg decodes the first segment of data. Texts, names and keys share
// data's memory: it is a bundle's chunk, never changed, living as long as
// the process.
func decodeSeg(data []byte) (fragSeg, []byte, error) {
	r := entryReader{data}
	if len(r.data) == 0 {
		return fragSeg{}, nil, errBadEntries
	}
	tag := r.data[0]
	r.data = r.data[1:]
	switch tag {
	case 't':
		text, err := r.str()
		if err != nil || len(text) == 0 {
			return fragSeg{}, nil, errBadEntries
		}
		return fragSeg{text: text}, r.data, nil
	case 'r':
		name, err := r.str()
		if err != nil {
			return fragSeg{}, nil, err
		}
		key, err := r.str()
		if err != nil {
			return fragSeg{}, nil, err
		}
		indent, err := r.num()
		if err != nil || indent > 2*maxDepth {
			return fragSeg{}, nil, errBadEntries
		}
		return fragSeg{ref: fragKey{sharedString(name), sharedString(key)}, indent: int(indent)}, r.data, nil
	}
	return fragSeg{}, nil, errBadEntries
}

// entryReader reads the uvarints and length-prefixed strings of encoded
// entries.
type entryReader struct{ data []byte }

func (r *entryReader) num() (int64, error) {
	v, n := binary.Uvarint(r.data)
	if n <= 0 || v > costCap {
		return 0, errBadEntries
	}
	r.data = r.data[n:]
	return int64(v), nil
}

func (r *entryReader) str() ([]byte, error) {
	n, err := r.num()
	if err != nil || n > int64(len(r.data)) {
		return nil, errBadEntries
	}
	s := r.data[:n:n]
	r.data = r.data[n:]
	return s, nil
}

func sharedString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// fragSeg is one segment of a fragment: text, or a reference to an entry
// written at indent.
type fragSeg struct {
	text   []byte
	ref    fragKey
	indent int
}

type fragKey struct{ name, key string }

// lazyStore is a Compiler's view of the entries of a bundle: its own, or
// that of a pinned minor (lazyFor).
type lazyStore struct {
	c       *Compiler
	version string // the bundle's minor
	src     entrySource
	defs    map[string]*lazyDef // parsed on first use; nil: the definition has none
	// described: the store reads the entries written with Kubernetes'
	// descriptions (a compile that keeps them, untruncated), not those
	// without.
	described bool

	// What materialize resolved, by a Compiler of its own (made on first
	// need, with the same options; see materialize): the results
	// of a Compile stay safe to read, Document.Object included, from many
	// goroutines at once, however far it has to look.
	mu    sync.Mutex
	fullC *Compiler
	full  map[string]map[string]any
	deep  map[fragKey]map[string]any // entries without lazy entries left (materializeAll)
}

func newLazyStore(c *Compiler, version string, src entrySource) *lazyStore {
	return &lazyStore{c: c, version: version, src: src, defs: map[string]*lazyDef{}, full: map[string]map[string]any{}, described: !c.opts.RemoveDescriptions}
}

// settles reports whether a definition the bundle of version stores
// structural (Prebuild) is, as it is, what the whole structural pass
// makes of it for the target: the bundle of the target's minor, or of a
// pinned minor when both are 1.16 or later and the target knows every
// format the pinned minor knows (formats and list types are all the pass
// decides by version: the other minors' bundles are settled as the
// target's, not normalised again).
func (c *Compiler) settles(version string) bool {
	if version == c.version {
		return true
	}
	if c.major != 1 || c.minorN < 16 {
		return false
	}
	ma, mi := parseVersion(version)
	return ma == 1 && mi >= 16 && schemas.FormatsWithin(mi, c.minorN)
}

// lazyFor returns the store of the entries of the bundle of version, nil
// when its definitions are resolved in full: a compile without
// descriptions reads a pinned minor's entries as it reads the target's
// when that minor settles for the target (settles). Their fragments are
// the same text; the warnings they replay name the pinned minor in their
// chains, as resolving them would.
func (c *Compiler) lazyFor(version string) *lazyStore {
	if version == c.version || c.lazy == nil {
		return c.lazy
	}
	if s, ok := c.pinned[version]; ok {
		return s
	}
	var s *lazyStore
	if c.settles(version) {
		b, canonical, err := c.bundleFor(version)
		es, ok := b.(entrySource)
		if ns, isNS := b.(normalizedSource); err == nil && ok && isNS && ns.Normalized() && canonical == version && storesEntries(es, !c.opts.RemoveDescriptions) {
			s = newLazyStore(c, version, es)
		}
	}
	if c.pinned == nil {
		c.pinned = map[string]*lazyStore{}
	}
	c.pinned[version] = s
	return s
}

// storesEntries reports whether a bundle stores the entries a compile reads
// (with its descriptions, or without), judged by ObjectMeta's, which every
// minor has and which has entries: a bundle stores the entries with
// descriptions for all its definitions or for none (the newest minors',
// see tools/schemagen). A compile keeping the descriptions against an
// older minor then resolves in full, as it did before there were any, its
// render cache sharing what full resolution shares (Compiler.lazy nil).
func storesEntries(es entrySource, described bool) bool {
	if !described {
		return true // every Normalized bundle
	}
	data, err := es.Fragments("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
	if err != nil {
		return false
	}
	d, err := parseEntries(data, true)
	return err == nil && d != nil
}

func (s *lazyStore) def(name string) (*lazyDef, error) {
	if d, ok := s.defs[name]; ok || s.src == nil {
		return d, nil
	}
	data, err := s.src.Fragments(name)
	if err != nil {
		return nil, err
	}
	d, err := parseEntries(data, s.described)
	if err != nil {
		return nil, fmt.Errorf("entries of %s: %w", name, err)
	}
	if d != nil && s.version != s.c.version {
		// Chains name the definitions of another minor than the
		// target's with it (chainLabel).
		for i := range d.warnings {
			for j := range d.warnings[i].links {
				d.warnings[i].links[j].label += " (Kubernetes " + s.version + ")"
			}
		}
	}
	s.defs[name] = d
	return d, nil
}

// materialize resolves a definition as a compile without entries would,
// once per Compiler: its own values in full, what it refers to as lazy
// as everywhere else (entries of a store of the resolving Compiler's own,
// resolved the same way when something looks inside them). So a pass
// that looks into one entry (a JSON patch's path, a list-map key)
// resolves the definitions on its way, not everything they refer to. Its
// diagnostics were replayed when the definition was first used; they are
// not raised again.
func (s *lazyStore) materialize(name string) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.full[name]; ok {
		return m, nil
	}
	if s.fullC == nil {
		opts := s.c.opts
		opts.KubeVersion = s.version // the target's, or the pinned minor's (settled alike)
		fc, err := New(opts)
		if err != nil {
			return nil, err
		}
		s.fullC = fc
	}
	r := s.fullC.bundleRun()
	r.shallow = target{version: s.fullC.version, name: name}.key()
	schema, err := r.follow(name, scope{version: s.fullC.version}, "#/definitions/"+name)
	if err == nil && len(r.errs) > 0 {
		err = errors.New("it does not resolve on its own")
	}
	if err != nil {
		return nil, fmt.Errorf("definition %s: %w", name, err)
	}
	s.full[name] = schema
	return schema, nil
}

// bundleRun is a run outside any template, resolving bundle definitions.
func (c *Compiler) bundleRun() *run {
	return &run{c: c, template: "/<bundle>", diagnostics: newDiagnostics(), display: map[string]string{},
		budget: newBudget(DefaultBudget), used: map[string]bool{}, local: map[string]*cachedTarget{}}
}

// lazyTarget makes the cached target of a bundle definition of the
// target's minor from its entries; false when it has none.
func (r *run) lazyTarget(store *lazyStore, t target) (*cachedTarget, bool, error) {
	d, err := store.def(t.name)
	if err != nil || d == nil {
		return nil, false, err
	}
	// The values the entries stand for are never decoded.
	keys := make([]string, len(d.entries))
	for i, e := range d.entries {
		keys[i] = e.key
	}
	def, pre, err := r.importDefinitionSkipping(t.version, t.name, keys)
	if err != nil || !pre {
		return nil, false, err
	}
	for _, e := range d.entries {
		if _, ok := def[e.key].(skippedMapping); !ok {
			return nil, false, fmt.Errorf("%w: the entries of %s name %s, which is no mapping there", ErrInput, t.name, e.key)
		}
		def[e.key] = &lazyEntry{store: store, name: t.name, key: e.key, cost: e.cost}
	}
	r.c.normalized[mapID(def)] = struct{}{}
	c := measurer{memo: r.c.sizes, normalized: r.c.normalized}.measure(def)
	return &cachedTarget{schema: def, bundle: d.warnings, cost: c}, true, nil
}

// entry writes the fragment of entry k of store as a block mapping at
// indent.
func (e *emitter) entry(store *lazyStore, k fragKey, indent int) error {
	d, err := store.def(k.name)
	if err != nil {
		return err
	}
	var data lazyEntryData
	ok := d != nil
	if ok {
		data, ok = d.entry(k.key)
	}
	if !ok {
		return fmt.Errorf("%w: the Kubernetes bundle stores no entry %s of %s", ErrInput, k.key, k.name)
	}
	return data.each(func(s fragSeg) error {
		if s.text == nil {
			return e.entry(store, s.ref, indent+s.indent)
		}
		e.shifted(s.text, indent)
		return nil
	})
}

// fragRecorder turns what an emitter writes into segments, cutting a
// reference wherever it reaches an entry (PrebuildFragments).
type fragRecorder struct {
	entries map[unsafe.Pointer]fragKey
	segs    []fragSeg
	start   int // where the current text segment starts in the emitter's buffer
}

func (rec *fragRecorder) cut(e *emitter, k fragKey, indent int) {
	if text := e.buf.Bytes()[rec.start:]; len(text) > 0 {
		rec.segs = append(rec.segs, fragSeg{text: bytes.Clone(text)})
	}
	rec.segs = append(rec.segs, fragSeg{ref: k, indent: indent})
	rec.start = e.buf.Len()
}

func (rec *fragRecorder) finish(e *emitter) []fragSeg {
	if text := e.buf.Bytes()[rec.start:]; len(text) > 0 {
		rec.segs = append(rec.segs, fragSeg{text: bytes.Clone(text)})
	}
	return rec.segs
}

// PrebuildFragments makes the entries of every definition of a Kubernetes
// bundle of version (a canonical minor, 1.16 or later). defs holds each
// definition as Prebuild makes it: its structure, and after a newline its
// descriptions, if any. It returns the encoded entries by definition name.
// A definition has none when it cannot be resolved on its own (a
// recursive one), when a top-level value that is not a mapping holds a
// $ref, or when its root is a list with a type (list-map keys are settled
// at the root). Every fragment is checked to expand to what the emitter
// writes for its value, and every cost to be what the budget measures.
// order lists the definitions with entries so that each comes right after
// the first that refers to it (depth first from each in name order): laid
// out so, what one compile reads lies together.
func PrebuildFragments(version string, defs map[string][]byte, withDescriptions bool) (encoded map[string][]byte, order []string, err error) {
	plain, order, err := prebuildEntries(version, defs, false)
	if err != nil {
		return nil, nil, err
	}
	var described map[string][]byte
	if withDescriptions {
		if described, _, err = prebuildEntries(version, defs, true); err != nil {
			return nil, nil, fmt.Errorf("with descriptions: %w", err)
		}
	}
	encoded = map[string][]byte{}
	for name, sec := range plain {
		head := binary.AppendUvarint(binary.AppendUvarint(nil, uint64(len(sec))), uint64(len(described[name])))
		encoded[name] = slices.Concat(head, sec, described[name])
		// The round trip, as a compile reads it.
		for _, d := range []bool{false, true} {
			if _, err := parseEntries(encoded[name], d); err != nil {
				return nil, nil, fmt.Errorf("definition %s: the entries do not decode as written: %v", name, err)
			}
		}
	}
	for name := range described {
		if plain[name] == nil {
			return nil, nil, fmt.Errorf("definition %s has entries with its descriptions only", name)
		}
	}
	return encoded, order, nil
}

// prebuildEntries makes one section of what PrebuildFragments makes: the
// entries a compile without descriptions reads, or (descriptions) those of
// a compile that keeps them.
func prebuildEntries(version string, defs map[string][]byte, descriptions bool) (encoded map[string][]byte, order []string, err error) {
	src := &memBundle{version: version, defs: defs}
	c, err := New(Options{KubeVersion: version, RemoveDescriptions: !descriptions, WorkDir: "/",
		Bundles: func(v string) (Definitions, string, error) {
			if v != "" && v != version {
				return nil, "", fmt.Errorf("%w: the bundle of %s refers to Kubernetes %s", ErrInput, version, v)
			}
			return src, version, nil
		}})
	if err != nil {
		return nil, nil, err
	}
	names := src.Names()
	resolved := map[string]map[string]any{}
	for _, name := range names {
		raw, _, _ := src.structure(name)
		if !lazyShape(raw) {
			continue
		}
		r := c.bundleRun()
		schema, err := r.follow(name, scope{version: version}, "#/definitions/"+name)
		if err == nil && len(r.errs) > 0 {
			err = r.bundleErrs[firstKey(r.bundleErrs)].cause
		}
		if errors.Is(err, ErrCycle) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("definition %s: %w", name, err)
		}
		resolved[name] = schema
	}
	// The entries, by the identity of the mappings they are.
	entries := map[unsafe.Pointer]fragKey{}
	for _, name := range names {
		for _, k := range entryKeys(resolved[name]) {
			entries[mapID(resolved[name][k].(map[string]any))] = fragKey{name, k}
		}
	}
	store := &lazyStore{c: c, version: version, defs: map[string]*lazyDef{}}
	for _, name := range names {
		schema := resolved[name]
		if schema == nil {
			continue
		}
		ct := c.defs[target{version: version, name: name}.key()]
		if ct == nil {
			return nil, nil, fmt.Errorf("definition %s: resolved but not cached", name)
		}
		d := &lazyDef{warnings: ct.bundle}
		for _, k := range entryKeys(schema) { // sorted
			m := schema[k].(map[string]any)
			rec := &fragRecorder{entries: entries}
			e := &emitter{cache: &renderCache{}, rec: rec}
			if err := e.mapping(m, 0, false); err != nil {
				return nil, nil, fmt.Errorf("definition %s, %s: %w", name, k, err)
			}
			segs := rec.finish(e)
			d.entries = append(d.entries, lazyEntryData{key: k, cost: measurer{}.measure(m), n: len(segs), segs: encodeSegs(segs)})
		}
		store.defs[name] = d
	}
	out := map[string][]byte{}
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		d := store.defs[name]
		if d == nil || seen[name] {
			return
		}
		seen[name] = true
		order = append(order, name)
		for _, e := range d.entries {
			_ = e.each(func(seg fragSeg) error {
				if seg.text == nil {
					visit(seg.ref.name)
				}
				return nil
			})
		}
	}
	for _, name := range names {
		visit(name)
	}
	for _, name := range names {
		d := store.defs[name]
		if d == nil {
			continue
		}
		for _, en := range d.entries {
			k := en.key
			plain := &emitter{cache: &renderCache{}}
			if err := plain.mapping(resolved[name][k].(map[string]any), 0, false); err != nil {
				return nil, nil, err
			}
			expanded := &emitter{cache: &renderCache{}}
			if err := expanded.entry(store, fragKey{name, k}, 0); err != nil {
				return nil, nil, fmt.Errorf("definition %s, %s: %w", name, k, err)
			}
			if !bytes.Equal(plain.buf.Bytes(), expanded.buf.Bytes()) {
				return nil, nil, fmt.Errorf("definition %s, %s: the fragment expands to other YAML than the schema's", name, k)
			}
		}
		data, err := encodeEntries(d)
		if err != nil {
			return nil, nil, fmt.Errorf("definition %s: %w", name, err)
		}
		// The round trip, as a compile reads it.
		back, err := parseSection(data)
		if err != nil || len(back.entries) != len(d.entries) || len(back.warnings) != len(d.warnings) {
			return nil, nil, fmt.Errorf("definition %s: the entries do not decode as written: %v", name, err)
		}
		out[name] = data
	}
	return out, order, nil
}

func firstKey[V any](m map[string]V) string {
	if keys := slices.Sorted(maps.Keys(m)); len(keys) > 0 {
		return keys[0]
	}
	return ""
}

// entryKeys returns the keys of the top-level values of schema that are
// entries: non-empty mappings.
func entryKeys(schema map[string]any) []string {
	var keys []string
	for _, k := range sortedKeys(schema) {
		if m, ok := schema[k].(map[string]any); ok && visibleLen(m) > 0 {
			keys = append(keys, k)
		}
	}
	return keys
}

// lazyShape reports whether a stored structure can have entries: no $ref
// outside its top-level mappings, and no list type at its root.
func lazyShape(structure []byte) bool {
	v, err := decodeJSON(structure)
	if err != nil {
		return false
	}
	m, ok := v.(map[string]any)
	if !ok || m["$ref"] != nil || m["x-kubernetes-list-type"] != nil || m["uniqueItems"] != nil {
		return false
	}
	for _, x := range m {
		if _, isMap := x.(map[string]any); !isMap && holdsRef(x) {
			return false
		}
	}
	return true
}

func holdsRef(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["$ref"]; ok {
			return true
		}
		for _, x := range t {
			if holdsRef(x) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if holdsRef(x) {
				return true
			}
		}
	}
	return false
}

type storedWarning struct {
	Key      string      `json:"k"`
	Msg      string      `json:"m"`
	CycleCut bool        `json:"c,omitempty"`
	Links    [][2]string `json:"l"`
}

func encodeEntries(d *lazyDef) ([]byte, error) {
	var b []byte
	num := func(v int64) { b = binary.AppendUvarint(b, uint64(v)) }
	str := func(s []byte) { num(int64(len(s))); b = append(b, s...) }
	num(int64(len(d.entries)))
	for _, e := range d.entries { // sorted by key
		str([]byte(e.key))
		num(e.cost.nodes)
		num(e.cost.bytes)
		num(e.cost.indent)
		num(e.cost.depth)
		num(int64(e.n))
		b = append(b, e.segs...)
	}
	ws := make([]storedWarning, len(d.warnings))
	for i, w := range d.warnings {
		if !w.relative {
			return nil, fmt.Errorf("a warning not relative to the definition: %s", w.msg)
		}
		ws[i] = storedWarning{Key: w.key, Msg: w.msg, CycleCut: w.cycleCut}
		for _, l := range w.links {
			ws[i].Links = append(ws[i].Links, [2]string{l.label, l.at})
		}
	}
	j, err := json.Marshal(ws)
	if err != nil {
		return nil, err
	}
	str(j)
	return b, nil
}

// errBadEntries is what parseEntries says of data encodeEntries did not
// write.
var errBadEntries = errors.New("malformed entries")

// parseEntries decodes one section of a definition's stored entries, as
// PrebuildFragments wrote them, and checks it: the lengths of the two
// sections (uvarints), then what encodeEntries wrote for a compile
// without descriptions, then (it may be empty) for one that keeps them,
// the section described asks for. The texts, names and keys share data's
// memory (see decodeSeg). No data, or an empty section: no entries.
func parseEntries(data []byte, described bool) (*lazyDef, error) {
	if len(data) == 0 {
		return nil, nil
	}
	n1, size1 := binary.Uvarint(data)
	if size1 <= 0 {
		return nil, errBadEntries
	}
	n2, size2 := binary.Uvarint(data[size1:])
	rest := data[size1+max(size2, 0):]
	if size2 <= 0 || n1 > uint64(len(rest)) || n2 != uint64(len(rest))-n1 {
		return nil, errBadEntries
	}
	if described {
		return parseSection(rest[n1:])
	}
	return parseSection(rest[:n1])
}

// parseSection parses one section of a definition's entries (see
// parseEntries); nil when it is empty.
func parseSection(data []byte) (*lazyDef, error) {
	if len(data) == 0 {
		return nil, nil
	}
	bad := errBadEntries
	r := &entryReader{data}
	count, err := r.num()
	if err != nil || count > int64(len(r.data)) {
		return nil, bad
	}
	d := &lazyDef{entries: make([]lazyEntryData, 0, count)}
	for range count {
		k, err := r.str()
		if err != nil {
			return nil, err
		}
		e := lazyEntryData{key: sharedString(k)}
		if len(d.entries) > 0 && d.entries[len(d.entries)-1].key >= e.key {
			return nil, bad // not sorted
		}
		for _, p := range []*int64{&e.cost.nodes, &e.cost.bytes, &e.cost.indent, &e.cost.depth} {
			if *p, err = r.num(); err != nil {
				return nil, err
			}
		}
		n, err := r.num()
		if err != nil || n > int64(len(r.data)) {
			return nil, bad
		}
		start := r.data
		for range n {
			if _, r.data, err = decodeSeg(r.data); err != nil {
				return nil, err
			}
		}
		used := len(start) - len(r.data)
		e.n, e.segs = int(n), start[:used:used]
		d.entries = append(d.entries, e)
	}
	j, err := r.str()
	if err != nil {
		return nil, err
	}
	var ws []storedWarning
	if s := string(j); s != "null" && s != "[]" { // most definitions raise none
		if err := json.Unmarshal(j, &ws); err != nil {
			return nil, err
		}
	}
	for _, w := range ws {
		bw := bundleWarning{key: w.Key, msg: w.Msg, cycleCut: w.CycleCut, relative: true}
		for _, l := range w.Links {
			bw.links = append(bw.links, link{label: l[0], at: l[1]})
		}
		d.warnings = append(d.warnings, bw)
	}
	if len(r.data) > 0 {
		return nil, bad
	}
	return d, nil
}

// memBundle is a bundle being generated, for PrebuildFragments: each
// definition as Prebuild made it.
type memBundle struct {
	version string
	defs    map[string][]byte
}

func (b *memBundle) structure(name string) ([]byte, []byte, bool) {
	data, ok := b.defs[name]
	if !ok {
		return nil, nil, false
	}
	s, d, _ := bytes.Cut(data, []byte("\n"))
	return s, d, true
}

func (b *memBundle) Definition(name string) ([]byte, error) {
	s, _, ok := b.structure(name)
	if !ok {
		return nil, fmt.Errorf("%w: no definition %q in the Kubernetes %s bundle", ErrUnresolved, name, b.version)
	}
	return slices.Clone(s), nil
}

func (b *memBundle) Has(name string) bool { _, ok := b.defs[name]; return ok }

func (b *memBundle) Names() []string {
	names := make([]string, 0, len(b.defs))
	for n := range b.defs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (b *memBundle) Normalized() bool { return true }

func (b *memBundle) AppendDescriptions(dst []byte, name string) ([]byte, error) {
	_, d, ok := b.structure(name)
	if !ok {
		return dst, fmt.Errorf("%w: no definition %q in the Kubernetes %s bundle", ErrUnresolved, name, b.version)
	}
	return append(dst, d...), nil
}
