package resolver

import "github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"

// embeddedBundle loads an embedded Kubernetes bundle; "" means the newest.
func embeddedBundle(version string) (Definitions, string, error) {
	if version == "" {
		version = schemas.Latest()
	}
	b, err := schemas.Load(version)
	if err != nil {
		return nil, "", err
	}
	return b, b.Version(), nil
}
