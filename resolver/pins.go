package resolver

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// A $ref in the Python tool's pinned forms (python://k8s_crd_resolver/
// schemata/k8s-1.21.1.json#/definitions/X, or the GitHub URL of a
// release's swagger.json) resolves in the bundle of the minor it names,
// whatever the target: what the Python tool did. A compile records which
// minors its content came from (Result.KubeVersions, named in the
// generated header) and, when a target version was asked for, warns once
// per pinned minor: the pin wins, and `k8s-crd-resolver migrate` rewrites
// such refs as bare names that follow the target.

// notePin records that target t, written as ref at ptr in sc, reads the
// bundle of t.version; a pin that overrides the target asked for is a
// warning at its site. Both are replayed with a cached target that
// holds them (resolve.go), so a Compiler reused across templates gives
// each the same header and warnings as a fresh one.
func (r *run) notePin(t target, ref string, sc scope, ptr string) {
	r.minorLog = append(r.minorLog, t.version)
	if t.version != r.c.version && !sc.inBundle() && r.c.opts.KubeVersion != "" {
		r.warn(sc, ptr, fmt.Sprintf("$ref %q pins Kubernetes %s, not the target %s%s", ref, t.version, r.c.version, pinAdvice))
	}
}

// pinAdvice ends every pin warning (collapsePins recognises them by it).
const pinAdvice = ": the pinned version wins; `k8s-crd-resolver migrate --write` rewrites pinned refs as bare names that follow kubernetesVersion and --k8s-version"

// collapsePins keeps, of the pin warnings of one minor, the first (ws
// are sorted), saying how many more $refs pin it: a template pinning its
// every $ref gets one warning per minor, not one per $ref.
func collapsePins(ws []Diagnostic) []Diagnostic {
	first := map[string]int{} // minor -> index in out
	more := map[string]int{}
	var out []Diagnostic
	for _, w := range ws {
		if !strings.HasSuffix(w.Message, pinAdvice) {
			out = append(out, w)
			continue
		}
		_, rest, _ := strings.Cut(w.Message, " pins Kubernetes ")
		minor, _, _ := strings.Cut(rest, ",")
		if _, seen := first[minor]; seen {
			more[minor]++
			continue
		}
		first[minor] = len(out)
		out = append(out, w)
	}
	for minor, n := range more {
		w := &out[first[minor]]
		w.Message = strings.Replace(w.Message, " pins Kubernetes ", fmt.Sprintf(" (and %d more $ref(s) in this compile) pins Kubernetes ", n), 1)
	}
	return out
}

// kubeVersions are the minors the compile's content came from, sorted:
// the target's when nothing else was read.
func (r *run) kubeVersions() []string {
	if len(r.minorLog) == 0 {
		return []string{r.c.version}
	}
	seen := map[string]bool{}
	for _, v := range r.minorLog {
		seen[v] = true
	}
	return slices.SortedFunc(maps.Keys(seen), schemas.CompareMinors)
}
