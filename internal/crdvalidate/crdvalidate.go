// Package crdvalidate runs the apiserver's CRD validation (through
// internal/oracle) on files: a YAML or JSON stream of CRDs in, a list of
// problems with the apiserver's field paths and messages out. It is the
// body of the k8s-crd-resolver-validate companion; the main binary never
// links it (see internal/oracle, Cost).
package crdvalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// Document validates every CRD in doc, as the apiserver does on create
// (ValidateCustomResourceDefinition), and lists the formats the apiserver
// of doc.KubernetesVersion would warn about. A document that is not a CRD
// is a problem; empty documents are skipped.
func Document(ctx context.Context, doc project.ValidationDoc) project.ValidationResult {
	res := project.ValidationResult{Name: doc.Name}
	version := doc.KubernetesVersion
	if version == "" {
		version = schemas.Latest()
	}
	objs, err := decodeStream([]byte(doc.Content))
	if err != nil {
		res.Problems = append(res.Problems, project.Problem{Message: err.Error()})
		return res
	}
	if len(objs) == 0 {
		res.Problems = append(res.Problems, project.Problem{Message: "the file holds no document"})
		return res
	}
	for i, obj := range objs {
		meta, _ := obj["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		if kind, _ := obj["kind"].(string); kind != "CustomResourceDefinition" {
			res.Problems = append(res.Problems, project.Problem{CRD: name, Message: fmt.Sprintf("document %d is not a CustomResourceDefinition (kind %q)", i+1, kind)})
			continue
		}
		crd, err := oracle.Decode(obj)
		if err != nil {
			res.Problems = append(res.Problems, project.Problem{CRD: name, Message: "cannot decode: " + err.Error()})
			continue
		}
		for _, e := range crd.Validate(ctx) {
			res.Problems = append(res.Problems, fieldProblem(name, e))
		}
		formats, err := crd.UnrecognizedFormats(version)
		if err != nil {
			res.Problems = append(res.Problems, project.Problem{CRD: name, Message: fmt.Sprintf("kubernetes version %q: %v", version, err)})
			continue
		}
		for _, f := range formats {
			path, format, _ := strings.Cut(f, ": ")
			res.Warnings = append(res.Warnings, project.Problem{CRD: name, Field: path, Message: fmt.Sprintf("unrecognized format %q (Kubernetes %s warns about it and does not check it)", format, version)})
		}
	}
	return res
}

// fieldProblem keeps the apiserver's field path and message apart.
func fieldProblem(crd string, e *field.Error) project.Problem {
	msg := strings.TrimPrefix(e.Error(), e.Field+": ")
	return project.Problem{CRD: crd, Field: e.Field, Message: msg}
}

// decodeStream reads every non-empty document of a YAML (or JSON) stream
// into JSON-like values.
// A stream starting with "{" is read as JSON objects, one per document,
// which is much faster than YAML for the large CRDs build and check send.
func decodeStream(src []byte) ([]map[string]any, error) {
	if trimmed := bytes.TrimLeft(src, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		return decodeJSONStream(trimmed)
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var out []map[string]any
	for i := 1; ; i++ {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if v == nil {
			continue
		}
		// Through JSON, so every value is what the apiserver's decoder sees.
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		var obj map[string]any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&obj); err != nil {
			return nil, fmt.Errorf("document %d is not a mapping", i)
		}
		out = append(out, obj)
	}
}

func decodeJSONStream(src []byte) ([]map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	var out []map[string]any
	for i := 1; ; i++ {
		var obj map[string]any
		err := d.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		out = append(out, obj)
	}
}
