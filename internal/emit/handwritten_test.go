package emit

import (
	"regexp"
	"strings"
	"testing"
)

// numberLikeRE is the regular expression numberLike replaced, as an oracle.
var numberLikeRE = regexp.MustCompile(`^[-+]?(\.?[0-9]|0[xob]|\.(inf|nan)$)|^[0-9][0-9_:]*$|^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}`)

var numberLikeSeeds = []string{
	"", "-", "+", "0", "-1", "+.5", ".5", ".", "..5", "-.inf", ".Inf", ".INF", ".NaN", "-.nan", ".infx", ".İNF",
	"0x1F", "0o17", "1_000", "1:30", "2001-12-14", "1e3", "--1", "-+1", "abc", "a1", "v1.30", "1a:", ":x", "é:",
}

func checkNumberLike(t *testing.T, s string) {
	if got, want := numberLike(s), numberLikeRE.MatchString(strings.ToLower(s)); got != want {
		t.Errorf("numberLike(%q) = %v, the regexp says %v", s, got, want)
	}
}

// TestNumberLike runs the seeds; FuzzYAMLString checks numberLike on every
// string it is given.
func TestNumberLike(t *testing.T) {
	for _, s := range numberLikeSeeds {
		checkNumberLike(t, s)
	}
}
