package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

func newValidateCmd() *cobra.Command {
	c := newPluginCmd("validate",
		"Validate CRD files with the apiserver's own code",
		`validate runs the Kubernetes apiserver's CustomResourceDefinition validation
(k8s.io/apiextensions-apiserver as a library, the code kube-apiserver runs on
create) on CRD files and prints every problem with its field path:

  FILE: CRD-NAME: FIELD-PATH: MESSAGE

Exit status: 0 when every CRD is valid (silently), 1 when a problem was found,
2 when a file cannot be read. "k8s-crd-resolver validate --help" lists its
flags (--k8s-version, -o json).`)
	c.Example = `  k8s-crd-resolver validate dist/*.yaml
  kubectl get crd daskclusters.kubernetes.dask.org -o yaml | k8s-crd-resolver validate -
  k8s-crd-resolver validate -o json crd.yaml`
	return c
}

// pluginValidator runs k8s-crd-resolver-validate --batch once per call.
type pluginValidator struct{ path string }

// Validate implements project.Validator.
func (v pluginValidator) Validate(ctx context.Context, docs []project.ValidationDoc) ([]project.ValidationResult, error) {
	req, err := json.Marshal(project.ValidationRequest{Version: project.ProtocolVersion, Documents: docs})
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	p := exec.CommandContext(ctx, v.path, "--batch")
	p.Stdin, p.Stdout, p.Stderr = bytes.NewReader(req), &stdout, &stderr
	if err := p.Run(); err != nil {
		return nil, fmt.Errorf("%s --batch: %w: %s", v.path, err, strings.TrimSpace(stderr.String()))
	}
	var resp project.ValidationResponse
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("%s --batch: reading its answer: %w", v.path, err)
	}
	if resp.Version != project.ProtocolVersion {
		return nil, fmt.Errorf("%s speaks protocol version %d, want %d: install matching versions", v.path, resp.Version, project.ProtocolVersion)
	}
	return resp.Results, nil
}
