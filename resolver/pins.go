package resolver

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A $ref in the Python tool's pinned forms (python://k8s_crd_resolver/
// schemata/k8s-1.21.1.json#/definitions/X, or the GitHub URL of a
// release's swagger.json) resolves in the bundle of the minor it names,
// whatever the target: what the Python tool did. A compile records which
// minors its content came from (Result.KubeVersions, named in the
// generated header) and, when a target version was asked for, warns once
// per pinned minor: the pin wins, and `k8s-crd-resolver migrate` rewrites
// such refs as bare names that follow the target.

// pinUse is the first $ref pinning one minor, and how many do.
type pinUse struct {
	ref   string
	sc    scope
	ptr   string
	count int
}

// notePin records that target t, written as ref at ptr in sc, reads the
// bundle of t.version.
func (r *run) notePin(t target, ref string, sc scope, ptr string) {
	if r.minors == nil {
		r.minors, r.pins = map[string]bool{}, map[string]*pinUse{}
	}
	r.minors[t.version] = true
	if t.version == r.c.version || sc.inBundle() {
		return
	}
	u := r.pins[t.version]
	if u == nil {
		u = &pinUse{ref: ref, sc: sc, ptr: ptr}
		r.pins[t.version] = u
	}
	u.count++
}

// warnPins warns, once per pinned minor at its first $ref, when the
// caller asked for a target version and pins override it.
func (r *run) warnPins() {
	if r.c.opts.KubeVersion == "" {
		return
	}
	for _, v := range sortMinors(mapKeys(r.pins)) {
		u := r.pins[v]
		others := ""
		if u.count > 1 {
			others = fmt.Sprintf(" (and %d more $refs pinning it)", u.count-1)
		}
		r.warn(u.sc, u.ptr, fmt.Sprintf("$ref %q%s pins Kubernetes %s, not the target %s: the pinned version wins; "+
			"`k8s-crd-resolver migrate --write` rewrites pinned refs as bare names that follow kubernetesVersion and --k8s-version",
			u.ref, others, v, r.c.version))
	}
}

// kubeVersions are the minors the compile's content came from, sorted:
// the target's when nothing else was read.
func (r *run) kubeVersions() []string {
	if len(r.minors) == 0 {
		return []string{r.c.version}
	}
	return sortMinors(mapKeys(r.minors))
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// sortMinors sorts "1.N" versions numerically.
func sortMinors(vs []string) []string {
	slices.SortFunc(vs, func(a, b string) int { return cmp.Compare(minorOf(a), minorOf(b)) })
	return vs
}

func minorOf(v string) int {
	_, m, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(m)
	return n
}
