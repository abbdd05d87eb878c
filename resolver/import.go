package resolver

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// normalizedSource is implemented by sources (such as the *schemas.Bundle
// of Kubernetes 1.16 and later) whose definitions are stored already
// imported and structural, as Prebuild makes them: Definition holds the
// structure without descriptions, AppendDescriptions the descriptions.
type normalizedSource interface {
	Normalized() bool
	AppendDescriptions(dst []byte, name string) ([]byte, error)
}

// sharedSource is implemented by sources (such as *schemas.Bundle) whose
// bytes are shared for the life of the process: decoding them keeps
// pieces of them instead of copies (jsonDecoder.shared).
type sharedSource interface {
	SharedDefinition(name string) ([]byte, error)
	SharedDescriptions(name string) ([]byte, error)
}

// bundleFor returns the bundle of a Kubernetes version, loading it once.
func (c *Compiler) bundleFor(version string) (Definitions, string, error) {
	b, canonical, err := c.opts.Bundles(version)
	if err != nil {
		return nil, "", err
	}
	if have, ok := c.bundles[canonical]; ok {
		return have, canonical, nil
	}
	c.bundles[canonical] = b
	return b, canonical, nil
}

// Private key that carries a bundle default through resolution. Kubernetes
// defaults are not copied into CRDs (the apiserver would start writing them
// into every object), except for list-map keys, which must have one.
// Normalized bundles store them under it already.
const bundleDefault = schemas.DefaultKey

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
// CRD: known types replaced, non-CRD extensions dropped, defaults kept
// aside, descriptions removed or truncated as the options say. Its $refs
// are left for the caller to resolve. A property-less object stays as the
// bundle has it: `type: object` for an empty struct (the apiserver prunes
// what is written under it), x-kubernetes-preserve-unknown-fields for
// arbitrary JSON.
//
// A bundle of Kubernetes 1.16 or later stores its definitions imported
// and structural already (see Prebuild): they are decoded as they are,
// their descriptions added back unless RemoveDescriptions, and pre reports
// it, so the structural pass can leave them alone.
func (r *run) importDefinition(version, name string) (def map[string]any, pre bool, err error) {
	return r.importDefinitionSkipping(version, name, nil)
}

// importDefinitionSkipping is importDefinition leaving out the values of
// the top-level members named in skip when the bundle stores the
// definition structural (pre): each is then skippedMapping{} when it is a
// mapping (jsonDecoder.skipTop), and the descriptions inside it are not
// put back (its entry holds them).
func (r *run) importDefinitionSkipping(version, name string, skip []string) (def map[string]any, pre bool, err error) {
	b, _, err := r.c.bundleFor(version)
	if err != nil {
		return nil, false, err
	}
	var raw []byte
	ss, shared := b.(sharedSource)
	if shared {
		raw, err = ss.SharedDefinition(name)
	} else {
		raw, err = b.Definition(name)
	}
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrUnresolved, err)
	}
	// Decoding is work the budget bounds (cached definitions are decoded
	// once per Compiler, those inside a cut cycle at every use).
	if r.budget.chargeWork(int64(len(raw)) / budgetValueCost) {
		r.stopForWork(scope{version: version}, "#/definitions/"+name)
		return nil, false, errStopped
	}
	if ns, ok := b.(normalizedSource); ok && ns.Normalized() {
		def, err := r.decodeNormalized(ns, version, name, raw, skip, ss)
		return def, err == nil, err
	}
	descs := ""
	if r.c.opts.RemoveDescriptions {
		descs = "description"
	}
	v, err := (&jsonDecoder{data: raw, skip: descs, shared: shared}).all()
	if err != nil {
		return nil, false, fmt.Errorf("definition %s of the Kubernetes %s bundle: %w", name, version, err)
	}
	def, err = r.importRaw(version, name, v)
	return def, false, err
}

// decodeNormalized decodes a definition a bundle stores structural (raw,
// its structure), without the values of the top-level members in skip
// (jsonDecoder.skipTop), and puts back its descriptions, as the options
// say. ss, when not nil, is where raw came from: what is decoded then
// shares the bundle's bytes, descriptions included.
func (r *run) decodeNormalized(ns normalizedSource, version, name string, raw []byte, skip []string, ss sharedSource) (map[string]any, error) {
	v, err := (&jsonDecoder{data: raw, skipTop: skip, shared: ss != nil}).all()
	if err != nil {
		return nil, fmt.Errorf("definition %s of the Kubernetes %s bundle: %w", name, version, err)
	}
	def, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("definition %s of the Kubernetes %s bundle is %s, not a schema", name, version, describeValue(v))
	}
	if r.c.opts.RemoveDescriptions {
		return def, nil
	}
	var data []byte
	if ss != nil {
		data, err = ss.SharedDescriptions(name)
	} else {
		r.c.descScratch, err = ns.AppendDescriptions(r.c.descScratch[:0], name)
		data = r.c.descScratch
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnresolved, err)
	}
	if len(data) == 0 {
		return def, nil
	}
	if err := addDescriptions(def, data, r.c.opts.MaxDescriptionLength, ss != nil, skip); err != nil {
		return nil, fmt.Errorf("descriptions of definition %s of the Kubernetes %s bundle: %w", name, version, err)
	}
	return def, nil
}

// addDescriptions sets the descriptions of a structural definition def:
// data is a JSON object from the JSON pointer of each schema node (inside
// def) to its text, as Prebuild writes it. max > 0 truncates each text
// (truncateDescription). shared says data lives as long as the process
// (jsonDecoder.shared): the texts are then its own bytes. The members are
// set as they are read, none kept in a map of their own; a pointer named
// twice gets its last text, as decoding the object would give it. A
// pointer into a top-level member named in skip (left out of def, see
// jsonDecoder.skipTop) is passed over.
func addDescriptions(def map[string]any, data []byte, max int, shared bool, skip []string) error {
	d := jsonDecoder{data: data, shared: shared}
	var skipped func(ptr string) bool
	if len(skip) > 0 {
		skipped = func(ptr string) bool {
			if len(ptr) < 2 {
				return false
			}
			first, _, _ := strings.Cut(ptr[1:], "/")
			return slices.Contains(skip, unescapePointerToken(first))
		}
	}
	return d.members(skipped, func(ptr string, text any) error {
		s, ok := text.(string)
		if !ok {
			return fmt.Errorf("%q: the text is %s, not a string", ptr, describeValue(text))
		}
		node, err := lookupPointer(def, ptr)
		if err != nil {
			return err
		}
		m, ok := node.(map[string]any)
		if !ok {
			return fmt.Errorf("%q points at %s, not a schema", ptr, describeValue(node))
		}
		if max > 0 {
			s = truncateDescription(s, max)
		}
		m["description"] = s
		return nil
	})
}

// importRaw is importDefinition's work on a definition as the swagger has
// it, decoded into v.
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
	Walk(VisitorFunc(func(s map[string]any, _ *Path) {
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
			}
		}
	}), def, RootPath(""))
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
