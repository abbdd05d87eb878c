package schemadiff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdfields"
)

// Rules are the update-time rules of the Kubernetes minor whose apiserver applies the new
// CRDs over the old ones (the target): what it keeps of a CRD, and whether it ratchets
// validation. A nil *Rules is the newest embedded minor's, which keeps every keyword the
// walker reads and ratchets.
type Rules struct {
	// Minor is the target ("1.29").
	Minor string
	// Ratcheting is whether validation ratcheting (the CRDValidationRatcheting feature
	// gate) is on by default in the target; RatchetingFrom is the first minor where it is.
	Ratcheting     bool
	RatchetingFrom string
	// dropped maps what the target does not keep of a CRD (a schema keyword, "rule."+ a
	// field of a validation rule, "selectableFields") to the first minor that keeps it
	// ("" when none does). Its apiserver drops it from the CRD (or refuses the CRD, under
	// strict field validation), so a change of it changes no stored object there.
	dropped map[string]string
}

// ruleFields are the fields of a validation rule (apiextensionsv1.ValidationRule).
var ruleFields = []string{"rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf"}

// RulesFor returns the rules of Kubernetes version (any form --k8s-version takes; "" the
// newest embedded). What the minor keeps is read from its own apiextensions definitions
// and the feature gates off by default there (crdfields.Keeps), as the compiler and
// validate --k8s-version judge a CRD for it.
func RulesFor(version string) (*Rules, error) {
	on, from, err := crdfields.FeatureOnByDefault(version, "CRDValidationRatcheting")
	if err != nil {
		return nil, err
	}
	r := &Rules{Ratcheting: on, RatchetingFrom: from, dropped: map[string]string{}}
	check := func(def, field, key string) error {
		keeps, first, canonical, err := crdfields.Keeps(version, def, field)
		if err != nil {
			return err
		}
		r.Minor = canonical
		if !keeps {
			r.dropped[key] = first
		}
		return nil
	}
	for _, k := range comparedKeywords {
		if err := check("JSONSchemaProps", k, k); err != nil {
			return nil, err
		}
	}
	for _, f := range ruleFields {
		if err := check("ValidationRule", f, "rule."+f); err != nil {
			return nil, err
		}
	}
	if err := check("CustomResourceDefinitionVersion", "selectableFields", "selectableFields"); err != nil {
		return nil, err
	}
	return r, nil
}

// ratchets reports whether the target ratchets validation.
func (r *Rules) ratchets() bool { return r == nil || r.Ratcheting }

// drops reports whether the target drops key (see Rules.dropped) and, when it does, why.
func (r *Rules) drops(key string) (string, bool) {
	if r == nil {
		return "", false
	}
	first, ok := r.dropped[key]
	if !ok {
		return "", false
	}
	name := key
	if f, ok := stripRule(key); ok {
		name = f + " of a validation rule"
	}
	has := "no embedded minor keeps it"
	if first != "" {
		has = "kept from " + first
	}
	return fmt.Sprintf("Kubernetes %s does not keep %s (%s): its apiserver drops it from the CRD, or refuses the CRD under strict field validation, so the change affects no stored object there (validate --k8s-version %s reports a CRD that holds it)",
		r.Minor, name, has, r.Minor), true
}

func stripRule(key string) (string, bool) {
	f, ok := strings.CutPrefix(key, "rule.")
	return f, ok && slices.Contains(ruleFields, f)
}

// notKept marks the last change as one of what the target does not keep.
func (r *Report) notKept() { r.Changes[len(r.Changes)-1].NotKeptBy = r.rules.Minor }

// noRatchetNote ends the reason of a breaking change that validation ratcheting would
// soften, for a target without it.
func (r *Rules) noRatchetNote() string {
	return fmt.Sprintf(" (updates that leave the value unchanged fail too: Kubernetes %s has no validation ratcheting, on by default from %s)", r.Minor, r.RatchetingFrom)
}
