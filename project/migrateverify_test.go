package project

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/lineartest"
)

// TestMigrateGlobsTakeOnlyTemplates: beside pinned templates stand a Helm
// template and JSON with comments; the configuration
// migrate writes takes templates by a glob that excludes each file it
// could not read as YAML (with a note), the project opens as written and
// builds exactly the templates.
func TestMigrateGlobsTakeOnlyTemplates(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	write(t, dir, "templates/a.yaml", pinned("as", "1.21.1"))
	write(t, dir, "templates/b.yaml", pinned("bs", "1.21.1"))
	write(t, dir, "templates/deployment.yaml", "{{- include \"op.deployment\" . }}\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n")
	write(t, dir, "templates/settings.json", "// settings\n{\"a\": 1}\n")
	m, err := Migrate(dir, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var config string
	for _, e := range m.Edits {
		if e.Config {
			config = string(e.New)
		}
	}
	if !strings.Contains(config, `"templates/*.yaml"`) || !strings.Contains(config, "exclude:\n      - \"templates/deployment.yaml\"\n") {
		t.Fatalf("the configuration does not glob the templates and exclude the Helm file:\n%s", config)
	}
	if strings.Contains(config, "settings.json") {
		t.Errorf("a .json file no glob takes is excluded:\n%s", config)
	}
	if notes := strings.Join(m.Notes, "\n"); !strings.Contains(notes, "templates/deployment.yaml cannot be read as YAML (a Helm template? a typo?): excluded from the glob templates/*.yaml") {
		t.Errorf("no note on the exclusion: %s", notes)
	}
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	if err := m.Apply(); err != nil {
		t.Fatal(err)
	}
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tpl := range p.Templates {
		names = append(names, tpl.Name)
	}
	if got := strings.Join(names, " "); got != "templates/a.yaml templates/b.yaml" {
		t.Errorf("templates %s", got)
	}
}

// TestMigrateWritesNothingWhenBuildWouldFail: Verify compiles the project
// as the migration leaves it; a pin naming a definition the minor does not
// have fails it, before Apply has rewritten anything.
func TestMigrateWritesNothingWhenBuildWouldFail(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	good := write(t, dir, "templates/a.yaml", pinned("as", "1.21.1"))
	bad := write(t, dir, "templates/b.yaml", template("bs", "python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/io.k8s.api.core.v1.NoSuchThing"))
	m, err := Migrate(dir, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = m.Verify()
	if err == nil || !strings.Contains(err.Error(), "templates/b.yaml") || !strings.Contains(err.Error(), "NoSuchThing") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("got %v, want the compile error of templates/b.yaml", err)
	}
	for _, f := range []string{good, bad} {
		if b, _ := os.ReadFile(f); !strings.Contains(string(b), "python://") {
			t.Errorf("%s was rewritten", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigFileName)); err == nil {
		t.Error("a configuration was written")
	}
}

// TestMigrateRecordsTheMinorChosen: --k8s-version naming the configuration's
// minor while the pins name a newer one is the user's choice: recorded, and
// said, as that minor.
func TestMigrateRecordsTheMinorChosen(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	write(t, dir, "templates/a.yaml", pinned("as", "1.25.0"))
	write(t, dir, ConfigFileName, "kubernetesVersion: \"1.21\"\n")
	m, err := Migrate(dir, MigrateOptions{KubernetesVersion: "1.21"})
	if err != nil || m.Minor != "1.21" {
		t.Fatalf("got %+v, %v", m, err)
	}
}

// TestMigrateLinearWork: migrate's work (allocations) grows linearly in
// the templates and the compiled CRDs beside them (it compared every
// template with every compiled CRD, and every template with every other).
func TestMigrateLinearWork(t *testing.T) {
	if testing.Short() {
		t.Skip("writes thousands of files")
	}
	shape := lineartest.Shape{Name: "templates and their outputs", Start: 150, Gen: func(n int) []byte { return []byte(strconv.Itoa(n)) }}
	lineartest.Check(t, []lineartest.Shape{shape}, func(t *testing.T, src []byte) float64 {
		n, _ := strconv.Atoi(string(src))
		dir := migrateTree(t, n)
		return testing.AllocsPerRun(1, func() {
			if _, err := Migrate(dir, MigrateOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// migrateTree is a repository of n pinned templates, each with its
// compiled CRD in dist/ (as the Python tool left them).
func migrateTree(t *testing.T, n int) string {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	for i := range n {
		plural := fmt.Sprintf("w%ds", i)
		write(t, dir, fmt.Sprintf("templates/w%d.yaml", i), pinned(plural, "1.21.1"))
		write(t, dir, fmt.Sprintf("dist/w%d.yaml", i), strings.Replace(template(plural, "x"), "$ref: x", "type: object", 1))
	}
	return dir
}
