package safetext

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		".spec.containers[*].image": ".spec.containers[*].image",
		"naïve — ünïcode":           "naïve — ünïcode",
		"":                          "",
		"a\nb":                      `"a\nb"`,
		"\x1b[31mred":               `"\x1b[31mred"`,
		"::error::forged":           `"::error::forged"`,
		"tab\there":                 `"tab\there"`,
		"bidi\u202eevil":            `"bidi\u202eevil"`,
		"c1\u009bcsi":               `"c1\u009bcsi"`,
		"bad\xffutf8":               `"bad\xffutf8"`,
		"del\x7f":                   `"del\x7f"`,
	} {
		require.Equal(t, want, Quote(in), "%q", in)
	}
}

func TestLines(t *testing.T) {
	require.Equal(t, "--- a\n+++ b\n-x: 1\n+x: 2\n", Lines("--- a\n+++ b\n-x: 1\n+x: 2\n"))
	require.Equal(t, "-x\n+\"\\x1b[2K\"\n \"::error::x\"\n", Lines("-x\n+\x1b[2K\n ::error::x\n"))
	require.Equal(t, "+\"a\\rb\"", Lines("+a\rb"))
}
