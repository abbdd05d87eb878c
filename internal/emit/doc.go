// Package emit writes compiled CRDs as YAML: the compiler's one YAML
// writer, deterministic so that the same value gives the same bytes on
// every machine.
//
// # Values
//
// It writes plain values (map[string]any, []any, []string, string, bool,
// json.Number, ints, floats, nil), the form a schema keeps from reading to
// writing. A map's key PrivateKey is the compiler's own bookkeeping (a
// Kubernetes default carried beside a list-map key until the CRD is
// written) and is never written.
//
// # Form
//
// Keys sorted bytewise, block style, two-space indent, sequences indented
// under their key, empty collections as {} and [], multi-line text as
// literal blocks, LF line ends; a string is plain only where YAML 1.1 and
// 1.2 readers both read it back as that string (numberLike,
// isPlainSafe), quoted otherwise. YAML returns one document,
// AppendDocuments and WriteDocuments a "---" separated stream.
//
// AppendJSON (json.go) writes the compact JSON form of the same values,
// escaped as the JSON size accounting of internal/docread counts it.
package emit

// PrivateKey is the one key the compiler keeps in a schema while it
// works (a Kubernetes default of a list-map key, see resolver's
// import.go) and never writes out.
const PrivateKey = "x-k8s-crd-resolver-default"
