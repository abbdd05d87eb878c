// Package sourcetext holds the rules the compiler's two readers (yaml.v3,
// and the strict JSON reader, both in package resolver's load.go and
// jsondoc.go) apply to source text itself rather than to the values they
// build: which reader a text goes to, where in it a problem stands, and
// which numbers the apiserver can read. Every function is pure and linear
// in its input; the readers, which also charge what they build to the
// compile's budget, stay with that budget in resolver.
//
// # Text
//
// LooksLikeJSON sends text that starts with { or [ to the strict JSON
// reader. FirstInvalidUTF8 and LineCol place a NUL byte or a bad UTF-8
// sequence at a line and column.
//
// # YAML errors
//
// yaml.v3 reports only a line, counted from 0 by its parser and from 1 by
// its scanner, and sometimes the line where the enclosing collection
// opened. YAMLError puts the line right and finds the column on it from
// what the message says (the bracket left open, the colon where no
// mapping value may be, the quote left open).
//
// # Numbers
//
// The apiserver decodes a JSON number as int64 when it is an integer and
// float64 otherwise. IsJSONNumber says whether a scalar is written as JSON
// writes numbers (it is then kept as written), CheckNumber why such a
// number cannot be decoded, and OutOfRange whether a plain YAML scalar
// that yaml.v3 would read as a string is a number too large for 64 bits.
package sourcetext
