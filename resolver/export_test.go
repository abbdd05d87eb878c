package resolver

// Test hooks for package resolver_test.

// NotASchema is notASchema: why a $ref target is no schema, or "".
var NotASchema = notASchema

// DecodeJSON is decodeJSON.
var DecodeJSON = decodeJSON
