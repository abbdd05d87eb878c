package resolver

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/emit"
)

// describedSource is implemented by sources (such as *schemas.Bundle) that
// keep the descriptions of a definition's schema nodes apart from its
// Definition: AppendDescriptions appends them as a JSON object from the
// JSON pointer of each node inside the definition ("" for its root) to its
// text, nothing when there are none. Put back, they give the definition as
// published, so a compile that removes descriptions never reads them.
type describedSource interface {
	AppendDescriptions(dst []byte, name string) ([]byte, error)
}

// bundleFor returns the bundle of a Kubernetes version from Options.Bundles
// (package schemas decodes each embedded minor once).
func (c *Compiler) bundleFor(version string) (Definitions, string, error) {
	return c.opts.Bundles(version)
}

// Private key that carries a bundle default through resolution. Kubernetes
// defaults are not copied into CRDs (the apiserver would start writing them
// into every object), except for list-map keys, which must have one.
const bundleDefault = emit.PrivateKey

// quantityPattern is the pattern Kubernetes publishes for resource.Quantity.
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// intOrString is the structural form of a value that is an integer or a
// string.
func intOrString() map[string]any {
	return map[string]any{
		"x-kubernetes-int-or-string": true,
		"anyOf": []any{
			map[string]any{"type": "integer"},
			map[string]any{"type": "string"},
		},
	}
}

// knownType maps the Kubernetes definitions whose swagger form cannot be
// used in a CRD to their structural form: IntOrString and Quantity, which
// swagger writes as `type: string, format: int-or-string` and `type: string`
// although both take integers too. The bundle cannot say this (their Go
// types marshal themselves; the swagger's type is what openapi-gen was
// told), so the match is on the name's suffix, which holds for every
// version of the two definitions. Property-less objects are not here: the
// bundle classifies each from its Go declaration (empty struct or arbitrary
// JSON; see package schemas).
func knownType(name string) map[string]any {
	switch {
	case strings.HasSuffix(name, ".util.intstr.IntOrString"):
		return intOrString()
	case strings.HasSuffix(name, ".api.resource.Quantity"):
		s := intOrString()
		s["pattern"] = quantityPattern
		return s
	}
	return nil
}

// crdExtensions are the x- keys a CRD schema may carry.
var crdExtensions = map[string]bool{
	"x-kubernetes-preserve-unknown-fields": true,
	"x-kubernetes-embedded-resource":       true,
	"x-kubernetes-int-or-string":           true,
	"x-kubernetes-list-map-keys":           true,
	"x-kubernetes-list-type":               true,
	"x-kubernetes-map-type":                true,
	"x-kubernetes-validations":             true,
}

// importDefinition reads one bundle definition and makes it ready for a
// CRD (importRaw): known types replaced, non-CRD extensions dropped,
// defaults kept aside, descriptions removed or truncated as the options
// say. Its $refs are left for the caller to resolve, and the caller runs
// the structural pass over it. A property-less object stays as the bundle
// has it: `type: object` for an empty struct (the apiserver prunes what is
// written under it), x-kubernetes-preserve-unknown-fields for arbitrary
// JSON. Every minor's bundle holds its definitions as published, their
// descriptions apart (describedSource): they are put back first unless
// RemoveDescriptions, which would drop them again.
func (r *run) importDefinition(version, name string) (map[string]any, error) {
	b, _, err := r.c.bundleFor(version)
	if err != nil {
		return nil, err
	}
	raw, err := b.Definition(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnresolved, err)
	}
	var descs []byte
	if ds, ok := b.(describedSource); ok && !r.c.opts.RemoveDescriptions {
		if descs, err = ds.AppendDescriptions(nil, name); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnresolved, err)
		}
	}
	// Decoding is work the budget bounds (cached definitions are decoded
	// once per Compiler, those inside a cut cycle at every use).
	if r.budget.ChargeWork(int64(len(raw)+len(descs)) / docread.BudgetValueCost) {
		r.stopForWork(scope{version: version}, "#/definitions/"+name)
		return nil, errStopped
	}
	v, err := bundlefmt.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("definition %s of the Kubernetes %s bundle: %w", name, version, err)
	}
	if len(descs) > 0 {
		if err := addDescriptions(v, descs); err != nil {
			return nil, fmt.Errorf("descriptions of definition %s of the Kubernetes %s bundle: %w", name, version, err)
		}
	}
	return r.importRaw(version, name, v)
}

// addDescriptions puts the descriptions data (a JSON object from the JSON
// pointer of each schema node inside def to its text) back into def.
func addDescriptions(def any, data []byte) error {
	var texts map[string]string
	if err := json.Unmarshal(data, &texts); err != nil {
		return err
	}
	for ptr, s := range texts {
		node, err := lookupPointer(def, ptr)
		if err != nil {
			return err
		}
		m, ok := node.(map[string]any)
		if !ok {
			return fmt.Errorf("%q points at %s, not a schema", ptr, describeValue(node))
		}
		m["description"] = s
	}
	return nil
}

// importRaw is importDefinition's work on a definition as published,
// decoded into v.
func (r *run) importRaw(version, name string, v any) (map[string]any, error) {
	def, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("definition %s of the Kubernetes %s bundle is %s, not a schema", name, version, describeValue(v))
	}
	// 1.12 and 1.13 keep their pre-1.8 names as aliases, {"description":
	// "Deprecated. Please use io.k8s.api.core.v1.Pod instead.", "$ref":
	// ...}: the name is deprecated, not the field; the target's own
	// description documents it.
	if d, _ := def["description"].(string); len(def) == 2 && def["$ref"] != nil && strings.HasPrefix(d, "Deprecated. Please use ") {
		delete(def, "description")
	}
	if known := knownType(name); known != nil {
		if d, ok := def["description"]; ok {
			known["description"] = d
		}
		def = known
	}
	walkSchemas(visitFunc(func(s map[string]any, _ *schemaPath) {
		for k := range s {
			if strings.HasPrefix(k, "x-") && !crdExtensions[k] {
				delete(s, k)
			}
		}
		if d, ok := s["default"]; ok {
			delete(s, "default")
			s[bundleDefault] = d
		}
		if d, ok := s["description"].(string); ok {
			switch {
			case r.c.opts.RemoveDescriptions:
				delete(s, "description")
			case r.c.opts.MaxDescriptionLength > 0:
				s["description"] = truncateDescription(d, r.c.opts.MaxDescriptionLength)
				r.kubeTexts = append(r.kubeTexts, s["description"].(string))
			default:
				r.kubeTexts = append(r.kubeTexts, d)
			}
		}
	}), def, rootPath(""))
	return def, nil
}

// truncateDescription shortens s to at most n bytes, cutting after the last
// whole sentence that fits, else at a word boundary with an ellipsis.
func truncateDescription(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	for i := len(cut) - 1; i > 0; i-- {
		if cut[i] == ' ' || cut[i] == '\n' {
			if p := cut[i-1]; p == '.' || p == '!' || p == '?' {
				return strings.TrimSpace(cut[:i])
			}
		}
	}
	if n == len(cut) && (s[n] == ' ' || s[n] == '\n') && strings.ContainsAny(cut[len(cut)-1:], ".!?") {
		return cut
	}
	const ellipsis = "..."
	if n <= len(ellipsis) {
		return cut
	}
	cut = s[:n-len(ellipsis)]
	if i := strings.LastIndexAny(cut, " \n"); i > 0 {
		cut = cut[:i]
	}
	// Never split a UTF-8 sequence.
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return strings.TrimRight(cut, " \n,;:") + ellipsis
}
