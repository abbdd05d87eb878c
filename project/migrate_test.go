package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pinned is a template whose $ref pins the Python tool's bundle of minor.
func pinned(plural, minor string) string {
	return template(plural, "python://k8s_crd_resolver/schemata/k8s-"+minor+".json#/definitions/io.k8s.api.core.v1.LocalObjectReference")
}

// TestMigrateEditsConfigurations: migrate --write gives an existing
// configuration kubernetesVersion in its own style, wherever its mapping
// starts (after "---", comments then "---", indented, flow style), and the
// result reads as the same configuration with the version added.
func TestMigrateEditsConfigurations(t *testing.T) {
	sets := "sets:\n  - templates: [\"templates/*.yaml\"]\n    outputs: [dist]\n"
	for name, config := range map[string]string{
		"document start":          "---\n" + sets,
		"comment, document start": "# ours\n---\n# the sets\n" + sets,
		"indented":                "---\n  removeDescriptions: true\n  failOn: breaking\n",
		"flow":                    "{sets: [{templates: [\"templates/*.yaml\"], outputs: [dist]}]}\n",
		"flow, empty":             "# nothing yet\n{}\n",
		"comments only":           "# nothing yet\n",
		"plain":                   "removeDescriptions: true\n" + sets,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, ".git/HEAD", "")
			write(t, dir, "templates/a.yaml", pinned("as", "1.21.1"))
			write(t, dir, ConfigFileName, config)
			before, err := ParseConfig("c", []byte(config))
			if err != nil {
				t.Fatal(err)
			}
			m, err := Migrate(dir, MigrateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Apply(); err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(filepath.Join(dir, ConfigFileName))
			if err != nil {
				t.Fatal(err)
			}
			after, err := ParseConfig("c", src)
			if err != nil {
				t.Fatalf("the edited configuration does not read:\n%s\n%v", src, err)
			}
			if after.KubernetesVersion != "1.21" || len(after.Sets) != len(before.Sets) || after.FailOn != before.FailOn ||
				(before.RemoveDescriptions == nil) != (after.RemoveDescriptions == nil) {
				t.Errorf("edited:\n%s\nreads as %+v, was %+v", src, after, before)
			}
			if _, err := Open(dir, Options{}); err != nil {
				t.Errorf("the edited project does not open: %v\n%s", err, src)
			}
		})
	}
}

// TestMigrateRefuses: pins naming a minor this tool does not embed, a
// --k8s-version that is none, a set overriding kubernetesVersion with
// another minor than the pins', a configuration recording another minor
// than the pins' (a second migrate after a template was pinned to a newer
// one) and a pin with a path after #/definitions/ (bare, a file $ref out
// of the project) are refused, and nothing is written.
func TestMigrateRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		files   map[string]string
		opts    MigrateOptions
		message string
	}{
		"python pin to 1.99": {
			files:   map[string]string{"templates/a.yaml": pinned("as", "1.99.0")},
			message: "the pins in templates/a.yaml name Kubernetes 1.99, which this tool does not embed",
		},
		"GitHub pin to v1.5.0": {
			files:   map[string]string{"templates/a.yaml": template("as", "https://raw.githubusercontent.com/kubernetes/kubernetes/v1.5.0/api/openapi-spec/swagger.json#/definitions/io.k8s.api.core.v1.LocalObjectReference")},
			message: "name Kubernetes 1.5, which this tool does not embed",
		},
		"--k8s-version garbage": {
			files:   map[string]string{"templates/a.yaml": pinned("as", "1.21.1")},
			opts:    MigrateOptions{KubernetesVersion: "garbage"},
			message: "--k8s-version:",
		},
		"a set overriding the version": {
			files: map[string]string{
				"templates/a.yaml": pinned("as", "1.21.1"),
				ConfigFileName:     "sets:\n  - templates: [\"templates/*.yaml\"]\n    outputs: [dist]\n    kubernetesVersion: \"1.30\"\n",
			},
			message: "sets[0] sets kubernetesVersion 1.30, which overrides the 1.21 the pins named",
		},
		"a path after #/definitions/": {
			files:   map[string]string{"templates/a.yaml": template("as", "python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/../../../secret.yaml")},
			message: "templates/a.yaml:18: the pinned $ref python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/../../../secret.yaml names no definition",
		},
		"a newer minor than the configuration's": {
			files: map[string]string{
				"templates/a.yaml": pinned("as", "1.25.0"),
				ConfigFileName:     "kubernetesVersion: \"1.21\"\nsets:\n  - templates: [\"templates/*.yaml\"]\n    outputs: [dist]\n",
			},
			message: ".crd-resolver.yaml:1 sets kubernetesVersion 1.21, but the pins name 1.25",
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, ".git/HEAD", "")
			for f, content := range c.files {
				write(t, dir, f, content)
			}
			_, err := Migrate(dir, c.opts)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("got %v, want an error saying %q", err, c.message)
			}
		})
	}
}

// TestUncoveredTemplate: a CRD template beside the templates a set lists
// by name fails Open (build, check) until a set matches or excludes it.
func TestUncoveredTemplate(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	write(t, dir, "templates/a.yaml", template("as", "io.k8s.api.core.v1.LocalObjectReference"))
	write(t, dir, "templates/b.yaml", template("bs", "io.k8s.api.core.v1.LocalObjectReference"))
	write(t, dir, ConfigFileName, "sets:\n  - templates: [templates/a.yaml]\n    outputs: [dist]\n")
	_, err := Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "templates/b.yaml holds a CustomResourceDefinition, but no set of .crd-resolver.yaml matches it, although .crd-resolver.yaml:2 takes templates from templates/") {
		t.Fatalf("got %v", err)
	}
	write(t, dir, ConfigFileName, "sets:\n  - templates: [templates/a.yaml]\n    exclude: [templates/b.yaml]\n    outputs: [dist]\n")
	if _, err := Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateDiffIsQuoted: migrate's dry-run diff prints the template's
// own lines, so a line holding a character that rearranges what a
// terminal shows (a bidirectional override, which YAML allows in a
// comment) or a workflow command ("::error::", as GitHub Actions reads it)
// is quoted as check's diffs are.
func TestMigrateDiffIsQuoted(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	// Hostile comments on the lines around the pin, inside the diff's context.
	var lines []string
	for _, line := range strings.Split(pinned("as", "1.21.1"), "\n") {
		if strings.Contains(line, "$ref:") {
			lines = append(lines, "# \u202ereversed", "# ::error::forged")
		}
		lines = append(lines, line)
	}
	tpl := strings.Join(lines, "\n")
	write(t, dir, "templates/a.yaml", tpl)
	m, err := Migrate(dir, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := m.Diff(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "python://") {
		t.Fatalf("the diff does not show the pin it rewrites:\n%s", out)
	}
	if strings.ContainsRune(out, '\u202e') || strings.Contains(out, "# ::error::forged\n") {
		t.Errorf("repository text reached the diff raw:\n%q", out)
	}
	if !strings.Contains(out, `\u202ereversed`) || !strings.Contains(out, `"# ::error::forged"`) {
		t.Errorf("the hostile lines are not in the diff, quoted:\n%s", out)
	}
}

// TestMigrateTakesAnEditedOutputForATemplate: migrate leaves out only the
// tool's own unchanged outputs (sealed, or from before seals); a file
// whose header was copied along and whose content was edited since (an
// output turned into a template by hand) is the user's, and its pins are
// rewritten as any template's.
func TestMigrateTakesAnEditedOutputForATemplate(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	body := pinned("as", "1.21.1")
	sealed := string(SealedFile("templates/a.yaml", []byte(template("as", "io.k8s.api.core.v1.LocalObjectReference")), "1.21"))
	header := sealed[:strings.IndexByte(sealed, '\n')+1]
	write(t, dir, "crds/a.yaml", header+body) // the seal is of another body
	write(t, dir, "dist/own.yaml", sealed)    // the tool's own: left out
	m, err := Migrate(dir, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var edited []string
	for _, e := range m.Edits {
		edited = append(edited, filepath.ToSlash(e.Path))
	}
	if m.Pins != 1 || !strings.Contains(strings.Join(edited, " "), "crds/a.yaml") {
		t.Fatalf("the edited output's pin was not rewritten: %d pins, edits %v, notes %v", m.Pins, edited, m.Notes)
	}
}
