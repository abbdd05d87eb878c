#!/usr/bin/env bash
# mutate-quick.sh: the faults TestQuickSchemaAgrees must catch. Each line
# below is a sed edit of internal/oracle/quick.go that makes the quick check
# say "no error" where kube-openapi's validator can find one (a keyword
# skipped, a bound's type range ignored, an enum compared loosely, a keyword
# it leaves to the validator taken as known...). The script applies each in
# turn, runs the test, restores the file, and fails if any fault survives or
# no longer applies (the code changed: update the line). A few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
file=internal/oracle/quick.go
orig=$(mktemp)
cp "$file" "$orig"
trap 'cp "$orig" "$file"; rm -f "$orig"' EXIT
n=0 bad=0
while IFS= read -r edit; do
  [[ -z $edit || $edit == \#* ]] && continue
  cp "$orig" "$file"
  sed -i "$edit" "$file"
  if cmp -s "$orig" "$file"; then
    echo "mutate-quick: no longer applies: $edit" >&2
    bad=$((bad + 1))
    continue
  fi
  n=$((n + 1))
  if go test -count=1 -run '^TestQuickSchemaAgrees$' ./internal/oracle >/dev/null 2>&1; then
    echo "mutate-quick: survived: $edit" >&2
    bad=$((bad + 1))
  fi
done <<'EOF'
s/if _, ok := m\[k\]; !ok {/if _, ok := m[k]; !ok \&\& false {/
s/return len(q.enum) == 0 || q.enumValid(v)/return true/
s/q.pattern != "" \&\& validate.Pattern/false \&\& validate.Pattern/
s/return !q.hasFormat || /return true || /
s/floatInt || intFloat$/floatInt || intFloat || true/
s/if !simple \&\& validate/if false \&\& validate/
s/return (len(q.types) == 0 || q.types.Contains("null") || q.nullable) \&\& len(q.enum) == 0/return true/
s/(q.maxItems == nil || n <= \*q.maxItems)/true/
s/q.maxLength != nil \&\& validate.MaxLength("", "", s, \*q.maxLength) != nil ||/false ||/
s/q.minLength != nil \&\& validate.MinLength("", "", s, \*q.minLength) != nil ||/false ||/
s/(q.minItems == nil || n >= \*q.minItems) \&\& //
s/q.maxProps != nil \&\& n > \*q.maxProps/false/
s/q.minProps != nil \&\& n < \*q.minProps ||//
s/if !p.valid(v) {/if false {/
s/if !q.additional.valid(v) {/if false {/
s/if !q.items.valid(item) {/if false {/
s/if !s.valid(v) {/if false {/
s/if s.valid(v) {/if true {/
s/if len(q.anyOf) > 0 \&\& !q.anyValid(v) {/if false {/
s/m != nil \&\& (!q.nativeMultipleOf ||/m != nil \&\& (false ||/
s/m != nil \&\& (!q.nativeMaximum ||/m != nil \&\& (false ||/
s/m != nil \&\& (!q.nativeMinimum ||/m != nil \&\& (false ||/
s/(!q.nativeMultipleOf || validate.MultipleOfNativeType("", "", v, \*m) != nil)/!q.nativeMultipleOf/
s/(!q.nativeMaximum || validate.MaximumNativeType("", "", v, \*m, q.exclusiveMaximum) != nil)/!q.nativeMaximum/
s/(!q.nativeMinimum || validate.MinimumNativeType("", "", v, \*m, q.exclusiveMinimum) != nil)/!q.nativeMinimum/
s/q.numType == "number" \&\& q.numFormat != "float" ||/q.numType == "number" ||/
s/q.numType == "integer" \&\& isInt \&\& q.numFormat != "int32"/q.numType == "integer"/
s/, exclusiveMinimum: s.ExclusiveMinimum,/,/
s/exclusiveMaximum: s.ExclusiveMaximum,//
s/floatInt := isFloat \&\& swag.IsFloat64AJSONInteger(f)/floatInt := isFloat/
s/if t != nil \&\& data.Type().ConvertibleTo(t) \&\& reflect.DeepEqual(data.Convert(t).Interface(), e) {/if t != nil {/
s/if e, ok := e.(string); ok \&\& e == s {/if true {/
s/if q.open {/if false {/
s/s.UniqueItems || s.AdditionalItems != nil/s.AdditionalItems != nil/
s/len(s.OneOf) > 0 || s.Not != nil || //
s/len(s.PatternProperties) > 0 || len(s.Dependencies) > 0 ||/false ||/
s/s.AdditionalProperties != nil \&\& !s.AdditionalProperties.Allows ||//
s/(s.Items.Schema == nil || len(s.Items.Schemas) > 0)/false/
s/if textual \&\& q.format != "" \&\& !q.types.Contains("number") \&\& !q.types.Contains("integer") {/if textual \&\& q.format != "" {/
s/return q.types.Contains(kind) || floatInt || intFloat$/return q.types.Contains(kind) || floatInt || intFloat || isFloat/
EOF
echo "mutate-quick: $n faults, $bad survived or no longer apply"
((bad == 0))
