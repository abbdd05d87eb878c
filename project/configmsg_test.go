package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigMessages: every configuration mistake names the key as
// written, its line, and the fix; never a Go type.
func TestConfigMessages(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"alias of a key", "k8sVersion: '1.30'\n", `c.yaml:1: unknown key k8sVersion at the top level; did you mean kubernetesVersion?`},
		{"typo", "kubernetesVerison: '1.30'\n", `did you mean kubernetesVersion?`},
		{"top-level key in a set", "sets:\n- templates: [t/*.yaml]\n  outputs: [dist]\n  failOn: breaking\n", `c.yaml:4: failOn is a top-level key; it cannot be set in sets[0] (move it to the top of the file)`},
		{"set key at the top", "outputs: [dist]\n", `c.yaml:1: outputs belongs in a set (under sets:), not at the top level`},
		{"quoted boolean", "removeDescriptions: \"yes\"\n", `c.yaml:1: removeDescriptions: want true or false (unquoted), not the quoted string "yes"`},
		{"YAML 1.1 boolean word", "serverSideApply: yes\n", `c.yaml:1: serverSideApply: want true or false (unquoted), not "yes"`},
		{"quoted true", "sets:\n- templates: [t/*.yaml]\n  outputs: [dist]\n  allowOutsideRoot: 'true'\n", `c.yaml:4: sets[0].allowOutsideRoot: want true or false (unquoted), not the quoted string "true"`},
		{"null", "serverSideApply: null\n", `c.yaml:1: serverSideApply: want true or false (unquoted), not null; leave the key out for its default`},
		{"null as ~, in a set", "sets:\n- templates: [t/*.yaml]\n  outputs: [dist]\n  serverSideApply: ~\n", `c.yaml:4: sets[0].serverSideApply: want true or false (unquoted), not null (written "~"); leave the key out`},
		{"null as nothing", "kubernetesVersion:\n", `c.yaml:1: kubernetesVersion: want a string or a number, not null (an empty value); leave the key out`},
		{"number as a string", "maxDescriptionLength: '80'\n", `maxDescriptionLength: want a whole number`},
		{"templates not a list", "sets:\n- templates: t/*.yaml\n  outputs: [dist]\n", `sets[0].templates: want a list of strings`},
		{"key twice", "budget: 1MiB\nbudget: 2MiB\n", `c.yaml:2:1: bad input: key "budget" is written twice in this mapping`},
		{"budget above the ceiling", "budget: 8000000000G\n", `budget "8000000000G" is above the ceiling of 64MiB`},
		{"empty output", "sets:\n- templates: [t/*.yaml]\n  outputs: ['']\n", `c.yaml:3: sets[0].outputs[0] is empty`},
		{"output in .git", "sets:\n- templates: [t/*.yaml]\n  outputs: [.git/hooks]\n", `sets[0].outputs[0] ".git/hooks" is inside a .git directory`},
		{"unknown Kubernetes version, at its line", "# pinned\nkubernetesVersion: latest\n", `c.yaml:2: kubernetesVersion "latest": unknown Kubernetes version`},
		{"unknown Kubernetes version of a set", "sets:\n- templates: [t/*.yaml]\n  outputs: [dist]\n  kubernetesVersion: '9.99'\n", `c.yaml:4: sets[0]: kubernetesVersion "9.99"`},
		{"failOn out of its set, at its line", "# gate\nfailOn: breakage\n", `c.yaml:2: failOn "breakage": want "change" or "breaking"`},
		{"fitDescriptions of a set, at its line", "sets:\n- templates: [t/*.yaml]\n  outputs: [dist]\n  fitDescriptions: huge\n", `c.yaml:4: sets[0]: fitDescriptions "huge"`},
		{"control characters in a key are quoted", "\"a\\n::error::b\": 1\n", `unknown key "a\n::error::b"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig("c.yaml", []byte(tc.src))
			require.Error(t, err)
			require.ErrorIs(t, err, ErrConfig)
			require.Contains(t, err.Error(), tc.want)
			require.NotContains(t, err.Error(), "project.")
		})
	}
	for _, ok := range []string{"removeDescriptions: true\nkubernetesVersion: 1.30\nbudget: 64MiB\n", "budget: 1048576\n", ""} {
		c, err := ParseConfig("c.yaml", []byte(ok))
		require.NoError(t, err, ok)
		if ok != "" && ok[0] == 'r' {
			require.Equal(t, "1.30", c.Policy.KubernetesVersion, "an unquoted 1.30 keeps its zero")
		}
	}
}

// TestEmptyGlobs: a glob that matches nothing is an error naming it and
// its line, and nothing is built or removed; --allow-empty accepts it.
func TestEmptyGlobs(t *testing.T) {
	put := func(t *testing.T, path, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	cases := []struct{ name, config, want string }{
		{"a typo in a glob", "sets:\n- templates: [templates/*.yaml]\n  outputs: [dist]\n- templates: [tempaltes/*.yaml]\n  outputs: [chart]\n", `.crd-resolver.yaml:4: sets[1].templates[0] "tempaltes/*.yaml" matches no file; nothing was built or removed`},
		{"a set of shared definitions only", "sets:\n- templates: [templates/*.yaml]\n  outputs: [dist]\n- templates: [defs/*.yaml]\n  outputs: [chart]\n", `.crd-resolver.yaml:4: sets[1] (templates defs/*.yaml) matches no CRD template`},
		{"no configuration and no templates/", "", `no templates: templates/*.yaml (the default without a .crd-resolver.yaml) matches no file`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			put(t, filepath.Join(dir, ".git/HEAD"), "ref: refs/heads/main\n")
			if tc.config != "" {
				put(t, filepath.Join(dir, ConfigFileName), tc.config)
				put(t, filepath.Join(dir, "templates/a.yaml"), "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: as.example.com}\n")
				put(t, filepath.Join(dir, "defs/d.yaml"), "definitions: {}\n")
			}
			_, err := Open(dir, Options{})
			require.ErrorIs(t, err, ErrConfig)
			require.Contains(t, err.Error(), tc.want)
			_, err = Open(dir, Options{AllowEmpty: true})
			require.NoError(t, err)
		})
	}
}

// TestConfigStopsAtTheWorkTree: a configuration above the git work tree
// (in $HOME, /tmp) is never used; outside a work tree only the working
// directory's own is.
func TestConfigStopsAtTheWorkTree(t *testing.T) {
	base := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(base, ConfigFileName), []byte("sets:\n- templates: ['**/*.yaml']\n  outputs: [/tmp]\n"), 0o644))
	repo := filepath.Join(base, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "sub"), 0o755))
	for _, dir := range []string{repo, filepath.Join(repo, "sub"), filepath.Join(base, "plain")} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		got, err := FindConfig(dir)
		require.NoError(t, err)
		require.Empty(t, got, "from %s", dir)
	}
	require.NoError(t, os.WriteFile(filepath.Join(repo, ConfigFileName), []byte("{}\n"), 0o644))
	got, err := FindConfig(filepath.Join(repo, "sub"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(repo, ConfigFileName), got)
}
