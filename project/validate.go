package project

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// ProtocolVersion is the version of ValidationRequest and
// ValidationResponse. The companion refuses a request of another version.
const ProtocolVersion = 1

// ValidationRequest is what build and check send, as JSON on standard
// input, to `k8s-crd-resolver-validate --batch`.
type ValidationRequest struct {
	Version   int             `json:"version"`
	Documents []ValidationDoc `json:"documents"`
}

// ValidationDoc is one file to validate: a YAML or JSON stream of CRDs.
type ValidationDoc struct {
	// Name identifies the file in the results (a path, for people).
	Name string `json:"name"`
	// Content is the file's content: YAML, JSON, or a stream of JSON
	// objects (one per CRD; build and check send this, the fastest to read).
	Content string `json:"content"`
	// KubernetesVersion selects which formats are known ("1.30"); empty
	// means the newest embedded.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
}

// ValidationResponse is the companion's answer, as JSON on standard output:
// one result per requested document, in request order.
type ValidationResponse struct {
	Version int                `json:"version"`
	Results []ValidationResult `json:"results"`
}

// ValidationResult lists what the apiserver would say about one file.
type ValidationResult struct {
	Name string `json:"name"`
	// Problems make the apiserver reject the CRD.
	Problems []Problem `json:"problems,omitempty"`
	// Warnings are accepted but worth knowing (unrecognized formats).
	Warnings []Problem `json:"warnings,omitempty"`
}

// Problem is one finding about one CRD in a file.
type Problem struct {
	// CRD is the metadata.name of the CRD ("" when the document could not
	// be read as a CRD at all).
	CRD string `json:"crd,omitempty"`
	// Field is the apiserver's field path, e.g.
	// spec.versions[0].schema.openAPIV3Schema.properties[spec].type.
	Field string `json:"field,omitempty"`
	// Message is the apiserver's text for the problem, without the path.
	Message string `json:"message"`
}

// String renders "CRD: field: message", leaving out empty parts.
func (p Problem) String() string {
	s := p.Message
	if p.Field != "" {
		s = p.Field + ": " + s
	}
	if p.CRD != "" {
		s = p.CRD + ": " + s
	}
	return s
}

// Validator runs the apiserver's CRD validation on documents. It returns
// one result per document, in order; the error is for failures to run
// at all, never for problems found.
type Validator interface {
	Validate(ctx context.Context, docs []ValidationDoc) ([]ValidationResult, error)
}

// Validate validates each output once (outputs written to several
// directories have the same bytes), naming each by its template.
func Validate(ctx context.Context, v Validator, outs []*Output) ([]ValidationResult, error) {
	docs := make([]ValidationDoc, len(outs))
	for i, o := range outs {
		// The documents as a JSON stream: the same values as the YAML in
		// o.Data, and several times faster for the validator to read.
		var content bytes.Buffer
		enc := json.NewEncoder(&content)
		for _, obj := range o.Objects() {
			if err := enc.Encode(obj); err != nil {
				return nil, fmt.Errorf("%s: %w", o.Template.Name, err)
			}
		}
		docs[i] = ValidationDoc{Name: o.Template.Name, Content: content.String(), KubernetesVersion: o.KubeVersion}
	}
	if len(docs) == 0 {
		return nil, nil
	}
	res, err := v.Validate(ctx, docs)
	if err != nil {
		return nil, err
	}
	if len(res) != len(docs) {
		return nil, fmt.Errorf("validator answered %d results for %d documents", len(res), len(docs))
	}
	return res, nil
}
