package schemadiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	yaml "go.yaml.in/yaml/v3"
)

// CRD is the part of one CustomResourceDefinition the comparison reads.
type CRD struct {
	// Name is metadata.name.
	Name string
	// Versions maps spec.versions[].name to its openAPIV3Schema (nil when the version has
	// none). A v1beta1 CRD's spec.validation applies to every version without its own.
	Versions map[string]map[string]any
}

// ErrNoCRD marks a stream that holds no CustomResourceDefinition.
var ErrNoCRD = errors.New("no CustomResourceDefinition")

// Parse reads a YAML or JSON stream and returns its CRDs in order. name is used in messages.
// Other kinds of documents are skipped; a malformed document, a CRD without a name or
// versions, and a stream without any CRD are errors.
func Parse(name string, data []byte) ([]*CRD, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return parseJSON(name, t)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var objs []map[string]any
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		obj, _ := doc.(map[string]any) // nil for a document that is no mapping: skipped
		objs = append(objs, obj)
	}
	return FromObjects(name, objs)
}

// parseJSON reads a stream of JSON objects (`kubectl get crd -o json`), many times faster
// than YAML decoding.
func parseJSON(name string, data []byte) ([]*CRD, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var objs []map[string]any
	for {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: byte %d: %w", name, dec.InputOffset(), err)
		}
		objs = append(objs, obj)
	}
	return FromObjects(name, objs)
}

// FromObjects returns the CRDs among decoded JSON objects (what the compiler holds), as
// Parse does for a stream; objects that are not CRDs are skipped, and the items of a
// kind: List (what kubectl get prints for several objects) are read in order.
func FromObjects(name string, objs []map[string]any) ([]*CRD, error) {
	var crds []*CRD
	var flat []map[string]any
	for _, obj := range objs {
		if obj["kind"] != "List" {
			flat = append(flat, obj)
			continue
		}
		items, _ := obj["items"].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			flat = append(flat, m)
		}
	}
	for i, obj := range flat {
		if obj["kind"] != "CustomResourceDefinition" {
			continue
		}
		c, err := crdOf(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
		}
		crds = append(crds, c)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("%s: %w: want a YAML stream of apiextensions.k8s.io CRDs (kind: CustomResourceDefinition)", name, ErrNoCRD)
	}
	return crds, nil
}

func crdOf(obj map[string]any) (*CRD, error) {
	meta, _ := obj["metadata"].(map[string]any)
	crdName, _ := meta["name"].(string)
	if crdName == "" {
		return nil, errors.New("CustomResourceDefinition without metadata.name")
	}
	spec, _ := obj["spec"].(map[string]any)
	shared := schemaOf(spec["validation"])
	versions, _ := spec["versions"].([]any)
	c := &CRD{Name: crdName, Versions: map[string]map[string]any{}}
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		vn, _ := vm["name"].(string)
		if vn == "" {
			return nil, fmt.Errorf("%s: a spec.versions entry without a name", crdName)
		}
		s := schemaOf(vm["schema"])
		if s == nil {
			s = shared
		}
		c.Versions[vn] = s
	}
	if v, _ := spec["version"].(string); len(c.Versions) == 0 && v != "" {
		c.Versions[v] = shared
	}
	if len(c.Versions) == 0 {
		return nil, fmt.Errorf("%s: no spec.versions", crdName)
	}
	return c, nil
}

func schemaOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	s, _ := m["openAPIV3Schema"].(map[string]any)
	return s
}
