package resolver

import (
	"fmt"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdfields"
)

// KeptByMinor returns the CRD obj as Kubernetes version (as crdfields.Check
// takes it) keeps it: without every field crdfields.Check reports, which the
// minor's apiserver drops or refuses, so that what judges a custom
// resource for the minor is what that apiserver would enforce (no CEL
// rules before 1.25, no defaults before 1.16, no pruning before 1.15,
// ...). An apiVersion the minor does not serve is reported, not removed.
// obj is only read: the maps on the way to a removed field are copies,
// the rest is shared with obj.
func KeptByMinor(obj map[string]any, version string) (map[string]any, []crdfields.Problem, error) {
	found, err := crdfields.Check(obj, version)
	if err != nil {
		return nil, nil, err
	}
	var kept any = obj
	for _, p := range found {
		if p.Pointer == "" || p.Pointer == "/apiVersion" {
			continue
		}
		// The patch's remove: it copies the maps and lists on the way.
		if out, _, err := (&patcher{}).removeAt(kept, p.Pointer); err == nil {
			kept = out
		}
	}
	return kept.(map[string]any), found, nil
}

// checkPatchMinor reports what the JSON patch p brought into the patched
// CRD (a template of apiVersion apiextensions.k8s.io/group) that the
// target minor does not have or keeps off by default, at the patch
// operation that wrote it: the template as written is judged by
// checkTemplate, but a field a patch adds (selectableFields for 1.25)
// would otherwise pass unjudged. A field is the patch's when an
// operation's target (add, replace, copy, move) is the field or holds
// it; of several, the last operation wrote it. Fields under no
// operation's target are the template's or the compiler's, judged
// elsewhere. Schema keywords are all judged here, the compiler's
// structural pass (crdfields' compiledElsewhere) having run before the patch.
func (r *run) checkPatchMinor(p *Patch, patched map[string]any, group string) {
	var targets []string
	for _, op := range p.ops {
		if t, ok := op.writes(); ok {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return
	}
	for _, mp := range crdfields.MinorProblems(patched, group, r.c.minorFields, false, targets) {
		i := p.writer(mp.Pointer)
		if i < 0 {
			continue
		}
		op := p.ops[i]
		r.errs = append(r.errs, &Error{Pos: op.pos, Pointer: mp.Pointer, Err: fmt.Errorf("%w: JSON patch operation %d (%s) writes field %q: %s", ErrInput, i, op.describe(), mp.Field, mp.Message)})
	}
}

// judgeNode reports what the schema node m, written at ptr in a file (a
// definitions file a $ref reaches, the template's own definitions), holds
// that the target minor does not have or keeps off by default, at the
// key, as checkTemplate does for the schemas written in the template's
// spec: a field is judged the same whatever path brought it into the CRD.
// Only m's own keys are judged (crdfields.NodeProblems); the schemas
// under it are resolved, and judged, one by one. The keywords the
// structural pass judges for the target (list and map types, defaults)
// are left to it.
func (r *run) judgeNode(m map[string]any, sc scope, ptr string) {
	for _, p := range crdfields.NodeProblems(m, r.c.minorFields, true) {
		r.badInput(sc, ptr+p.Pointer, "field %q: %s", p.Field, p.Message)
	}
}

// writer returns the index of the last operation of p whose target is the
// JSON pointer ptr or holds it (-1 for none).
func (p *Patch) writer(ptr string) int {
	for i := len(p.ops) - 1; i >= 0; i-- {
		if target, ok := p.ops[i].writes(); ok && (ptr == target || strings.HasPrefix(ptr, target+"/")) {
			return i
		}
	}
	return -1
}

// writes returns the JSON pointer op writes at, when it writes (add,
// replace, copy, move). An add to "/-" (the end of a list) writes the
// whole list: which item it became is not recorded.
func (op patchOp) writes() (string, bool) {
	switch op.op {
	case "add", "replace", "copy", "move":
		return strings.TrimSuffix(op.path, "/-"), true
	}
	return "", false
}
