// Command k8s-crd-resolver compiles Kubernetes CRD templates containing $ref
// pointers into self-contained structural CRDs. See README.md.
package main

import (
	"os"
	"runtime/debug"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/cmd"
)

// A run lives for milliseconds, and what stays live is the compiled CRDs,
// not their text (build and check render, compare and write one output per
// core at a time: project.Plan); the rest is garbage at once. So, unless
// GOGC or GOMEMLIMIT says otherwise, collect at 400% (fewer collections for
// a larger peak: the trade is measured in docs/performance.md) and
// whenever the heap nears 512 MiB (a compile's budget keeps it far below
// that: see resolver.DefaultBudget).
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
