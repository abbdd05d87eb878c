package project

import (
	"io"
	"slices"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
)

// A file an output would replace is this tool's to replace when it
// carries the generated header (IsGeneratedLine), and also when it is a
// CustomResourceDefinition of the very name being written: a CRD being
// regenerated, whoever generated it before (the Python tool's outputs
// carry no header). Anything else needs --force.

// TakesOver reports whether the existing file old, which lacks the
// generated header, may be replaced by an output holding the CRDs names:
// every document of it is a CustomResourceDefinition whose metadata.name
// is one of names. It reads the file once, linearly (docread.Decode: no
// pairwise key checks, its expansion budgeted), and nothing of a file it
// refuses is kept or shown.
func TakesOver(old *io.SectionReader, names []string) bool {
	if len(names) == 0 || old.Size() > maxTakeoverBytes {
		return false
	}
	data, err := io.ReadAll(old)
	if err != nil {
		return false
	}
	docs, err := docread.Decode("existing file", data, 0)
	if err != nil {
		return false
	}
	got, ok := crdNames(docs)
	if !ok || len(got) == 0 {
		return false
	}
	for _, n := range got {
		if !slices.Contains(names, n) {
			return false
		}
	}
	return true
}

// maxTakeoverBytes bounds the file TakesOver reads: a CRD storable in
// etcd is far smaller, even as indented YAML.
const maxTakeoverBytes = 64 << 20

// crdNames returns the metadata.name of each decoded document, and
// whether every document (empty ones aside) is a CustomResourceDefinition
// with a name.
func crdNames(docs []any) ([]string, bool) {
	var names []string
	for _, d := range docs {
		m, _ := d.(map[string]any)
		meta, _ := m["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		if m["kind"] != "CustomResourceDefinition" || name == "" {
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}
