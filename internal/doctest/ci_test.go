package doctest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCIDocRunsOnAGitHistory runs the GitHub Actions workflow and the GitLab CI job of
// docs/ci.md (their <!-- file: --> blocks) against a git history built here with the real
// git, with the binaries of this module on PATH in place of the installation step (which
// clones from the network; the test checks that it installs both binaries):
//
//   - GitHub: the pull request's merge commit fetched one commit deep, as actions/checkout
//     does, then every run: step but the installation, with GITHUB_BASE_REF;
//   - GitLab: a full clone of the source branch, then every script: line but the
//     installation's, with CI_MERGE_REQUEST_DIFF_BASE_SHA (the branch point).
//
// A pull request that removes a property (outputs rebuilt and committed, as the hook does)
// fails, naming the change; one that renames a template (its CRD moves to another output
// file) passes, its CRD not reported removed.
func TestCIDocRunsOnAGitHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	blocks, err := pageBlocks("docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	fileBlock := func(name string) string {
		i := slices.IndexFunc(blocks, func(b block) bool { return b.directive == "file" && b.arg == name })
		if i < 0 {
			t.Fatalf("docs/ci.md has no <!-- file: %s --> block", name)
		}
		return blocks[i].body
	}
	var workflow struct {
		On   string `yaml:"on"`
		Jobs map[string]struct {
			Env   map[string]string
			Steps []struct {
				Name, Uses, Run string
			}
		}
	}
	if err := yaml.Unmarshal([]byte(fileBlock(".github/workflows/crds.yaml")), &workflow); err != nil {
		t.Fatal(err)
	}
	var gitlab map[string]struct {
		Variables map[string]string
		Script    []string
	}
	if err := yaml.Unmarshal([]byte(fileBlock(".gitlab-ci.yml")), &gitlab); err != nil {
		t.Fatal(err)
	}
	if workflow.On != "pull_request" || len(workflow.Jobs) != 1 || len(gitlab) != 1 {
		t.Fatalf("want one pull_request job in the workflow and one GitLab job, got %+v and %+v", workflow, gitlab)
	}
	isInstall := func(cmd string) bool { return strings.Contains(cmd, "K8S_CRD_RESOLVER_REF") }
	var github, gitlabScript []string
	var githubEnv []string
	for _, job := range workflow.Jobs {
		for k, v := range job.Env {
			githubEnv = append(githubEnv, k+"="+v)
		}
		installs := 0
		for _, s := range job.Steps {
			switch {
			case s.Run == "":
			case isInstall(s.Run):
				installs++
				if !strings.Contains(s.Run, "go install . ./cmd/...") {
					t.Errorf("the installation step does not install both binaries: %q", s.Run)
				}
			default:
				github = append(github, s.Run)
			}
		}
		if installs != 1 || !slices.ContainsFunc(job.Steps, func(s struct{ Name, Uses, Run string }) bool { return strings.HasPrefix(s.Uses, "actions/checkout@") }) {
			t.Fatalf("the workflow wants one checkout and one installation step: %+v", job.Steps)
		}
	}
	var gitlabEnv []string
	for _, job := range gitlab {
		for k, v := range job.Variables {
			gitlabEnv = append(gitlabEnv, k+"="+v)
		}
		for _, line := range job.Script {
			if !isInstall(line) && !strings.Contains(line, "git clone") {
				gitlabScript = append(gitlabScript, line)
			}
		}
		if job.Variables["GIT_DEPTH"] != "0" {
			t.Errorf("the GitLab job needs a full clone (GIT_DEPTH: \"0\") to hold the branch point")
		}
	}
	if len(github) == 0 || len(gitlabScript) == 0 {
		t.Fatal("no gate command found in docs/ci.md")
	}

	bin := buildBinaries(t)
	tmp := t.TempDir()
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+"/usr/local/bin:/usr/bin:/bin",
		"HOME="+tmp, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=ci", "GIT_AUTHOR_EMAIL=ci@example.com", "GIT_COMMITTER_NAME=ci", "GIT_COMMITTER_EMAIL=ci@example.com")
	run := func(dir string, extra []string, script string) (string, int) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "bash", "-e", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(slices.Clone(env), extra...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	must := func(dir, script string) string {
		t.Helper()
		out, code := run(dir, nil, script)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", script, code, out)
		}
		return out
	}

	// The project's repository: main holds a built template; two pull requests.
	origin, work := filepath.Join(tmp, "origin.git"), filepath.Join(tmp, "work")
	must(tmp, "git init -q --bare -b main origin.git && git init -q -b main work")
	widget := func(props string) string {
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n" +
			"spec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n" +
			"  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n" +
			"        properties:\n          spec: {type: object, properties: {" + props + "}}\n"
	}
	writeFile := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(".crd-resolver.yaml", "kubernetesVersion: \"1.30\"\n")
	writeFile("templates/widget.yaml", widget("color: {type: string}, size: {type: integer}"))
	must(work, "k8s-crd-resolver build --quiet && git add -A && git commit -q -m base && git remote add origin "+origin+" && git push -q origin main")
	// A commit on main after the branch point: the GitLab job must not read it as undone.
	must(work, "git checkout -q -b later && echo '# notes' > NOTES.md && git add -A && git commit -q -m later && git push -q origin later:main && git checkout -q main")

	type pr struct {
		name, change string
		wantCode     int
		want, not    []string
	}
	for i, p := range []pr{
		{"breaking", `sed -i 's/, size: {type: integer}//' templates/widget.yaml`, 1,
			[]string{"dist/widget.yaml:\n  widgets.example.com v1: 1 breaking, 0 compatible", ".spec: -size"}, []string{"crd removed"}},
		{"moved", `git mv templates/widget.yaml templates/gadget.yaml`, 0,
			[]string{"no schema change since"}, []string{"crd removed", "breaking:"}},
	} {
		t.Run(p.name, func(t *testing.T) {
			branch := "pr-" + p.name
			must(work, "git checkout -q -b "+branch+" main && "+p.change+" && k8s-crd-resolver build --quiet && git add -A && git commit -q -m "+p.name+
				" && git push -q origin "+branch)
			// GitHub's merge commit: the base's tip (with the later commit) plus the pull request.
			ref := "refs/pull/" + string(rune('1'+i)) + "/merge"
			must(work, "git fetch -q origin main && git checkout -q --detach FETCH_HEAD && git merge -q --no-ff -m merge "+branch+
				" && git push -q origin HEAD:"+ref+" && git checkout -q main")

			gh := filepath.Join(tmp, "github-"+p.name)
			must(tmp, "git init -q "+gh+" && cd "+gh+" && git remote add origin "+origin+
				" && git fetch -q --no-tags --depth=1 origin +"+ref+":refs/remotes/pull/merge && git checkout -q --detach refs/remotes/pull/merge")
			if out, _ := run(gh, nil, "git rev-parse --is-shallow-repository"); strings.TrimSpace(out) != "true" {
				t.Fatalf("the GitHub checkout is not shallow: %s", out)
			}
			check(t, "GitHub", run, gh, append(slices.Clone(githubEnv), "GITHUB_BASE_REF=main"), github, p.wantCode, p.want, p.not)

			gl := filepath.Join(tmp, "gitlab-"+p.name)
			must(tmp, "git clone -q --branch "+branch+" "+origin+" "+gl)
			forkPoint := strings.TrimSpace(must(gl, "git merge-base HEAD origin/main"))
			check(t, "GitLab", run, gl, append(slices.Clone(gitlabEnv), "CI_MERGE_REQUEST_DIFF_BASE_SHA="+forkPoint, "CI_PIPELINE_SOURCE=merge_request_event"),
				gitlabScript, p.wantCode, p.want, p.not)
		})
	}
}

// check runs the commands of a CI job in order; the last (the gate) must exit wantCode
// and print each of want and none of not, the others 0.
func check(t *testing.T, ci string, run func(string, []string, string) (string, int), dir string, env, cmds []string, wantCode int, want, not []string) {
	t.Helper()
	for i, c := range cmds {
		out, code := run(dir, env, c)
		last := i == len(cmds)-1
		if !last {
			if code != 0 {
				t.Fatalf("%s: %s: exit %d\n%s", ci, c, code, out)
			}
			continue
		}
		t.Logf("%s: %s: exit %d\n%s", ci, c, code, out)
		if code != wantCode {
			t.Errorf("%s: %s: exit %d, want %d\n%s", ci, c, code, wantCode, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the gate's output lacks %q:\n%s", ci, w, out)
			}
		}
		for _, n := range not {
			if strings.Contains(out, n) {
				t.Errorf("%s: the gate's output holds %q:\n%s", ci, n, out)
			}
		}
	}
}
