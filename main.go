// Command k8s-crd-resolver compiles Kubernetes CRD templates containing $ref
// pointers into self-contained structural CRDs. See README.md.
package main

import (
	"os"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
