package validatecli

// Every test binary accepts -update, so that `go test ./... -update`
// (which rewrites golden files) runs in every package; this package has no
// golden files of its own.
import _ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
