package resolver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// Test hooks for package resolver_test.

// NotASchema is notASchema: why a $ref target is no schema, or "".
var NotASchema = notASchema

// CompileSource is Compile(name, src) for the source Parse made of them,
// through Options.Patch: what TestCompileGolden compares with Compile.
func CompileSource(c *Compiler, s *Source) (*Result, error) {
	return c.compile(s.name, s.src, s, c.opts.Patch)
}

// WalkSchemas calls f with every schema node of schema and its JSON
// pointer, as the compiler walks a bundle definition.
func WalkSchemas(schema map[string]any, f func(s map[string]any, ptr string)) {
	walkSchemas(visitFunc(func(s map[string]any, p *schemaPath) { f(s, p.String()) }), schema, rootPath(""))
}

// DecodeJSON is what decodes bundle definitions.
var DecodeJSON = bundlefmt.Decode

// CachedTargets returns a fingerprint of every $ref target c has cached
// (by key): what TestCachedTargetsNeverChange compares before and after
// each compile.
func CachedTargets(c *Compiler) map[string]string {
	out := make(map[string]string, len(c.defs))
	for k, t := range c.defs {
		out[k] = fingerprint(t.schema)
	}
	return out
}

// fingerprint renders v whole, private keys, Go types and what lists hold
// past their length included, in key order: two values with one
// fingerprint are the same value.
func fingerprint(v any) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			b.WriteByte('{')
			for _, k := range sortedKeys(t) {
				fmt.Fprintf(&b, "%q:", k)
				walk(t[k])
				b.WriteByte(',')
			}
			b.WriteByte('}')
		case []any:
			// Up to its capacity: an append to a shared list writes
			// there first, unseen within its length.
			fmt.Fprintf(&b, "[%d/%d:", len(t), cap(t))
			for _, x := range t[:cap(t)] {
				walk(x)
				b.WriteByte(',')
			}
			b.WriteByte(']')
		default:
			fmt.Fprintf(&b, "%T(%#v)", v, v)
		}
	}
	walk(v)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}
