package doctest

import (
	"fmt"
	"strings"
	"testing"
)

// TestUseDirective: a use directive writes another page's file block under
// a name of its own before the next command, and names what it cannot find.
func TestUseDirective(t *testing.T) {
	pages := map[string]string{
		"a.md": "<!-- file: w.yaml -->\n```yaml\nkind: Widget\n```\n",
		"b.md": "<!-- use: a.md w.yaml as t/w.yaml -->\n\n```sh\ncat t/w.yaml\n```\n",
		"c.md": "<!-- use: a.md nope.yaml as w.yaml -->\n",
	}
	page := func(name string) ([]block, error) {
		text, ok := pages[name]
		if !ok {
			return nil, fmt.Errorf("no page %s", name)
		}
		return parseBlocks(name, text)
	}
	blocks, err := page("b.md")
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := script("b.md", blocks, page)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Files) == 0 || string(a.Files[0].Data) != "kind: Widget\n" {
		t.Errorf("files %v: want a.md's w.yaml block first", a.Files)
	}
	if c := string(a.Comment); !strings.Contains(c, "mkdir t\ncp .doctest/file0 t/w.yaml\n# b.md:3\nexec bash") {
		t.Errorf("script:\n%s\nwant t/w.yaml written before b.md:3 runs", c)
	}
	blocks, err = page("c.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := script("c.md", blocks, page); err == nil || !strings.Contains(err.Error(), "c.md:1: a.md has no <!-- file: nope.yaml --> block") {
		t.Errorf("got %v, want the missing block named", err)
	}
}
