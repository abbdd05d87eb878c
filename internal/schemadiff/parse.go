package schemadiff

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// CRD is the part of one CustomResourceDefinition the comparison reads.
type CRD struct {
	// Name is metadata.name.
	Name string
	// Versions maps spec.versions[].name to its openAPIV3Schema (nil when the version has
	// none). A v1beta1 CRD's spec.validation applies to every version without its own.
	Versions map[string]map[string]any
	// Spec is the CRD's spec as decoded (group, scope, names, conversion...), and Entries
	// the spec.versions entries by name, for the comparison of everything outside the
	// schemas. StoredVersions is status.storedVersions (a CRD read from a cluster).
	Spec           map[string]any
	Entries        map[string]map[string]any
	StoredVersions []string
}

// ErrNoCRD marks a stream that holds no CustomResourceDefinition.
var ErrNoCRD = errors.New("no CustomResourceDefinition")

// ErrDuplicate marks a stream that holds a CRD, or a version of one, twice: which copy the
// cluster ends up with depends on the order they are applied in, so neither is compared.
var ErrDuplicate = errors.New("listed twice")

// ErrConcatenated marks a YAML stream in which a document starts again without the
// "---" line that separates documents: files joined with cat.
var ErrConcatenated = errors.New("two documents run together")

// Concatenated reports whether data, a YAML stream, holds a document whose top-level
// apiVersion or kind is written again after other top-level keys (metadata, spec...), the
// second time at line (1-based): what files joined without "---" look like (cat
// dist/*.yaml), rather than one key written twice. Only lines that start a key in column 1
// are read (a block scalar's lines are indented), and "---" starts a new document. One
// pass over data.
func Concatenated(data []byte) (line int, key string, ok bool) {
	var seen [2]bool
	other := false // a top-level key other than apiVersion and kind
	keys := [2]string{"apiVersion", "kind"}
	n := 0
	for l := range bytes.Lines(data) {
		n++
		if rest, found := bytes.CutPrefix(l, []byte("---")); found && (len(rest) == 0 || strings.ContainsRune(" \t\r\n", rune(rest[0]))) {
			seen, other = [2]bool{}, false
			continue
		}
		if len(l) == 0 || strings.ContainsRune(" \t\r\n#-", rune(l[0])) || !bytes.Contains(l, []byte(":")) {
			continue
		}
		known := false
		for i, k := range keys {
			if rest, found := bytes.CutPrefix(l, []byte(k)); found && len(rest) > 0 && rest[0] == ':' {
				known = true
				if seen[i] && other {
					return n, k, true
				}
				seen[i] = true
			}
		}
		other = other || !known
	}
	return 0, "", false
}

// Parse reads a YAML or JSON stream and returns its CRDs in order. name is used in messages;
// budget bounds what the stream may expand to (0: the compiler's default). It reads as the
// compiler reads templates (docread.Decode: linear in the input, duplicate keys refused).
// Other kinds of documents are skipped; a malformed document, a CRD without a name or
// versions, a CRD or version listed twice, and a stream without any CRD are errors.
func Parse(name string, data []byte, budget resolver.Size) ([]*CRD, error) {
	docs, err := docread.DecodeDocuments(name, data, budget)
	if err != nil {
		if line, key, ok := Concatenated(data); ok {
			return nil, fmt.Errorf("%s:%d: %w: the top-level key %q starts again here without a \"---\" line before it (files joined with cat have none): put \"---\" between documents, or give diff the directories (k8s-crd-resolver diff OLD_DIR NEW_DIR)", name, line, ErrConcatenated, key)
		}
		return nil, err
	}
	// The items of a kind: List (what kubectl get prints for several objects) are
	// read in order.
	var objs []map[string]any
	for _, d := range docs {
		items, isList, err := docread.ListItems(d)
		switch {
		case err != nil:
			return nil, err
		case !isList:
			items = []any{d.Value}
		}
		for _, it := range items {
			m, _ := it.(map[string]any) // nil for a document that is no mapping: skipped
			objs = append(objs, m)
		}
	}
	return FromObjects(name, objs)
}

// FromObjects returns the CRDs among decoded JSON objects (what the compiler holds), as
// Parse does for a stream (whose kind: List documents it has read into their items);
// objects that are not CRDs are skipped.
func FromObjects(name string, objs []map[string]any) ([]*CRD, error) {
	var crds []*CRD
	flat := objs
	seen := map[string]int{}
	for i, obj := range flat {
		if obj["kind"] != "CustomResourceDefinition" {
			continue
		}
		c, err := crdOf(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
		}
		if first, dup := seen[c.Name]; dup {
			return nil, fmt.Errorf("%s: document %d: CRD %q is also document %d: %w (keep one)", name, i+1, c.Name, first, ErrDuplicate)
		}
		seen[c.Name] = i + 1
		crds = append(crds, c)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("%s: %w: want a YAML stream of apiextensions.k8s.io CRDs (kind: CustomResourceDefinition)", name, ErrNoCRD)
	}
	return crds, nil
}

func crdOf(obj map[string]any) (*CRD, error) {
	obj = asStored(obj)
	meta, _ := obj["metadata"].(map[string]any)
	crdName, _ := meta["name"].(string)
	if crdName == "" {
		return nil, errors.New("CustomResourceDefinition without metadata.name")
	}
	spec, _ := obj["spec"].(map[string]any)
	shared := schemaOf(spec["validation"])
	versions, _ := spec["versions"].([]any)
	c := &CRD{Name: crdName, Versions: map[string]map[string]any{}, Spec: spec, Entries: map[string]map[string]any{}}
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		vn, _ := vm["name"].(string)
		if vn == "" {
			return nil, fmt.Errorf("%s: a spec.versions entry without a name", crdName)
		}
		if _, dup := c.Entries[vn]; dup {
			return nil, fmt.Errorf("%s: spec.versions: version %q is %w (keep one)", crdName, vn, ErrDuplicate)
		}
		s := schemaOf(vm["schema"])
		if s == nil {
			s = shared
		}
		c.Versions[vn] = s
		c.Entries[vn] = vm
	}
	if v, _ := spec["version"].(string); len(c.Versions) == 0 && v != "" {
		c.Versions[v] = shared
		c.Entries[v] = map[string]any{"name": v, "served": true, "storage": true}
	}
	if len(c.Versions) == 0 {
		return nil, fmt.Errorf("%s: no spec.versions", crdName)
	}
	status, _ := obj["status"].(map[string]any)
	stored, _ := status["storedVersions"].([]any)
	for _, s := range stored {
		if s, ok := s.(string); ok {
			c.StoredVersions = append(c.StoredVersions, s)
		}
	}
	return c, nil
}

func schemaOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	s, _ := m["openAPIV3Schema"].(map[string]any)
	return s
}
