package oracle

import (
	"reflect"
	"regexp"

	"github.com/go-openapi/swag"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// quickSchema answers one question about a custom resource before the
// apiserver's schema validation (kube-openapi's validate.SchemaValidator,
// which apiservervalidation.ValidateCustomResource runs) is asked: would it
// find no error at all? Yes means the validator's answer is known (no
// errors, so ValidateCustomResource returns nil) and it need not run; no
// means "not known": the validator runs and gives the errors, in its words.
//
// Why not only the library: for every object node it visits, the validator
// builds a fresh validator per schema keyword and copies the schema of
// every declared property (a range by value over map[string]spec.Schema
// whose address escapes), whether the object has the property or not: on
// a stream of small custom resources, most of what validate allocates and,
// with the collections it causes, a large part of its CPU time
// (docs/performance.md, "Validate", has the numbers and the commands).
// quickSchema walks a schema compiled once per CRD version and allocates
// nothing on the way.
//
// It decides only what it mirrors exactly, keyword by keyword, from
// kube-openapi's validators (type, nullable, format, enum, string length
// and pattern, numeric range and bounds, items, item counts, properties,
// additionalProperties, required, property counts, allOf, anyOf), and
// calls the library's own exported checks for the leaves (validate.Pattern,
// FormatOf, MaxLength, MinimumNativeType, ...). A keyword it does not
// mirror (oneOf, not, patternProperties, dependencies, uniqueItems, tuple
// items, additionalItems, additionalProperties: false, $ref; of these a
// structural schema may have oneOf and not) makes the node open: a value
// that meets it is "not known". So is any Go type JSON decoding does not
// give. A wrong "yes" would be a missed refusal: TestQuickSchemaAgrees
// holds quickSchema to the validator on every schema of the repository's
// CRDs and golden cases, the built-in kinds of three minors and
// testdata/quick-keywords.yaml, with valid and mutated values.
type quickSchema struct {
	open bool // a keyword quickSchema does not mirror

	types    spec.StringOrArray
	nullable bool
	format   string
	// hasFormat is whether the format validator applies to strings:
	// strfmt.Default knows the format.
	hasFormat bool
	enum      []any

	maxLength, minLength *int64
	pattern              string

	// The number validator's type and format: set only for a single type
	// and the formats it checks ranges of.
	numType, numFormat           string
	multipleOf, maximum, minimum *float64
	exclusiveMaximum             bool
	exclusiveMinimum             bool
	// Whether each bound is within the number type's range (else the
	// validator refuses every number).
	nativeMultipleOf, nativeMaximum, nativeMinimum bool

	items              *quickSchema
	maxItems, minItems *int64

	properties         map[string]*quickSchema
	additional         *quickSchema // additionalProperties: {schema}
	required           []string
	maxProps, minProps *int64
	allOf, anyOf       []*quickSchema
}

// compileQuick compiles s, the schema the validator is built from.
func compileQuick(s *spec.Schema) *quickSchema {
	q := &quickSchema{
		types:     s.Type,
		nullable:  s.Nullable,
		format:    s.Format,
		hasFormat: strfmt.Default.ContainsName(s.Format),
		enum:      s.Enum,
		maxLength: s.MaxLength, minLength: s.MinLength, pattern: s.Pattern,
		multipleOf: s.MultipleOf, maximum: s.Maximum, minimum: s.Minimum,
		exclusiveMaximum: s.ExclusiveMaximum, exclusiveMinimum: s.ExclusiveMinimum,
		maxItems: s.MaxItems, minItems: s.MinItems,
		required: s.Required,
		maxProps: s.MaxProperties, minProps: s.MinProperties,
	}
	if len(s.Type) == 1 {
		switch s.Type[0] {
		case "integer":
			q.numType = "integer"
			if s.Format == "int32" || s.Format == "int64" {
				q.numFormat = s.Format
			}
		case "number":
			q.numType = "number"
			if s.Format == "float" || s.Format == "double" {
				q.numFormat = s.Format
			}
		}
	}
	native := func(b *float64) bool {
		return b != nil && validate.IsValueValidAgainstRange(*b, q.numType, q.numFormat, "", "") == nil
	}
	q.nativeMultipleOf, q.nativeMaximum, q.nativeMinimum = native(s.MultipleOf), native(s.Maximum), native(s.Minimum)
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			q.open = true
		}
	}
	if len(s.OneOf) > 0 || s.Not != nil || len(s.PatternProperties) > 0 || len(s.Dependencies) > 0 ||
		s.UniqueItems || s.AdditionalItems != nil || s.Ref.String() != "" ||
		s.AdditionalProperties != nil && !s.AdditionalProperties.Allows ||
		s.Items != nil && (s.Items.Schema == nil || len(s.Items.Schemas) > 0) {
		q.open = true
		return q
	}
	if s.Items != nil {
		q.items = compileQuick(s.Items.Schema)
	}
	if len(s.Properties) > 0 {
		q.properties = make(map[string]*quickSchema, len(s.Properties))
		for name := range s.Properties {
			p := s.Properties[name]
			q.properties[name] = compileQuick(&p)
		}
	}
	if a := s.AdditionalProperties; a != nil && a.Schema != nil {
		q.additional = compileQuick(a.Schema)
	}
	for i := range s.AllOf {
		q.allOf = append(q.allOf, compileQuick(&s.AllOf[i]))
	}
	for i := range s.AnyOf {
		q.anyOf = append(q.anyOf, compileQuick(&s.AnyOf[i]))
	}
	return q
}

// valid reports whether the validator would find no error in v (false:
// not known). It follows validate.SchemaValidator.Validate: for null, the
// type and enum validators alone; else each validator that applies to
// the value's kind.
func (q *quickSchema) valid(v any) bool {
	if q.open {
		return false
	}
	if v == nil {
		return (len(q.types) == 0 || q.types.Contains("null") || q.nullable) && len(q.enum) == 0
	}
	var kind string // the type validator's schema type of v
	switch v.(type) {
	case map[string]any:
		kind = "object"
	case []any:
		kind = "array"
	case string:
		kind = "string"
	case bool:
		kind = "boolean"
	case int64:
		kind = "integer"
	case float64:
		kind = "number"
	default:
		return false
	}
	if (len(q.types) > 0 || q.format != "") && !q.typeValid(v, kind) {
		return false
	}
	for _, s := range q.allOf {
		if !s.valid(v) {
			return false
		}
	}
	if len(q.anyOf) > 0 && !q.anyValid(v) {
		return false
	}
	switch v := v.(type) {
	case string:
		if !q.stringValid(v) {
			return false
		}
	case int64, float64:
		if !q.numberValid(v) {
			return false
		}
	case []any:
		if !q.arrayValid(v) {
			return false
		}
	case map[string]any:
		if !q.objectValid(v) {
			return false
		}
	}
	return len(q.enum) == 0 || q.enumValid(v)
}

// typeValid is the type validator (validate's typeValidator.Validate) for
// the kinds valid lets through. Its check of a format against a value
// that is no string or array refuses only values its type check refuses
// too, so it is not repeated here.
func (q *quickSchema) typeValid(v any, kind string) bool {
	f, isFloat := v.(float64)
	floatInt := isFloat && swag.IsFloat64AJSONInteger(f) && q.types.Contains("integer")
	intFloat := kind == "integer" && q.types.Contains("number")
	textual := kind == "string" || kind == "array"
	if textual && q.format != "" && !q.types.Contains("number") && !q.types.Contains("integer") {
		return true // a format on a string passes the type validator
	}
	return q.types.Contains(kind) || floatInt || intFloat
}

func (q *quickSchema) anyValid(v any) bool {
	for _, s := range q.anyOf {
		if s.valid(v) {
			return true
		}
	}
	return false
}

// stringValid is the string and format validators.
func (q *quickSchema) stringValid(s string) bool {
	if q.maxLength != nil && validate.MaxLength("", "", s, *q.maxLength) != nil ||
		q.minLength != nil && validate.MinLength("", "", s, *q.minLength) != nil ||
		q.pattern != "" && validate.Pattern("", "", s, q.pattern) != nil {
		return false
	}
	return !q.hasFormat || validate.FormatOf("", "", q.format, s, strfmt.Default) == nil
}

// numberValid is the number validator. Where its checks of a value's
// range would format the number as text (a float for an integer type, a
// float format, int32), the library's own IsValueValidAgainstRange runs.
func (q *quickSchema) numberValid(v any) bool {
	_, isInt := v.(int64)
	simple := q.numType == "" || q.numType == "number" && q.numFormat != "float" ||
		q.numType == "integer" && isInt && q.numFormat != "int32"
	if !simple && validate.IsValueValidAgainstRange(v, q.numType, q.numFormat, "Checked", "") != nil {
		return false
	}
	// A bound outside the type's range is an error of its own (the
	// validator adds the range check's error), whatever the value.
	if m := q.multipleOf; m != nil && (!q.nativeMultipleOf || validate.MultipleOfNativeType("", "", v, *m) != nil) {
		return false
	}
	if m := q.maximum; m != nil && (!q.nativeMaximum || validate.MaximumNativeType("", "", v, *m, q.exclusiveMaximum) != nil) {
		return false
	}
	if m := q.minimum; m != nil && (!q.nativeMinimum || validate.MinimumNativeType("", "", v, *m, q.exclusiveMinimum) != nil) {
		return false
	}
	return true
}

// arrayValid is the slice validator.
func (q *quickSchema) arrayValid(a []any) bool {
	if q.items != nil {
		for _, item := range a {
			if !q.items.valid(item) {
				return false
			}
		}
	}
	n := int64(len(a))
	return (q.minItems == nil || n >= *q.minItems) && (q.maxItems == nil || n <= *q.maxItems)
}

// objectValid is the object validator.
func (q *quickSchema) objectValid(m map[string]any) bool {
	n := int64(len(m))
	if q.minProps != nil && n < *q.minProps || q.maxProps != nil && n > *q.maxProps {
		return false
	}
	for k, v := range m {
		p, declared := q.properties[k]
		switch {
		case declared:
			if !p.valid(v) {
				return false
			}
		case q.additional != nil:
			if !q.additional.valid(v) {
				return false
			}
		}
	}
	for _, k := range q.required {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// enumValid is the common validator's enum check: v converted to the
// type of an enum value equals it.
func (q *quickSchema) enumValid(v any) bool {
	if s, ok := v.(string); ok {
		for _, e := range q.enum {
			if e, ok := e.(string); ok && e == s {
				return true
			}
		}
		// A string converts to no other type JSON decoding gives.
		return false
	}
	data := reflect.ValueOf(v)
	for _, e := range q.enum {
		t := reflect.TypeOf(e)
		if t != nil && data.Type().ConvertibleTo(t) && reflect.DeepEqual(data.Convert(t).Interface(), e) {
			return true
		}
	}
	return false
}
