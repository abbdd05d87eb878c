package resolver

import "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"

// Test hooks for package resolver_test.

// NotASchema is notASchema: why a $ref target is no schema, or "".
var NotASchema = notASchema

// DecodeJSON is what decodes bundle definitions.
var DecodeJSON = bundlefmt.Decode
