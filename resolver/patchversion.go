package resolver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// patchNote is the warning for a --k8s-version (or kubernetesVersion)
// that names a patch release above the one the minor's bundle was built
// from ("1.30.99" against v1.30.14): the bundle is used all the same
// (patch releases do not change the API), but the number asked for is
// not what the output was checked against. "" when there is nothing to
// say.
func patchNote(asked string, b Definitions) string {
	v := strings.TrimPrefix(asked, "v")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return ""
	}
	want, err := strconv.Atoi(parts[2])
	if err != nil {
		return ""
	}
	src, ok := b.(interface{ Source() schemas.Source })
	if !ok {
		return ""
	}
	release := src.Source().KubernetesVersion // "v1.30.14"
	rp := strings.Split(strings.TrimPrefix(release, "v"), ".")
	if len(rp) != 3 {
		return ""
	}
	have, err := strconv.Atoi(rp[2])
	if err != nil || want <= have {
		return ""
	}
	return fmt.Sprintf("Kubernetes %s was asked for, but the newest embedded %s.%s release is %s: compiled against %s (patch releases do not change the API; check the version, or use a newer k8s-crd-resolver, whose bundles hold newer patches)",
		asked, rp[0], rp[1], release, release)
}
