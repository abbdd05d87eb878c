package doctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// releaseRefs match a release of this project named where a user would take it for one
// that exists; the first group is the version.
var releaseRefs = []*regexp.Regexp{
	regexp.MustCompile(`k8s-crd-resolver[\w./-]*@(v?\d[^\s"'` + "`" + `]*)`), // go install ...@v1.2.3
	regexp.MustCompile(`k8s-crd-resolver[\w./-]*@(latest)\b`),                // @latest: a release only once one is tagged
	regexp.MustCompile(`\brev:\s*["']?(v\d[^\s"'#]*)`),                       // pre-commit rev: v1.2.3
	regexp.MustCompile(`[?&]ref=(v\d[^\s"'&]*)`),                             // kustomize ?ref=v1.2.3
	regexp.MustCompile(`releases/download/([^/\s]+)/`),                       // release archives
	regexp.MustCompile(`k8s-crd-resolver_(v?\d[^_\s]*)_`),                    // archive names
	regexp.MustCompile(`dask-operator:(v?\d[^\s"'` + "`" + `)]*)`),           // the image
	regexp.MustCompile(`image\.tag=(v?\d[^\s"'` + "`" + `]*)`),               // helm --set
	regexp.MustCompile(`^\s*newTag:\s*["']?([^\s"']+)`),                      // kustomize images
	regexp.MustCompile(`^(?:version|appVersion):\s*["']?(\d[^\s"']*)`),       // Chart.yaml
	regexp.MustCompile(`^\|\s*(v\d+\.\d+\.\d+[^\s|]*)\s*\|`),                 // a table of releases
}

// devVersions name no release on purpose: what the chart and the kustomize base carry
// until the first tag.
var devVersions = []string{"0.0.0-dev", "v0.0.0-dev"}

// releaseProblems lists the lines of text (named name) that name a release not in tags.
// Lines under a "Releasing" heading of docs/developing.md (the procedure) are exempt.
func releaseProblems(name, text string, tags []string) []string {
	var problems []string
	exempt, exemptLevel := false, 0
	for i, line := range strings.Split(text, "\n") {
		if name == "docs/developing.md" && strings.HasPrefix(line, "#") {
			level := len(line) - len(strings.TrimLeft(line, "#"))
			if strings.Contains(strings.ToLower(line), "releasing") {
				exempt, exemptLevel = true, level
			} else if exempt && level <= exemptLevel {
				exempt = false
			}
		}
		if exempt {
			continue
		}
		for _, re := range releaseRefs {
			for _, m := range re.FindAllStringSubmatch(line, -1) {
				v := strings.TrimRight(m[1], ".,;:")
				if strings.Contains(v, "X") || slices.Contains(devVersions, v) {
					continue // a placeholder
				}
				if slices.Contains(tags, v) || slices.Contains(tags, "v"+v) || (v == "latest" && len(tags) > 0) {
					continue
				}
				problems = append(problems, fmt.Sprintf("%s:%d: names release %q, which `git tag` does not list: %s", name, i+1, v, strings.TrimSpace(line)))
			}
		}
	}
	return problems
}

// releaseFiles are the files a user reads for how to install or deploy a release.
func releaseFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", ".pre-commit-hooks.yaml"}
	for _, dir := range []string{"docs", "charts", "deploy", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "crds" {
				return filepath.SkipDir // compiled CRDs
			}
			if ext := filepath.Ext(path); !d.IsDir() && (ext == ".md" || ext == ".yaml" || ext == ".yml" || ext == ".txt" || ext == ".tpl") {
				rel, _ := filepath.Rel(root, path)
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return files
}

// TestReleaseReferences fails when README.md, docs/, the Helm chart, the kustomize base,
// examples/ or .pre-commit-hooks.yaml name a release of this project (go install @version,
// pre-commit rev, kustomize ref, download URL, image tag, chart version) that `git tag`
// does not list; docs/developing.md's release procedure is exempt.
func TestReleaseReferences(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "git", "-C", root, "tag", "--list").Output()
	if err != nil {
		t.Fatalf("git tag: %v", err)
	}
	tags := strings.Fields(string(out))
	files := releaseFiles(t)
	if len(files) < 10 {
		t.Fatalf("only %d files to check: %v", len(files), files)
	}
	for _, name := range files {
		text, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range releaseProblems(name, string(text), tags) {
			t.Error(p)
		}
	}
	t.Logf("checked %d files against %d tag(s)", len(files), len(tags))
}

// TestReleaseProblems: the check catches each way the README once named a release that did
// not exist, and lets placeholders, tags and the procedure through.
func TestReleaseProblems(t *testing.T) {
	bad := `curl -fsSLO https://github.com/k8s-crd-resolver/k8s-crd-resolver/releases/download/v$v/k8s-crd-resolver_${v}_linux_amd64.tar.gz
go install github.com/k8s-crd-resolver/k8s-crd-resolver@latest
go install github.com/k8s-crd-resolver/k8s-crd-resolver/cmd/...@v0.1.0
    rev: v0.1.0            # a tag or commit
**Container image** of the operator: ` + "`ghcr.io/k8s-crd-resolver/dask-operator:v0.1.0`" + `
  --set watchNamespace=analytics --set image.tag=v0.1.0
kubectl apply --server-side -k 'github.com/k8s-crd-resolver/k8s-crd-resolver/deploy?ref=v0.1.0'
| v0.1.0 | 1.16 to 1.37 | 1.37 |
k8s-crd-resolver_0.1.0_linux_amd64.tar.gz
`
	got := releaseProblems("README.md", bad, nil)
	if len(got) != 9 {
		t.Errorf("%d problems, want 9 (one per line):\n%s", len(got), strings.Join(got, "\n"))
	}
	good := `go install github.com/k8s-crd-resolver/k8s-crd-resolver@vX.Y.Z
go install github.com/k8s-crd-resolver/k8s-crd-resolver@latest
    rev: v0.0.9
newTag: v0.0.0-dev
version: 0.0.0-dev
Kubernetes v1.37.2, controller-gen v0.23.0, k8s.io/api v0.37.2
`
	if got := releaseProblems("README.md", good, []string{"v0.0.9"}); len(got) != 0 {
		t.Errorf("false alarms:\n%s", strings.Join(got, "\n"))
	}
	procedure := "# Developing\n## Releasing\nrev: v0.2.0\n### Image\nimage.tag=v0.2.0\n## Next\nrev: v0.2.0\n"
	if got := releaseProblems("docs/developing.md", procedure, nil); len(got) != 1 || !strings.Contains(got[0], ":7:") {
		t.Errorf("the procedure is exempt, the section after it is not: %q", got)
	}
}
