package apirecord

// `go test ./... -update` passes -update to every test binary: this one accepts it.
import _ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
