// Package version says which build of k8s-crd-resolver is running: the
// module version, the embedded Kubernetes minors and the Go toolchain. The
// main binary prints it for `version` and `--version`; the validation
// companion for `--version`.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// version is set by releases (.goreleaser.yaml):
//
//	-ldflags "-X github.com/k8s-crd-resolver/k8s-crd-resolver/internal/version.version=v1.2.3"
var version string

// Module returns the module version: the release's (ldflags) if set, else
// what the Go toolchain recorded: the tag for `go install ...@v1.2.3`, a
// pseudo-version for a build in a git checkout, "(devel)" without VCS
// information (followed by the commit when Go recorded one).
func Module() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(devel)"
	}
	if bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			v += " " + s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			v += "+dirty"
		}
	}
	return v
}

// Kubernetes describes the embedded Kubernetes minors, e.g.
// "1.12 to 1.37 (26 minors, default 1.37)".
func Kubernetes() string {
	v := schemas.Versions()
	if len(v) == 0 {
		return "none embedded"
	}
	return fmt.Sprintf("%s to %s (%d minors, default %s)", v[0], v[len(v)-1], len(v), schemas.Latest())
}

// String is the multi-line report of `k8s-crd-resolver version` for the
// binary named name.
func String(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", name, Module())
	fmt.Fprintf(&b, "Kubernetes: %s\n", Kubernetes())
	fmt.Fprintf(&b, "Go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}
