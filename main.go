// Command k8s-crd-resolver compiles Kubernetes CRD templates containing $ref
// pointers into self-contained structural CRDs. See README.md.
package main

import (
	"os"
	"runtime/debug"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/cmd"
)

// A run lives for milliseconds and most of what it allocates stays live
// until it writes its outputs, so collecting at the default 100% costs a
// build a tenth of its time for little memory. Unless GOGC or GOMEMLIMIT
// says otherwise, collect at 400% and whenever the heap nears 512 MiB
// (a compile's budget keeps it far below that: see resolver.DefaultBudget).
const (
	gcPercent   = 400
	memoryLimit = 512 << 20
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(cmd.Execute())
}
