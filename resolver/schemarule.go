package resolver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// What a $ref may point at. A schema is a mapping whose every key is a
// JSON Schema or OpenAPI keyword (the JSONSchemaProps keys, the later
// drafts' and OpenAPI's own) or an x- extension, and whose keywords have
// values of their type: type a string or a list of strings, properties a
// mapping, required a list, minimum a number... The empty mapping is the
// schema of any value. Anything else, such as a CRD document (#), its spec
// or metadata, the properties mapping of a schema (property names are no
// keywords, and a property named type holds a mapping, not a type name),
// a list or a string, is refused at the $ref. Every definition of every
// embedded bundle counts as a schema (TestEveryDefinitionIsASchema).

type valueShape uint8

const (
	shapeAny valueShape = iota
	shapeString
	shapeNumber
	shapeBool
	shapeList
	shapeMap
	shapeType       // a string or a list of strings
	shapeBoolOrNum  // exclusiveMinimum: a bool (OpenAPI 3.0) or a number (JSON Schema 2019+)
	shapeMapOrBool  // additionalProperties
	shapeMapOrList  // items
	shapeListOrBool // required: a list, or a bool in draft 3
)

var shapeNames = map[valueShape]string{
	shapeString: "a string", shapeNumber: "a number", shapeBool: "a boolean", shapeList: "a list",
	shapeMap: "a mapping", shapeType: "a type name or a list of them", shapeBoolOrNum: "a boolean or a number",
	shapeMapOrBool: "a schema or a boolean", shapeMapOrList: "a schema or a list of schemas", shapeListOrBool: "a list",
}

// jsonSchemaProps maps the keys of apiextensions.k8s.io/v1
// JSONSchemaProps to the shape of their values.
var jsonSchemaProps = map[string]valueShape{
	"id": shapeString, "$schema": shapeString, "$ref": shapeAny, "description": shapeString, "type": shapeType,
	"format": shapeString, "title": shapeString, "default": shapeAny, "maximum": shapeNumber,
	"exclusiveMaximum": shapeBoolOrNum, "minimum": shapeNumber, "exclusiveMinimum": shapeBoolOrNum,
	"maxLength": shapeNumber, "minLength": shapeNumber, "pattern": shapeString, "maxItems": shapeNumber,
	"minItems": shapeNumber, "uniqueItems": shapeBool, "multipleOf": shapeNumber, "enum": shapeList,
	"maxProperties": shapeNumber, "minProperties": shapeNumber, "required": shapeListOrBool,
	"items": shapeMapOrList, "allOf": shapeList, "oneOf": shapeList, "anyOf": shapeList, "not": shapeMap,
	"properties": shapeMap, "additionalProperties": shapeMapOrBool, "patternProperties": shapeMap,
	"dependencies": shapeMap, "additionalItems": shapeMapOrBool, "definitions": shapeMap,
	"externalDocs": shapeMap, "example": shapeAny, "nullable": shapeBool,
}

// schemaKeywords maps every keyword a schema may hold to the shape of its
// value: jsonSchemaProps' and these.
var schemaKeywords = func() map[string]valueShape {
	m := map[string]valueShape{
		// OpenAPI 3.x.
		"readOnly": shapeBool, "writeOnly": shapeBool, "deprecated": shapeBool, "xml": shapeMap,
		"discriminator": shapeAny, "examples": shapeAny,
		// JSON Schema drafts 6 to 2020-12.
		"$id": shapeString, "$comment": shapeString, "$defs": shapeMap, "$anchor": shapeString,
		"$dynamicRef": shapeString, "$dynamicAnchor": shapeString, "$vocabulary": shapeMap,
		"$recursiveRef": shapeString, "$recursiveAnchor": shapeAny, "const": shapeAny,
		"if": shapeMapOrBool, "then": shapeMapOrBool, "else": shapeMapOrBool, "contains": shapeMapOrBool,
		"minContains": shapeNumber, "maxContains": shapeNumber, "propertyNames": shapeMapOrBool,
		"prefixItems": shapeList, "unevaluatedItems": shapeMapOrBool, "unevaluatedProperties": shapeMapOrBool,
		"dependentRequired": shapeMap, "dependentSchemas": shapeMap, "contentEncoding": shapeString,
		"contentMediaType": shapeString, "contentSchema": shapeMapOrBool,
	}
	maps.Copy(m, jsonSchemaProps)
	return m
}()

// notASchema explains what v is when it is not a schema by the rule
// above, or returns "".
func notASchema(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return describeValue(v)
	}
	if kind, ok := m["kind"].(string); ok {
		if _, ok := m["apiVersion"]; ok {
			if kind == "CustomResourceDefinition" {
				return "a whole CustomResourceDefinition document"
			}
			return "a Kubernetes object (kind " + kind + ")"
		}
	}
	keys := sortedKeys(m)
	for _, k := range keys {
		if strings.HasPrefix(k, "x-") {
			continue
		}
		shape, ok := schemaKeywords[k]
		if !ok {
			return fmt.Sprintf("a mapping with the key %q, which is no JSON Schema keyword", k)
		}
		if !hasShape(m[k], shape) {
			return fmt.Sprintf("a mapping whose %q is %s (in a schema it is %s)", k, describeValue(m[k]), shapeNames[shape])
		}
	}
	return ""
}

func hasShape(v any, s valueShape) bool {
	switch s {
	case shapeString:
		_, ok := v.(string)
		return ok
	case shapeNumber:
		return isNumber(v)
	case shapeBool:
		_, ok := v.(bool)
		return ok
	case shapeList:
		_, ok := v.([]any)
		return ok
	case shapeMap:
		_, ok := v.(map[string]any)
		return ok
	case shapeType:
		if _, ok := v.(string); ok {
			return true
		}
		l, ok := v.([]any)
		return ok && !slices.ContainsFunc(l, func(x any) bool { _, ok := x.(string); return !ok })
	case shapeBoolOrNum:
		return hasShape(v, shapeBool) || isNumber(v)
	case shapeMapOrBool:
		return hasShape(v, shapeMap) || hasShape(v, shapeBool)
	case shapeMapOrList:
		return hasShape(v, shapeMap) || hasShape(v, shapeList)
	case shapeListOrBool:
		return hasShape(v, shapeList) || hasShape(v, shapeBool)
	}
	return true
}

func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, int, int64, float64:
		return true
	}
	return false
}
