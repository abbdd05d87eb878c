package builtins

import "flag"

// Every test binary of the repository accepts -update, so that
// `go test ./... -update` runs in every package; this one has no golden
// files (the compiler module's internal/golden is not required here).
var _ = flag.Bool("update", false, "accepted for go test ./... -update; no golden files here")
