package doctest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// pendingPages are linked from README.md and docs/README.md and written alongside this
// change by others; until they land a link to one is logged, not failed.
var pendingPages = []string{"docs/operator.md", "docs/diff.md", "docs/migrating.md", "docs/safety.md"}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// slug is the anchor GitHub gives a heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the heading anchors of a Markdown file (outside code blocks).
func anchors(text string) []string {
	var out []string
	inCode := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
		}
		if !inCode && strings.HasPrefix(l, "#") {
			out = append(out, slug(strings.TrimLeft(l, "#")))
		}
	}
	return out
}

// TestDocLinks: every relative link of README.md and docs/ points at a file that exists,
// and every #anchor at a heading of it.
func TestDocLinks(t *testing.T) {
	files := append(docFiles(t), mdFiles(t, "docs/cli")...)
	checked := 0
	for _, name := range files {
		text, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(text), -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(link, "#")
			target := name
			if path != "" {
				target = filepath.ToSlash(filepath.Join(filepath.Dir(name), path))
			}
			checked++
			data, err := os.ReadFile(filepath.Join(root, target))
			if err != nil {
				if slices.Contains(pendingPages, target) {
					t.Logf("%s: links %s, which is not written yet", name, target)
					continue
				}
				if fi, serr := os.Stat(filepath.Join(root, target)); serr == nil && fi.IsDir() {
					continue
				}
				t.Errorf("%s: link %q: %s does not exist", name, link, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(target, ".md") && !slices.Contains(anchors(string(data)), anchor) {
				t.Errorf("%s: link %q: %s has no heading #%s", name, link, target, anchor)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d links", checked)
	}
}

func mdFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(root, dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range m {
		rel, _ := filepath.Rel(root, f)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}
