package resolver

import (
	"regexp"
	"strings"
	"testing"
)

// The regular expressions numberLike and hasScheme replaced, as oracles.
var (
	numberLikeRE = regexp.MustCompile(`^[-+]?(\.?[0-9]|0[xob]|\.(inf|nan)$)|^[0-9][0-9_:]*$|^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}`)
	schemeRE     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

var handwrittenSeeds = []string{
	"", "-", "+", "0", "-1", "+.5", ".5", ".", "..5", "-.inf", ".Inf", ".INF", ".NaN", "-.nan", ".infx", ".İNF",
	"0x1F", "0o17", "1_000", "1:30", "2001-12-14", "1e3", "--1", "-+1", "abc", "a1", "v1.30",
	"http://x", "https:", "git+ssh://h/p", "a.b-c+d:", "1a:", ":x", "a", "a:", "é:", "io.k8s.api.core.v1.PodSpec",
	"//host/p", "python://pkg/f.json", "c:\\dir", "a b:",
}

func checkHandwritten(t *testing.T, s string) {
	if got, want := numberLike(s), numberLikeRE.MatchString(strings.ToLower(s)); got != want {
		t.Errorf("numberLike(%q) = %v, the regexp says %v", s, got, want)
	}
	if got, want := hasScheme(s), schemeRE.MatchString(s); got != want {
		t.Errorf("hasScheme(%q) = %v, the regexp says %v", s, got, want)
	}
}

func TestHandwrittenMatchers(t *testing.T) {
	for _, s := range handwrittenSeeds {
		checkHandwritten(t, s)
	}
}

func FuzzHandwrittenMatchers(f *testing.F) {
	for _, s := range handwrittenSeeds {
		f.Add(s)
	}
	f.Fuzz(checkHandwritten)
}
