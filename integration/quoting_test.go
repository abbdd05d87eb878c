package integration

import (
	"strings"
	"testing"
)

// hostileText could, printed raw, recolour a terminal, start lines of
// its own and be read by GitHub Actions as a workflow command.
const hostileText = "x\x1b[31m\ntotal: 0 problems\n::error::forged"

// yamlHostile is hostileText in a YAML double-quoted scalar.
const yamlHostile = `"x\e[31m\ntotal: 0 problems\n::error::forged"`

// TestRepositoryTextIsQuoted: a pull request's file names, property names,
// object names and unknown keys holding an ANSI escape, newlines and a
// workflow command reach every text line that carries them (build's
// summary, "the apiserver would reject the output", build's and check's
// examples lines, validate's problems and warnings) quoted, never raw and
// never as a line of their own.
func TestRepositoryTextIsQuoted(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, ".crd-resolver.yaml", "kubernetesVersion: \"1.30\"\nremoveDescriptions: true\nexamples: [\"examples/*.yaml\"]\n")
	write(t, dir, "templates/h"+hostileText+".yaml", crdTemplate("deltas", "{type: object, properties: {"+yamlHostile+": {type: string}}}"))
	write(t, dir, "examples/ok.yaml", "apiVersion: example.com/v1\nkind: Kbetas\nmetadata: {name: b}\n")
	checkQuoted := func(what string, r result) {
		t.Helper()
		out := r.stdout + r.stderr
		if strings.Contains(out, "\x1b") {
			t.Errorf("%s printed an escape raw: %q", what, out)
		}
		for line := range strings.SplitSeq(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.TrimSpace(line) == "total: 0 problems" {
				t.Errorf("%s: a forged line %q in %q", what, line, out)
			}
		}
	}
	r := cli(t, dir, "build").must(t, 0)
	checkQuoted("build's summary", r)
	contains(t, "build's summary", r.stdout, `"templates/hx\x1b[31m\ntotal: 0 problems\n::error::forged.yaml" -> `)

	// Examples: an unknown key and an object name, both hostile.
	write(t, dir, "examples/h.yaml", "apiVersion: example.com/v1\nkind: Kbetas\nmetadata: {name: "+yamlHostile+"}\nspec: {"+yamlHostile+": 1}\n")
	for _, args := range [][]string{{"build"}, {"check"}, {"validate", "examples/h.yaml"}, {"validate", "--pruning=warn", "examples/h.yaml"}} {
		r := cli(t, dir, args...).must(t, 1)
		checkQuoted(strings.Join(args, " "), r)
		contains(t, strings.Join(args, " "), r.stdout+r.stderr, `"Kbetas/x\x1b[31m\ntotal: 0 problems\n::error::forged": "spec.x\x1b[31m\ntotal: 0 problems\n::error::forged": unknown field`)
	}
	write(t, dir, "examples/h.yaml", "apiVersion: example.com/v1\nkind: Kbetas\nmetadata: {name: b}\n")

	// The apiserver rejects the output: the property's name is in the
	// field path of its problem.
	write(t, dir, "templates/h"+hostileText+".yaml", crdTemplate("deltas", "{type: object, properties: {"+yamlHostile+": {type: array, x-kubernetes-list-type: map, items: {type: string}}}}"))
	for _, args := range [][]string{{"build"}, {"check"}, {"resolve", "templates/h" + hostileText + ".yaml"}} {
		r := cli(t, dir, args...)
		if r.code != 1 {
			t.Fatalf("%q: exit %d, want 1: %q", args, r.code, r.stdout+r.stderr)
		}
		checkQuoted(strings.Join(args, " "), r)
		contains(t, strings.Join(args, " "), r.stderr, "the apiserver would reject the output")
	}
}
