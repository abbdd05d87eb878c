package schemadiff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// widget is a v1 CRD whose spec has the properties given (a YAML flow mapping), and the
// version entry's extra keys (a YAML flow mapping's inside, "" for none).
func widget(props, entry string) []byte {
	if entry != "" {
		entry = "\n    " + strings.ReplaceAll(entry, ", ", "\n    ")
	}
	return fmt.Appendf(nil, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true%s
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties: %s
`, entry, props)
}

// TestCompareForTargetMinor: the same change is classified by the update rules of the
// minor the new CRD is applied in. Validation ratcheting (CRDValidationRatcheting) is on by
// default from 1.30: before it, a tightened value is refused on every update of an object
// holding it, so nothing is Ratcheted but what the list-type check skips on its own (every
// minor). What the target drops from a CRD (x-kubernetes-validations before 1.25, a
// rule's optionalOldSelf before 1.30, selectableFields before 1.31) changes nothing there.
func TestCompareForTargetMinor(t *testing.T) {
	type verdict struct {
		minor               string
		breaking, ratcheted bool
		reason              string // a part of the reason
	}
	for _, tc := range []struct {
		name     string
		old, new []byte
		kind     Kind
		verdicts []verdict // the last is the newest minor's too (Compare's)
	}{{
		name: "maxLength tightened",
		old:  widget(`{name: {type: string, maxLength: 253}}`, ""),
		new:  widget(`{name: {type: string, maxLength: 63}}`, ""),
		kind: ConstraintTightened,
		verdicts: []verdict{
			{"1.29", true, false, "updates that leave the value unchanged fail too: Kubernetes 1.29 has no validation ratcheting, on by default from 1.30"},
			{"1.30", true, true, "pass where validation ratcheting applies"},
			{"1.37", true, true, "pass where validation ratcheting applies"},
		},
	}, {
		name: "type narrowed",
		old:  widget(`{size: {type: number}}`, ""),
		new:  widget(`{size: {type: string}}`, ""),
		kind: TypeChanged,
		verdicts: []verdict{
			{"1.29", true, false, "no validation ratcheting"},
			{"1.30", true, true, "rejected on update"},
		},
	}, {
		name: "required added",
		old:  widget(`{name: {type: string}}`, ""),
		new:  []byte(strings.Replace(string(widget(`{name: {type: string}}`, "")), "            type: object\n            properties:", "            type: object\n            required: [name]\n            properties:", 1)),
		kind: RequiredAdded,
		verdicts: []verdict{
			{"1.28", true, false, "rejected on create and on every update (updates that leave the value unchanged fail too"},
			{"1.29", true, false, "no validation ratcheting"},
			{"1.30", true, true, "ratcheting applies required per object"},
		},
	}, {
		name: "a rule added",
		old:  widget(`{n: {type: integer}}`, ""),
		new:  widget(`{n: {type: integer, x-kubernetes-validations: [{rule: 'self < 100'}]}}`, ""),
		kind: ConstraintTightened,
		verdicts: []verdict{
			{"1.22", false, false, "Kubernetes 1.22 does not keep x-kubernetes-validations (kept from 1.25)"},
			{"1.24", false, false, "Kubernetes 1.24 does not keep x-kubernetes-validations (kept from 1.25)"},
			{"1.25", true, false, "no validation ratcheting"},
			{"1.29", true, false, "no validation ratcheting"},
			{"1.30", true, true, "a new rule can reject a stored value on update"},
		},
	}, {
		name: "a transition rule added",
		old:  widget(`{n: {type: integer}}`, ""),
		new:  widget(`{n: {type: integer, x-kubernetes-validations: [{rule: 'self >= oldSelf'}]}}`, ""),
		kind: ConstraintTightened,
		verdicts: []verdict{
			{"1.24", false, false, "does not keep x-kubernetes-validations"},
			{"1.29", true, false, "never ratcheted"},
			{"1.30", true, false, "never ratcheted"},
		},
	}, {
		name: "optionalOldSelf of a rule set",
		old:  widget(`{n: {type: integer, x-kubernetes-validations: [{rule: 'self >= oldSelf'}]}}`, ""),
		new:  widget(`{n: {type: integer, x-kubernetes-validations: [{rule: 'self >= oldSelf', optionalOldSelf: true}]}}`, ""),
		kind: UnhandledChange,
		verdicts: []verdict{
			{"1.28", false, false, "Kubernetes 1.28 does not keep optionalOldSelf of a validation rule (kept from 1.30)"},
			{"1.29", false, false, "Kubernetes 1.29 does not keep optionalOldSelf of a validation rule (kept from 1.30)"},
			{"1.30", true, false, "review it by hand"},
		},
	}, {
		name: "a selectable field removed",
		old:  widget(`{name: {type: string}}`, "selectableFields: [{jsonPath: .spec.name}]"),
		new:  widget(`{name: {type: string}}`, ""),
		kind: SelectableFieldsChanged,
		verdicts: []verdict{
			{"1.30", false, false, "Kubernetes 1.30 does not keep selectableFields (kept from 1.31)"},
			{"1.31", true, false, "list and watch requests selecting on the field"},
		},
	}, {
		name: "a list made a set: the list-type check's own skip, in every minor",
		old:  widget(`{tags: {type: array, items: {type: string}}}`, ""),
		new:  widget(`{tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}}`, ""),
		kind: ListTypeChanged,
		verdicts: []verdict{
			{"1.29", true, true, "updates pass (the apiserver skips the check"},
			{"1.30", true, true, "updates pass (the apiserver skips the check"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			old, err := Parse("old.yaml", tc.old, 0)
			require.NoError(t, err)
			new, err := Parse("new.yaml", tc.new, 0)
			require.NoError(t, err)
			var last Change
			for _, v := range tc.verdicts {
				rules, err := RulesFor(v.minor)
				require.NoError(t, err)
				rep := CompareFor(old, new, rules)
				require.Len(t, rep.Changes, 1, "%s: %+v", v.minor, rep.Changes)
				c := rep.Changes[0]
				require.Equal(t, tc.kind, c.Kind, v.minor)
				require.Equal(t, v.breaking, c.Breaking, "%s: %s", v.minor, c.Reason)
				require.Equal(t, v.ratcheted, c.Ratcheted, "%s: %s", v.minor, c.Reason)
				require.Contains(t, c.Reason, v.reason, v.minor)
				// What the target does not keep is marked, and said in the text.
				notKept := strings.Contains(c.Reason, "does not keep")
				require.Equal(t, notKept, c.NotKeptBy == v.minor, "%s: notKeptBy %q", v.minor, c.NotKeptBy)
				var text strings.Builder
				rep.WriteText(&text, "")
				require.Equal(t, notKept, strings.Contains(text.String(), "(not kept by Kubernetes "+v.minor+")"), text.String())
				n := 0
				if c.Breaking {
					n = 1
				}
				require.Equal(t, n, rep.Breaking, v.minor)
				last = c
			}
			newest := Compare(old, new).Changes[0]
			require.Equal(t, last, newest, "the newest minor's rules are Compare's")
		})
	}
}
