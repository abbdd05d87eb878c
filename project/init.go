package project

import (
	"fmt"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// InitConfig is the configuration `init` writes: the default set
// (DefaultTemplates into DefaultOutput) with kubernetesVersion pinned to
// version, or to the newest embedded minor when version is "". A pinned
// project's outputs never move to another Kubernetes minor because the
// tool was upgraded; a version that is not embedded is refused.
func InitConfig(version string) (config []byte, minor string, err error) {
	if version == "" {
		version = schemas.Latest()
	}
	if minor, err = schemas.Canonical(version); err != nil {
		return nil, "", fmt.Errorf("%w: --k8s-version: %w", ErrConfig, err)
	}
	return fmt.Appendf(nil, `# k8s-crd-resolver's project configuration (docs/config.md lists every key).
# kubernetesVersion is pinned: a newer k8s-crd-resolver never moves the
# compiled CRDs to another Kubernetes minor by itself. Bump it on purpose,
# then review what changed with `+"`k8s-crd-resolver check`"+`.
kubernetesVersion: %q
sets:
  - templates: [%q]
    outputs: [%s]
`, minor, DefaultTemplates, DefaultOutput), minor, nil
}
