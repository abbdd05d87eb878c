package resolver

import (
	"regexp"
	"testing"
)

// The regular expressions hasScheme, pythonSchemataMinor and
// githubSwaggerMinor replaced, as oracles (internal/emit tests numberLike's).
var (
	schemeRE         = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	pythonSchemataRE = regexp.MustCompile(`^k8s_crd_resolver/schemata/k8s-(\d+\.\d+)(\.\d+)?\.json$`)
	githubSwaggerRE  = regexp.MustCompile(`^https?://raw\.githubusercontent\.com/kubernetes/kubernetes/(?:v(\d+\.\d+)\.\d+|release-(\d+\.\d+))/api/openapi-spec/swagger\.json$`)
)

var handwrittenSeeds = []string{
	"", "-", "+", "0", "-1", "+.5", ".5", ".", "..5", "-.inf", ".Inf", ".INF", ".NaN", "-.nan", ".infx", ".İNF",
	"0x1F", "0o17", "1_000", "1:30", "2001-12-14", "1e3", "--1", "-+1", "abc", "a1", "v1.30",
	"http://x", "https:", "git+ssh://h/p", "a.b-c+d:", "1a:", ":x", "a", "a:", "é:", "io.k8s.api.core.v1.PodSpec",
	"//host/p", "python://pkg/f.json", "c:\\dir", "a b:",
	"k8s_crd_resolver/schemata/k8s-1.21.1.json", "k8s_crd_resolver/schemata/k8s-1.21.json",
	"k8s_crd_resolver/schemata/k8s-1.21..json", "k8s_crd_resolver/schemata/k8s-1.json", "k8s_crd_resolver/schemata/k8s-.21.json",
	"k8s_crd_resolver/schemata/k8s-1.21.1.2.json", "k8s_crd_resolver/schemata/k8s-1.21.1.jsonx", "k8s_crd_resolver/schemata/k8s-١.21.json",
	"https://raw.githubusercontent.com/kubernetes/kubernetes/v1.21.1/api/openapi-spec/swagger.json",
	"http://raw.githubusercontent.com/kubernetes/kubernetes/release-1.21/api/openapi-spec/swagger.json",
	"https://raw.githubusercontent.com/kubernetes/kubernetes/v1.21/api/openapi-spec/swagger.json",
	"https://raw.githubusercontent.com/kubernetes/kubernetes/release-1.21.1/api/openapi-spec/swagger.json",
	"https://raw.githubusercontent.com/kubernetes/kubernetes/v1.21.1.1/api/openapi-spec/swagger.json",
	"ftp://raw.githubusercontent.com/kubernetes/kubernetes/v1.21.1/api/openapi-spec/swagger.json",
	"https://rawXgithubusercontent.com/kubernetes/kubernetes/v1.21.1/api/openapi-spec/swagger.json",
	"https://raw.githubusercontent.com/kubernetes/kubernetes/v1.21.1/api/openapi-spec/swagger.json/",
	"https://raw.githubusercontent.com/kubernetes/kubernetes/master/api/openapi-spec/swagger.json",
}

func checkHandwritten(t *testing.T, s string) {
	if got, want := hasScheme(s), schemeRE.MatchString(s); got != want {
		t.Errorf("hasScheme(%q) = %v, the regexp says %v", s, got, want)
	}
	minor, ok := pythonSchemataMinor(s)
	if m := pythonSchemataRE.FindStringSubmatch(s); ok != (m != nil) || ok && minor != m[1] {
		t.Errorf("pythonSchemataMinor(%q) = %q, %v; the regexp says %q", s, minor, ok, m)
	}
	minor, ok = githubSwaggerMinor(s)
	if m := githubSwaggerRE.FindStringSubmatch(s); ok != (m != nil) || ok && minor != m[1]+m[2] {
		t.Errorf("githubSwaggerMinor(%q) = %q, %v; the regexp says %q", s, minor, ok, m)
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
