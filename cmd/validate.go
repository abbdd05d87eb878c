package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

func newValidateCmd() *cobra.Command {
	c := newPluginCmd("validate",
		"Validate CRDs and custom resources with the apiserver's own code",
		`validate runs the Kubernetes apiserver's CustomResourceDefinition validation
(k8s.io/apiextensions-apiserver as a library, the code kube-apiserver runs on
create) on CRD files and prints every problem with its field path:

  FILE: CRD-NAME: FIELD-PATH: MESSAGE

Custom resources in the same files (each item of a kind: List too) are judged
as a create of them would be (pruning, defaulting, schema, CEL rules, metadata,
version, size), against the CRD of their group and kind: from the same files,
--crd FILE|DIR, or the project's compiled outputs (docs/validating.md):

  FILE:LINE:COL: KIND/NAME: FIELD-PATH: MESSAGE

A DIR argument stands for its *.yaml, *.yml and *.json files. A custom resource
no CRD defines is a problem (nothing judged is no pass) unless
--ignore-missing-schemas.

Exit status: 0 when every CRD is valid (silently), 1 when a problem was found,
2 when a file cannot be read. "k8s-crd-resolver validate --help" lists its
flags (--k8s-version, -o json).`)
	c.Example = `  k8s-crd-resolver validate dist/*.yaml
  helm template my-release ./chart | k8s-crd-resolver validate -
  k8s-crd-resolver validate --crd dist/ --pruning=warn examples/*.yaml
  kubectl get crd daskclusters.kubernetes.dask.org -o yaml | k8s-crd-resolver validate -
  k8s-crd-resolver validate -o json crd.yaml`
	return c
}

// pluginValidator runs k8s-crd-resolver-validate --batch once per call.
// The process of the first call is started ahead, by newPluginValidator,
// so that its start and package initialisation (~20 ms) overlap the
// compile; Close ends it when it was never used.
type pluginValidator struct {
	path  string
	ahead *companion // started, waiting for its request; nil once used
}

// newPluginValidator starts the companion at path for the first Validate.
// The caller must Close the validator.
func newPluginValidator(ctx context.Context, path string) (*pluginValidator, error) {
	c, err := startCompanion(ctx, path)
	if err != nil {
		return nil, err
	}
	return &pluginValidator{path: path, ahead: c}, nil
}

// Validate implements project.Validator.
func (v *pluginValidator) Validate(ctx context.Context, docs []project.ValidationDoc) ([]project.ValidationResult, error) {
	resp, err := v.send(ctx, project.ValidationRequest{Version: project.ProtocolVersion, Documents: docs})
	if err != nil {
		return nil, err
	}
	return resp.Results, nil
}

// ValidateResources implements project.ResourceValidator.
func (v *pluginValidator) ValidateResources(ctx context.Context, crds []project.ValidationDoc, resources []project.ResourceDoc) ([]project.ValidationResult, error) {
	resp, err := v.send(ctx, project.ValidationRequest{Version: project.ProtocolVersion, Documents: crds, Resources: resources})
	if err != nil {
		return nil, err
	}
	return resp.Resources, nil
}

// send runs one companion on the request.
func (v *pluginValidator) send(ctx context.Context, request project.ValidationRequest) (*project.ValidationResponse, error) {
	c := v.ahead
	v.ahead = nil
	if c == nil {
		var err error
		if c, err = startCompanion(ctx, v.path); err != nil {
			return nil, err
		}
	}
	out, err := c.answer(func(w io.Writer) error { return writeRequest(w, request) })
	if err != nil {
		return nil, err
	}
	var resp project.ValidationResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, fmt.Errorf("%s --batch: reading its answer: %w", v.path, err)
	}
	if resp.Version != project.ProtocolVersion {
		return nil, fmt.Errorf("%s speaks protocol version %d, want %d: install matching versions", v.path, resp.Version, project.ProtocolVersion)
	}
	return &resp, nil
}

// Close ends the companion started ahead if no Validate used it: it reads
// an empty request, refuses it and exits.
func (v *pluginValidator) Close() {
	if v.ahead != nil {
		_, _ = v.ahead.answer(func(io.Writer) error { return nil })
		v.ahead = nil
	}
}

// companion is one running k8s-crd-resolver-validate --batch.
type companion struct {
	path           string
	p              *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr bytes.Buffer
}

func startCompanion(ctx context.Context, path string) (*companion, error) {
	c := &companion{path: path, p: exec.CommandContext(ctx, path, "--batch")}
	c.p.Stdout, c.p.Stderr = &c.stdout, &c.stderr
	var err error
	if c.stdin, err = c.p.StdinPipe(); err != nil {
		return nil, err
	}
	if err := c.p.Start(); err != nil {
		return nil, fmt.Errorf("%s --batch: %w", path, err)
	}
	return c, nil
}

// answer sends the request that write writes, then waits for the
// companion to exit and returns what it printed.
func (c *companion) answer(write func(io.Writer) error) ([]byte, error) {
	bw := bufio.NewWriterSize(c.stdin, 64<<10)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	cerr := c.stdin.Close()
	if err := c.p.Wait(); err != nil {
		return nil, fmt.Errorf("%s --batch: %w: %s", c.path, err, strings.TrimSpace(c.stderr.String()))
	}
	if err := errors.Join(werr, cerr); err != nil {
		return nil, fmt.Errorf("%s --batch: sending the request: %w", c.path, err)
	}
	return c.stdout.Bytes(), nil
}

// writeRequest writes request as JSON, in the order of its fields, one
// document at a time: each is rendered (ValidationDoc.Render) just before
// it is written, and the companion validates it while the next one is
// made, so neither process holds the CRDs of the whole request.
func writeRequest(w io.Writer, request project.ValidationRequest) error {
	head, err := json.Marshal(struct {
		Version   int                   `json:"version"`
		Resources []project.ResourceDoc `json:"resources,omitempty"`
	}{request.Version, request.Resources})
	if err != nil {
		return err
	}
	// {"version":4,"resources":[...] then ,"documents":[ ... ]}
	if _, err := w.Write(head[:len(head)-1]); err != nil {
		return err
	}
	if _, err := io.WriteString(w, `,"documents":[`); err != nil {
		return err
	}
	for i, doc := range request.Documents {
		doc.Objects, doc.Render = doc.Objs(), nil
		b, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, ","); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "]}")
	return err
}
