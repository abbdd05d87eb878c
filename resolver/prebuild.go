package resolver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"
)

// Prebuild turns one definition of a Kubernetes bundle, as the release's
// swagger has it (raw, its JSON, with the bundle generator's additions),
// into the form the embedded bundles of Kubernetes 1.16 and later store,
// so that a compile has only the template's own work left to do:
//
//   - imported, as a compile imports a definition (known types in their
//     structural form, extensions a CRD may not hold dropped, Kubernetes'
//     defaults set aside for list-map keys);
//   - every schema node made structural for Kubernetes version (a
//     canonical minor such as "1.37"), as the structural pass would make
//     it, but for what depends on other definitions: a $ref stays as it
//     is, and the defaults of list-map keys and the atomic items of sets
//     are left to the compile's structural pass;
//   - its descriptions split off, so a compile that removes them never
//     reads them.
//
// structure is the definition's compact JSON without descriptions;
// descriptions is a JSON object from the JSON pointer of each schema node
// that has one (inside the definition, "" for its root) to the text, or
// nil when there is none. Both have their keys sorted.
//
// It fails when a node could not be made structural without a warning or
// an error: what a compile raises for a definition, its own structural
// pass raises.
func Prebuild(version, name string, raw []byte) (structure, descriptions []byte, err error) {
	ma, mi := parseVersion(version)
	if ma != 1 || mi < 16 {
		return nil, nil, fmt.Errorf("%w: Prebuild takes Kubernetes 1.16 or later, not %q", ErrInput, version)
	}
	c := &Compiler{opts: Options{Recursion: RecursionError, Budget: DefaultBudget}, version: version, major: ma, minorN: mi,
		normalized: map[unsafe.Pointer]struct{}{}}
	r := &run{c: c, diagnostics: newDiagnostics(), budget: newBudget(DefaultBudget), prebuild: true}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("definition %s: %w", name, err)
	}
	def, err := r.importRaw(version, name, v)
	if err != nil {
		return nil, nil, err
	}
	sc := scope{version: version}
	ptr := "#/definitions/" + name
	Walk(VisitorFunc(func(s map[string]any, p *Path) {
		if _, isSite := s["$ref"]; isSite {
			// Merged with its target when resolved, and made
			// structural then.
			return
		}
		r.structuralNode(s, sc, p)
	}), def, RootPath(ptr))
	if len(r.errs) > 0 || len(r.raised) > 0 || len(r.raisedBundle) > 0 {
		var msgs []string
		for _, e := range r.errs {
			msgs = append(msgs, e.Error())
		}
		for _, d := range r.raised {
			msgs = append(msgs, d.String())
		}
		for _, w := range r.raisedBundle {
			msgs = append(msgs, w.msg)
		}
		return nil, nil, fmt.Errorf("definition %s of Kubernetes %s does not normalise without a word: %s", name, version, strings.Join(msgs, "; "))
	}
	descs := map[string]string{}
	Walk(VisitorFunc(func(s map[string]any, p *Path) {
		if d, ok := s["description"].(string); ok {
			descs[strings.TrimPrefix(p.String(), ptr)] = d
			delete(s, "description")
		}
	}), def, RootPath(ptr))
	if structure, err = marshal(def); err != nil {
		return nil, nil, fmt.Errorf("definition %s: %w", name, err)
	}
	if len(descs) > 0 {
		if descriptions, err = marshal(descs); err != nil {
			return nil, nil, fmt.Errorf("definition %s: %w", name, err)
		}
	}
	return structure, descriptions, nil
}

// marshal is json.Marshal (sorted keys) without escaping <, > and &, and
// without the newline an Encoder ends with.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
