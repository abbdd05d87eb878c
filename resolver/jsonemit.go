package resolver

import "encoding/json"

// AppendJSON appends the CRD's compact JSON to dst: json.Marshal of
// Object (keys sorted, HTML characters escaped), JSONSize bytes of it.
// Safe for concurrent use with other AppendJSON calls; not with a compile
// running on the Compiler.
func (d Document) AppendJSON(dst []byte) []byte {
	b, err := json.Marshal(d.Object())
	if err != nil {
		return append(dst, "null"...) // unreachable: compiled values came from JSON or YAML
	}
	return append(dst, b...)
}

// View returns the CRD as Object does, as plain JSON-like values: a
// fresh copy. Read it, never change it (the name says so to callers that
// compare and hash CRDs).
func (d Document) View() map[string]any { return d.Object() }
