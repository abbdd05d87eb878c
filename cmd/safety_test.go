package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// canary is written outside the project; no run may print it, change it
// or delete it.
const canary = "CANARY-SECRET-7f3a"

// safetyCase is one hostile or careless input. setup prepares proj (a git
// project with templates/widget.yaml and an up-to-date dist/) and outside
// (a sibling directory holding canaries); the command then runs in proj.
// Nothing but the paths in changes may differ afterwards, in either
// directory, and nothing may print the canary.
type safetyCase struct {
	name     string
	root     bool // needs root (mknod)
	setup    func(t *testing.T, proj, outside string)
	args     []string
	wantCode int
	wantMsg  string   // a substring of stderr
	changes  []string // project-relative paths allowed to change
	check    func(t *testing.T, proj, outside string)
}

func TestSafety(t *testing.T) {
	symlink := func(t *testing.T, target, link string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
		require.NoError(t, os.Symlink(target, link))
	}
	put := func(t *testing.T, path, content string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	fifo := func(t *testing.T, path string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, syscall.Mkfifo(path, 0o644))
	}
	sparse := func(t *testing.T, path string, size int64) {
		t.Helper()
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(size))
		require.NoError(t, f.Close())
	}
	evilTemplate := strings.Replace(template, "widgets.example.com", "evils.example.com", 1) + "  # " + canary + "\n"
	build := []string{"build", "--no-validate"}
	check := []string{"check", "--no-validate"}
	cases := []safetyCase{
		// Reads: type, size and confinement for every input kind.
		{name: "config is a symlink to /dev/zero", setup: func(t *testing.T, p, _ string) {
			symlink(t, "/dev/zero", filepath.Join(p, ".crd-resolver.yaml"))
		}, args: build, wantCode: 2, wantMsg: "leads outside the project root"},
		{name: "config is a FIFO", setup: func(t *testing.T, p, _ string) {
			fifo(t, filepath.Join(p, ".crd-resolver.yaml"))
		}, args: check, wantCode: 2, wantMsg: "is a FIFO (named pipe), not a regular file"},
		{name: "config is a device node", root: true, setup: func(t *testing.T, p, _ string) {
			require.NoError(t, syscall.Mknod(filepath.Join(p, ".crd-resolver.yaml"), syscall.S_IFCHR|0o644, 1<<8|5))
		}, args: build, wantCode: 2, wantMsg: "is a character device, not a regular file"},
		{name: "config is a symlink out of the project", setup: func(t *testing.T, p, o string) {
			symlink(t, filepath.Join(o, "secret.txt"), filepath.Join(p, ".crd-resolver.yaml"))
		}, args: check, wantCode: 2, wantMsg: "leads outside the project root"},
		{name: "sibling patch is a symlink to /dev/zero", setup: func(t *testing.T, p, _ string) {
			symlink(t, "/dev/zero", filepath.Join(p, "templates/widget.patch.yaml"))
		}, args: build, wantCode: 2, wantMsg: "widget.patch.yaml leads outside the project root"},
		{name: "sibling patch is a FIFO", setup: func(t *testing.T, p, _ string) {
			fifo(t, filepath.Join(p, "templates/widget.patch.yaml"))
		}, args: build, wantCode: 2, wantMsg: "is a FIFO (named pipe), not a regular file"},
		{name: "sibling patch is a dangling symlink", setup: func(t *testing.T, p, _ string) {
			symlink(t, "nowhere.yaml", filepath.Join(p, "templates/widget.patch.yaml"))
		}, args: build, wantCode: 2, wantMsg: "is a symbolic link to nowhere.yaml, which does not exist"},
		{name: "-j patch is a symlink to a secret", setup: func(t *testing.T, p, o string) {
			symlink(t, filepath.Join(o, "secret.txt"), filepath.Join(p, "fix.patch.yaml"))
		}, args: []string{"resolve", "templates/widget.yaml", "-j", "fix.patch.yaml"}, wantCode: 2, wantMsg: "fix.patch.yaml leads outside the project root"},
		{name: "template is a symlink out of the project", setup: func(t *testing.T, p, o string) {
			put(t, filepath.Join(o, "evil.yaml"), evilTemplate)
			symlink(t, filepath.Join(o, "evil.yaml"), filepath.Join(p, "templates/evil.yaml"))
		}, args: build, wantCode: 2, wantMsg: "templates/evil.yaml leads outside the project root"},
		{name: "template matched by the glob is a FIFO", setup: func(t *testing.T, p, _ string) {
			fifo(t, filepath.Join(p, "templates/x.yaml"))
		}, args: build, wantCode: 2, wantMsg: "templates/x.yaml is a FIFO"},
		{name: "template matched by the glob is 100 MiB", setup: func(t *testing.T, p, _ string) {
			sparse(t, filepath.Join(p, "templates/data.yaml"), 100<<20)
		}, args: build, wantCode: 2, wantMsg: "templates/data.yaml is larger than the 64 MiB limit"},
		{name: "$ref target is a FIFO", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "templates/widget.yaml"), strings.Replace(template, "io.k8s.api.core.v1.LocalObjectReference", "defs.json#/definitions/X", 1))
			fifo(t, filepath.Join(p, "templates/defs.json"))
		}, args: build, wantCode: 2, wantMsg: "templates/defs.json is a FIFO (named pipe), not a regular file"},
		{name: "$ref target is /dev/zero under --root /", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "ref.yaml"), strings.Replace(template, "io.k8s.api.core.v1.LocalObjectReference", strings.Repeat("../", 30)+"dev/zero#/x", 1))
		}, args: []string{"resolve", "ref.yaml", "--root", "/"}, wantCode: 2, wantMsg: "is a character device, not a regular file"},
		{name: "$ref target is a dangling symlink", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "ref.yaml"), strings.Replace(template, "io.k8s.api.core.v1.LocalObjectReference", "defs.yaml#/definitions/X", 1))
			symlink(t, "gone.yaml", filepath.Join(p, "defs.yaml"))
		}, args: []string{"resolve", "ref.yaml"}, wantCode: 2, wantMsg: "defs.yaml is a symbolic link to gone.yaml, which does not exist"},
		{name: "an 8 GiB file in the output dir is not read whole", setup: func(t *testing.T, p, _ string) {
			sparse(t, filepath.Join(p, "dist/huge.yaml"), 8<<30)
		}, args: build, wantCode: 0},

		// check prints nothing it may not read.
		{name: "check: output is a symlink to a secret", setup: func(t *testing.T, p, o string) {
			require.NoError(t, os.Remove(filepath.Join(p, "dist/widget.yaml")))
			symlink(t, filepath.Join(o, "secret.txt"), filepath.Join(p, "dist/widget.yaml"))
		}, args: check, wantCode: 2, wantMsg: "dist/widget.yaml leads outside the project root"},
		{name: "check: output is a symlink to /proc/self/environ", setup: func(t *testing.T, p, _ string) {
			require.NoError(t, os.Remove(filepath.Join(p, "dist/widget.yaml")))
			symlink(t, "/proc/self/environ", filepath.Join(p, "dist/widget.yaml"))
		}, args: check, wantCode: 2, wantMsg: "leads outside the project root"},
		{name: "check: output is a FIFO", setup: func(t *testing.T, p, _ string) {
			require.NoError(t, os.Remove(filepath.Join(p, "dist/widget.yaml")))
			fifo(t, filepath.Join(p, "dist/widget.yaml"))
		}, args: check, wantCode: 2, wantMsg: "is a FIFO"},

		// Writes.
		// The user's own -o is honoured wherever it points (explicit_test.go
		// has the whole table); a device stays a device.
		{name: "-o /dev/null is written in place", args: []string{"resolve", "templates/widget.yaml", "-o", "/dev/null"}, wantCode: 0,
			check: func(t *testing.T, _, _ string) {
				fi, err := os.Lstat("/dev/null")
				require.NoError(t, err)
				require.NotZero(t, fi.Mode()&fs.ModeCharDevice, "/dev/null is still a device")
			}},
		{name: "-o is a FIFO", setup: func(t *testing.T, p, _ string) {
			fifo(t, filepath.Join(p, "out.yaml"))
		}, args: []string{"resolve", "templates/widget.yaml", "-o", "out.yaml"}, wantCode: 2, wantMsg: "out.yaml is a FIFO (named pipe), not a regular file"},
		{name: "-o is a symlink to a generated file outside", setup: func(t *testing.T, p, o string) {
			symlink(t, filepath.Join(o, "gen.yaml"), filepath.Join(p, "out.yaml"))
		}, args: []string{"resolve", "templates/widget.yaml", "-o", "out.yaml"}, wantCode: 2, wantMsg: "out.yaml is a symbolic link; refusing to write through it"},
		{name: "-o names a directory", args: []string{"resolve", "templates/widget.yaml", "-o", "dist"}, wantCode: 2, wantMsg: "dist is a directory, not a regular file"},
		{name: "DST is SRC", args: []string{"templates/widget.yaml", "templates/widget.yaml"}, wantCode: 2, wantMsg: "is an input of this run"},
		{name: "DST is a hard link to SRC", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "w.yaml"), string(project.SealedFile("w.yaml", []byte(template), "1.30")))
			require.NoError(t, os.Link(filepath.Join(p, "w.yaml"), filepath.Join(p, "out.yaml")))
		}, args: []string{"w.yaml", "out.yaml"}, wantCode: 2, wantMsg: "is an input of this run"},
		{name: "-o over a hand-written file", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "out.yaml"), "mine\n")
		}, args: []string{"resolve", "templates/widget.yaml", "-o", "out.yaml"}, wantCode: 2, wantMsg: "out.yaml was not generated by k8s-crd-resolver"},
		{name: "-o --force takes a hand-written file over", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "out.yaml"), "mine\n")
		}, args: []string{"resolve", "templates/widget.yaml", "-o", "out.yaml", "--force"}, changes: []string{"out.yaml"},
			check: func(t *testing.T, p, _ string) {
				got, err := os.ReadFile(filepath.Join(p, "out.yaml"))
				require.NoError(t, err)
				require.True(t, project.IsGenerated(got), "written with the header: %q", got)
			}},
		{name: "build over a hand-written output", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "dist/widget.yaml"), "mine\n")
		}, args: build, wantCode: 2, wantMsg: "dist/widget.yaml was not generated by k8s-crd-resolver"},
		{name: "build replaces its own output checked out with CRLF", setup: func(t *testing.T, p, _ string) {
			got, err := os.ReadFile(filepath.Join(p, "dist/widget.yaml"))
			require.NoError(t, err)
			put(t, filepath.Join(p, "dist/widget.yaml"), strings.ReplaceAll(string(got), "\n", "\r\n"))
		}, args: build, changes: []string{"dist/widget.yaml"}, check: func(t *testing.T, p, _ string) {
			got, err := os.ReadFile(filepath.Join(p, "dist/widget.yaml"))
			require.NoError(t, err)
			require.NotContains(t, string(got), "\r", "rewritten with LF")
		}},
		{name: "build keeps a file whose header is only a prefix", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "dist/old.yaml"), "# Code generated by k8s-crd-resolver, then edited by hand\n")
		}, args: build, wantCode: 0},
		{name: "output dir is a symlink out of the project", setup: func(t *testing.T, p, o string) {
			require.NoError(t, os.RemoveAll(filepath.Join(p, "dist")))
			symlink(t, o, filepath.Join(p, "dist"))
		}, args: build, wantCode: 2, wantMsg: "dist/widget.yaml leads outside the project root"},
		{name: "configured output outside the project", setup: func(t *testing.T, p, o string) {
			put(t, filepath.Join(p, ".crd-resolver.yaml"), "sets:\n- templates: [templates/*.yaml]\n  outputs: [dist, ../"+filepath.Base(o)+"]\n")
		}, args: build, wantCode: 2, wantMsg: "is outside the project root"},
		{name: "configured output /", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, ".crd-resolver.yaml"), "sets:\n- templates: [templates/*.yaml]\n  outputs: [/]\n")
		}, args: check, wantCode: 2, wantMsg: "is outside the project root"},
		{name: "a second output dir that cannot be written leaves the first untouched", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, ".crd-resolver.yaml"), "sets:\n- templates: [templates/*.yaml]\n  outputs: [dist, chart/crds]\n")
			put(t, filepath.Join(p, "dist/widget.yaml"), string(project.SealedFile("templates/widget.yaml", []byte("old\n"), "1.29")))
			fifo(t, filepath.Join(p, "chart/crds/widget.yaml"))
		}, args: build, wantCode: 2, wantMsg: "chart/crds/widget.yaml is a FIFO"},
		{name: "newline in a template name", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "templates/a\nkind: Evil.yaml"), strings.Replace(template, "widgets.example.com", "as.example.com", 1))
		}, args: build, changes: []string{"dist/a\nkind: Evil.yaml"}, check: func(t *testing.T, p, _ string) {
			got, err := os.ReadFile(filepath.Join(p, "dist/a\nkind: Evil.yaml"))
			require.NoError(t, err)
			first, rest, _ := strings.Cut(string(got), "\n")
			require.True(t, project.IsGeneratedLine([]byte(first)), "one header line: %q", first)
			require.True(t, strings.HasPrefix(rest, "apiVersion: apiextensions.k8s.io/v1\n"), "nothing injected: %q", rest[:40])
		}},
		{name: "a glob that matches the output dir", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, ".crd-resolver.yaml"), "sets:\n- templates: ['**/*.yaml']\n  outputs: [dist]\n")
		}, args: build, wantCode: 0},
		{name: "leftover temp file of a killed run is removed", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "dist/widget.yaml"), string(project.SealedFile("templates/widget.yaml", []byte("old\n"), "1.29")))
			put(t, filepath.Join(p, "dist/.widget.yaml.k8s-crd-resolver-999999999-0123456789abcdef.tmp"), "half")
		}, args: build, changes: []string{"dist/widget.yaml", "dist/.widget.yaml.k8s-crd-resolver-999999999-0123456789abcdef.tmp"}},

		{name: "check leaves a killed run's leftover alone (it writes nothing)", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "dist/.widget.yaml.k8s-crd-resolver-999999999-0123456789abcdef.tmp"), "half")
		}, args: check, wantCode: 0},

		{name: "a $ref blow-up fails the build at its $ref, nothing written", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, "templates/widget.yaml"), strings.Replace(template, "io.k8s.api.core.v1.LocalObjectReference", "'#/definitions/D0'", 1)+refBomb(20, 10))
		}, args: build, wantCode: 2, wantMsg: "budget"},

		// Messages.
		{name: "config key typo", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, ".crd-resolver.yaml"), "kubernetesVerison: '1.30'\n")
		}, args: build, wantCode: 2, wantMsg: "did you mean kubernetesVersion?"},
		{name: "glob syntax error names the config", setup: func(t *testing.T, p, _ string) {
			put(t, filepath.Join(p, ".crd-resolver.yaml"), "sets:\n- templates: ['[abc']\n  outputs: [dist]\n")
		}, args: build, wantCode: 2, wantMsg: ".crd-resolver.yaml: sets[0].templates \"[abc\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("needs root (CI runs as root)")
			}
			base := t.TempDir()
			proj, outside := filepath.Join(base, "proj"), filepath.Join(base, "outside")
			put(t, filepath.Join(proj, ".git/HEAD"), "ref: refs/heads/main\n")
			put(t, filepath.Join(proj, "templates/widget.yaml"), template)
			put(t, filepath.Join(outside, "secret.txt"), canary+"\n")
			put(t, filepath.Join(outside, "gen.yaml"), string(project.SealedFile("templates/gen.yaml", []byte("# "+canary+"\n"), "1.30")))
			_, stderr, code := runCmd(t, proj, "", "build", "--no-validate")
			require.Equal(t, 0, code, stderr)
			if tc.setup != nil {
				tc.setup(t, proj, outside)
			}
			beforeProj, beforeOut := snapshot(t, proj), snapshot(t, outside)

			stdout, stderr, code := runCmd(t, proj, "", tc.args...)
			require.Equal(t, tc.wantCode, code, "stdout: %s\nstderr: %s", stdout, stderr)
			require.Contains(t, stderr, tc.wantMsg)
			require.NotContains(t, stdout+stderr, canary, "a canary was printed")
			afterProj, afterOut := snapshot(t, proj), snapshot(t, outside)
			require.Equal(t, beforeOut, afterOut, "the directory outside the project changed")
			for _, c := range tc.changes {
				delete(beforeProj, c)
				delete(afterProj, c)
			}
			require.Equal(t, beforeProj, afterProj, "the project changed")
			for name := range afterProj {
				if _, ok := beforeProj[name]; !ok {
					require.False(t, fileio.IsTemp(filepath.Base(name)), "temporary file left: %s", name)
				}
			}
			if tc.check != nil {
				tc.check(t, proj, outside)
			}
		})
	}
}

// snapshot describes every entry below dir without following symlinks:
// type, size, and a hash of regular files' content (files over 1 MiB by
// size and modification time only).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			desc += " -> " + target
		case fi.Mode().IsRegular() && fi.Size() <= 1<<20:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			desc += " " + hex.EncodeToString(sum[:8])
		case fi.Mode().IsRegular():
			desc += " " + fi.ModTime().String()
		}
		snap[rel] = desc + " " + strconv.FormatInt(fi.Size(), 10)
		return nil
	})
	require.NoError(t, err)
	return snap
}

// refBomb returns template definitions D0..D(depth-1), each with width
// properties referring to the next: width^depth nodes once expanded.
func refBomb(depth, width int) string {
	var b strings.Builder
	b.WriteString("definitions:\n")
	for d := range depth {
		b.WriteString("  D" + strconv.Itoa(d) + ":\n    type: object\n    properties:\n")
		for w := range width {
			if d == depth-1 {
				b.WriteString("      p" + strconv.Itoa(w) + ": {type: string}\n")
			} else {
				b.WriteString("      p" + strconv.Itoa(w) + ": {$ref: '#/definitions/D" + strconv.Itoa(d+1) + "'}\n")
			}
		}
	}
	return b.String()
}
