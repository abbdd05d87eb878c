package fileio

import "flag"

// Every test binary of the repository accepts -update, so that
// `go test ./... -update` (which rewrites golden files) runs in every
// package; this package has no golden files of its own.
var _ = flag.Bool("update", false, "rewrite golden files (none in this package)")
