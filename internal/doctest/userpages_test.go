package doctest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// userPages are the pages a user reads to use the tool (docs/README.md's
// "Using it", and the README): they say what the tool does, not how it is
// built or tested, which docs/developing.md says.
var userPages = []string{"README.md", "docs/refs.md", "docs/build-check.md", "docs/diff.md", "docs/config.md",
	"docs/validation.md", "docs/validating.md", "docs/versions.md"}

// internals are what a user page has no use for: test names, the
// repository's make targets for bundles, Go source files, Go identifiers
// of the configuration's types.
var internals = regexp.MustCompile(`\b(Test|Fuzz|Benchmark)[A-Z][A-Za-z]+|make schemas|\b[a-z]+(/[a-z_]+)*/[a-z_]+\.go\b|\b(resolver|project)\.[A-Z][A-Za-z]+`)

// TestUserPagesHaveNoInternals: the user pages name no test, no bundle
// make target, no Go source file and no Go identifier (HTML comments, the
// markers of generated parts, aside).
func TestUserPagesHaveNoInternals(t *testing.T) {
	comment := regexp.MustCompile(`(?s)<!--.*?-->`)
	for _, p := range userPages {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		text := comment.ReplaceAllString(string(data), "")
		for i, line := range strings.Split(text, "\n") {
			if m := internals.FindString(line); m != "" {
				t.Errorf("%s: %q on line %d (of the page without comments) is for developers: say it in docs/developing.md", p, m, i+1)
			}
		}
	}
}
