package webhook

// Every test binary accepts -update (see internal/golden); this package has
// no golden files of its own.
import _ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
