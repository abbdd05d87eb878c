// Command k8s-crd-resolver compiles Kubernetes CRD templates containing $ref
// pointers into self-contained structural CRDs. See README.md.
package main

import (
	"os"
	"runtime/debug"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/cmd"
)

// A run lives for milliseconds. What stays live is the compiled CRDs, not
// their text (build and check render, compare and write one output per
// core at a time: project.Plan), about 25 MB at the end of a build of
// 1,000 templates embedding PodTemplateSpec and ServiceSpec; the rest is
// garbage at once. Collecting at 400%, such a build collects twice and
// peaks at ~60 MiB of RSS, fresh or up to date (measured interleaved, on
// tmpfs: ~47 MiB at 100% and ~55 at 200%, no faster than 400% in the same
// run; 800% no faster nor smaller). Unless GOGC or GOMEMLIMIT says
// otherwise, collect at 400% and whenever the heap nears 512 MiB (a
// compile's budget keeps it far below that: see resolver.DefaultBudget).
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
