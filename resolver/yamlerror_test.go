package resolver

import (
	"errors"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
)

// TestYAMLErrorPosition: a YAML syntax error is reported at a line and a
// column, the line yaml.v3's parser counts from 0 put right (a flow
// collection left open is at its bracket, not a line early), and the
// column found in linear time on that one line.
func TestYAMLErrorPosition(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"apiVersion: v1\nkind: [a, b\nmetadata: x\n", "f.yaml:2:7"},
		{"a: 1\nb: {c: 1, d: 2\n\ne: 3\n", "f.yaml:2:4"},
		{"x: 1\ny:\n  z: {a: [1,\n   2}\n", "f.yaml:3:10"},
		{"a: {b: [1, 2}\n", "f.yaml:1:8"},
		{"a: 1\n  b: 2\n", "f.yaml:2:4"},
		{"a: b: c\n", "f.yaml:1:5"},
		{"a:\n  - x\n - y\n", "f.yaml:3:2"},
		{"a: 1\nb: @x\n", "f.yaml:2:4"},
	} {
		_, err := docread.Decode("f.yaml", []byte(tc.src), 0)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if got := e.Pos.String(); got != tc.want {
			t.Errorf("%q: at %s, want %s (%v)", tc.src, got, tc.want, err)
		}
	}
}
