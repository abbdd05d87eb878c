package schemadiff

import (
	"bytes"
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
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var crds []*CRD
	for i := 0; ; i++ {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var doc any
		if err := node.Decode(&doc); err != nil {
			return nil, fmt.Errorf("%s:%d:%d: %w", name, node.Line, node.Column, err)
		}
		obj, ok := doc.(map[string]any)
		if !ok || obj["kind"] != "CustomResourceDefinition" {
			continue
		}
		c, err := crdOf(obj)
		if err != nil {
			return nil, fmt.Errorf("%s:%d:%d: document %d: %w", name, node.Line, node.Column, i+1, err)
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
