package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// typedPathRow runs one command with a path the user typed (an argument, a
// flag's value, or the working directory) that goes through svc, a symbolic
// link committed in the repository to ../outside/proj: a project of its own
// outside the repository, whose files hold the canary.
type typedPathRow struct {
	command string // the root's subcommand the row exercises; "" for the legacy SRC DST form
	wd      string // the working directory, relative to the repository ("" for its top)
	args    []string
}

// typedPathRows has rows for every subcommand of the root that reads or
// writes files (TestTypedPathsThroughCommittedSymlinks fails on one without
// rows, unless noInputShapes lists it with the reason it reads nothing).
var typedPathRows = []typedPathRow{
	{"build", "", []string{"build", "--no-validate", "svc/templates/gadget.yaml"}},
	{"build", "", []string{"build", "--no-validate", "--config", "svc/.crd-resolver.yaml"}},
	{"build", "svc", []string{"build", "--no-validate"}},
	{"check", "", []string{"check", "--no-validate", "svc/templates/gadget.yaml"}},
	{"check", "", []string{"check", "--no-validate", "--config", "svc/.crd-resolver.yaml"}},
	{"check", "svc", []string{"check", "--no-validate"}},
	{"resolve", "", []string{"resolve", "--no-validate", "svc/templates/gadget.yaml"}},
	{"resolve", "", []string{"resolve", "--no-validate", "svc/templates/gadget.yaml", "--output-file", "out.yaml"}},
	{"resolve", "", []string{"resolve", "--no-validate", "svc/templates/gadget.yaml", "--root", "svc", "--output-file", "out.yaml"}},
	{"resolve", "", []string{"resolve", "--no-validate", "templates/widget.yaml", "--output-file", "svc/out.yaml"}},
	{"resolve", "", []string{"resolve", "--no-validate", "templates/widget.yaml", "-j", "svc/fix.patch.yaml"}},
	{"resolve", "svc", []string{"resolve", "--no-validate", "templates/gadget.yaml", "--output-file", "../out.yaml"}},
	{"", "", []string{"svc/templates/gadget.yaml", "out.yaml"}},
	{"", "", []string{"templates/widget.yaml", "svc/out.yaml"}},
	{"diff", "", []string{"diff", "svc/dist/gadget.yaml", "dist/widget.yaml"}},
	{"diff", "", []string{"diff", "--config", "svc/.crd-resolver.yaml", "--from", "1.30", "--to", "1.31"}},
	{"diff", "svc", []string{"diff", "--from", "1.30", "--to", "1.31"}},
	{"export", "", []string{"export", "jsonschema", "svc/dist/gadget.yaml", "-o", "schemas"}},
	{"export", "", []string{"export", "jsonschema", "dist/widget.yaml", "-o", "svc/schemas"}},
	{"export", "svc", []string{"export", "jsonschema", "-o", "../schemas"}},
	{"migrate", "svc", []string{"migrate", "--write"}},
	{"validate", "", []string{"validate", "svc/dist/gadget.yaml"}},
	{"validate", "", []string{"validate", "--crd", "svc/dist", "cr.yaml"}},
	{"validate", "svc", []string{"validate", "dist/gadget.yaml"}},
	{"init", "svc/templates", []string{"init"}},
}

// TestTypedPathsThroughCommittedSymlinks: a path typed on the command line
// is the user's intent, but the part of it inside a git work tree is
// repository content: svc, a symbolic link committed in the repository,
// leads out of it, so every command refuses to read or write through it
// (exit 2, "leads outside"), prints nothing from the other side, and
// changes nothing on either side, whether svc is in an argument, a flag's
// value or the working directory (docs/safety.md, "Who is trusted").
func TestTypedPathsThroughCommittedSymlinks(t *testing.T) {
	everyCommandHasRows(t, "TestTypedPathsThroughCommittedSymlinks", "one for each path it takes: arguments, flags, the working directory", func(name string) bool {
		return slices.ContainsFunc(typedPathRows, func(r typedPathRow) bool { return r.command == name })
	})
	companionOnPath(t) // validate's reading is the companion's

	gadget := strings.NewReplacer("widgets", "gadgets", "Widget", "Gadget", "type: object\n", "type: object\n        description: "+canary+"\n").Replace(template)
	compiled := strings.Replace(gadget, "{$ref: io.k8s.api.core.v1.LocalObjectReference}", "{type: object}", 1)
	for _, row := range typedPathRows {
		t.Run(strings.Join(append([]string{orDot(row.wd) + ":"}, row.args...), " "), func(t *testing.T) {
			base := t.TempDir()
			repo, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
			for name, content := range map[string]string{
				"repo/.git/HEAD":                     "ref: refs/heads/main\n",
				"repo/templates/widget.yaml":         template,
				"repo/cr.yaml":                       "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {name: x}\n",
				"outside/proj/.crd-resolver.yaml":    "sets:\n- templates: [templates/*.yaml]\n  outputs: [dist]\n",
				"outside/proj/templates/gadget.yaml": gadget,
				"outside/proj/defs/pinned.yaml":      "definitions:\n  X:\n    $ref: python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/io.k8s.api.core.v1.LocalObjectReference\n",
				"outside/proj/fix.patch.yaml":        "- {op: add, path: /metadata/labels, value: {secret: " + canary + "}}\n",
				"outside/proj/dist/gadget.yaml":      string(project.SealedFile("templates/gadget.yaml", []byte(compiled), "1.30")),
			} {
				p := filepath.Join(base, filepath.FromSlash(name))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
			}
			require.NoError(t, os.Symlink("../outside/proj", filepath.Join(repo, "svc")))
			_, stderr, code := runCmd(t, repo, "", "build", "--no-validate")
			require.Equal(t, 0, code, stderr)
			beforeRepo, beforeOut := snapshot(t, repo), snapshot(t, outside)

			stdout, stderr, code := runCmd(t, filepath.Join(repo, row.wd), "", row.args...)
			require.Equal(t, 2, code, "stdout: %s\nstderr: %s", stdout, stderr)
			require.Contains(t, stderr, "leads outside")
			require.NotContains(t, stdout+stderr, canary, "content from outside the repository was printed")
			require.Equal(t, beforeOut, snapshot(t, outside), "the directory outside the repository changed")
			require.Equal(t, beforeRepo, snapshot(t, repo), "the repository changed")
		})
	}
}
