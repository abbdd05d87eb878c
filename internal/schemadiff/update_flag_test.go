package schemadiff

// The golden tests of this package use -update (`go test ./... -update`).
import _ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
