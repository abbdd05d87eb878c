package cmd

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// pythonOutput is a CRD as the Python tool wrote it: no generated header.
const pythonOutput = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
`

// explicitCase is one path the invoking user typed. The command runs in
// proj (a git work tree holding templates/widget.yaml and its patch);
// tmp is a directory in no project (what tempfile.TemporaryDirectory
// gives Dask's hook); other is a second git work tree.
type explicitCase struct {
	name     string
	setup    func(t *testing.T, proj, tmp, other string)
	dir      func(proj, other string) string // where the command runs (default proj)
	args     func(proj, tmp, other string) []string
	wantCode int
	wantMsg  string
	check    func(t *testing.T, proj, tmp, other string)
}

// TestExplicitPaths: paths on the command line are intent. Each is
// honoured wherever it points (a temporary directory, another checkout,
// /dev/null, a pipe, a FIFO), streams are written in place and never
// replaced, and the guards that protect against repository content (no
// symlink placed in a work tree leads out, no special file replaced, no
// input overwritten, ownership) still hold. TestSafety keeps the
// repository-named paths confined.
func TestExplicitPaths(t *testing.T) {
	put := func(t *testing.T, path, content string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	read := func(t *testing.T, path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return string(b)
	}
	generated := func(t *testing.T, path string) {
		t.Helper()
		got := read(t, path)
		require.True(t, project.IsGenerated([]byte(got)), "%s holds a generated CRD: %.80q", path, got)
		require.Contains(t, got, "name: widgets.example.com")
	}
	// pipe returns /proc/self/fd/N of a pipe's write end, and a function
	// returning what was written once the command is done.
	pipe := func(t *testing.T) (string, func() string) {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		got := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(r)
			got <- string(b)
		}()
		t.Cleanup(func() { w.Close(); r.Close() })
		return "/proc/self/fd/" + strconv.Itoa(int(w.Fd())), func() string { w.Close(); return <-got }
	}
	// inputPipe returns /proc/self/fd/N of a pipe holding content, as a
	// process substitution <(...) gives.
	inputPipe := func(t *testing.T, content string) string {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		go func() { w.WriteString(content); w.Close() }()
		t.Cleanup(func() { r.Close() })
		return "/proc/self/fd/" + strconv.Itoa(int(r.Fd()))
	}
	var pipeOut func() string
	legacy := func(dst string) []string {
		return []string{"-r", "-j", "templates/widget.patch.yaml", "templates/widget.yaml", dst}
	}
	cases := []explicitCase{
		{name: "Dask's hook: -r -j PATCH SRC DST with DST in a temporary directory",
			args: func(_, tmp, _ string) []string { return legacy(filepath.Join(tmp, "widget.yaml")) },
			check: func(t *testing.T, _, tmp, _ string) {
				generated(t, filepath.Join(tmp, "widget.yaml"))
				require.Contains(t, read(t, filepath.Join(tmp, "widget.yaml")), "app: widget", "the patch applied")
			}},
		{name: "resolve -o /tmp/crd.yaml",
			args: func(_, tmp, _ string) []string {
				return []string{"resolve", "templates/widget.yaml", "-o", filepath.Join(tmp, "crd.yaml")}
			},
			check: func(t *testing.T, _, tmp, _ string) { generated(t, filepath.Join(tmp, "crd.yaml")) }},
		{name: "another checkout's template into this one",
			dir: func(_, other string) string { return other },
			args: func(proj, _, _ string) []string {
				return []string{"resolve", filepath.Join(proj, "templates/widget.yaml"), "-o", "crds/w.yaml"}
			},
			check: func(t *testing.T, _, _, other string) { generated(t, filepath.Join(other, "crds/w.yaml")) }},
		{name: "SRC /dev/null leaves the device a device",
			args: func(_, _, _ string) []string { return legacy("/dev/null") },
			check: func(t *testing.T, _, _, _ string) {
				fi, err := os.Lstat("/dev/null")
				require.NoError(t, err)
				require.NotZero(t, fi.Mode()&fs.ModeCharDevice)
			}},
		{name: "SRC /dev/fd/N (a pipe, as /dev/stdout is in a pipeline) is written in place",
			args: func(_, _, _ string) []string {
				var path string
				path, pipeOut = pipe(t)
				return legacy(path)
			},
			check: func(t *testing.T, _, _, _ string) {
				got := pipeOut()
				require.True(t, project.IsGenerated([]byte(got)), "%.80q", got)
			}},
		{name: "a FIFO outside the project is written in place and stays a FIFO",
			setup: func(t *testing.T, _, tmp, _ string) {
				require.NoError(t, syscall.Mkfifo(filepath.Join(tmp, "out.fifo"), 0o644))
				got := make(chan string, 1)
				go func() {
					b, _ := os.ReadFile(filepath.Join(tmp, "out.fifo"))
					got <- string(b)
				}()
				pipeOut = func() string { return <-got }
			},
			args: func(_, tmp, _ string) []string { return legacy(filepath.Join(tmp, "out.fifo")) },
			check: func(t *testing.T, _, tmp, _ string) {
				require.True(t, project.IsGenerated([]byte(pipeOut())))
				fi, err := os.Lstat(filepath.Join(tmp, "out.fifo"))
				require.NoError(t, err)
				require.NotZero(t, fi.Mode()&fs.ModeNamedPipe)
			}},
		{name: "a symlink outside any project to a generated file is rewritten in place, the link kept",
			setup: func(t *testing.T, _, tmp, _ string) {
				put(t, filepath.Join(tmp, "target.yaml"), string(project.SealedFile("x.yaml", []byte("old\n"), "1.30")))
				require.NoError(t, os.Symlink(filepath.Join(tmp, "target.yaml"), filepath.Join(tmp, "link.yaml")))
			},
			args: func(_, tmp, _ string) []string { return legacy(filepath.Join(tmp, "link.yaml")) },
			check: func(t *testing.T, _, tmp, _ string) {
				fi, err := os.Lstat(filepath.Join(tmp, "link.yaml"))
				require.NoError(t, err)
				require.NotZero(t, fi.Mode()&fs.ModeSymlink, "still a link")
				generated(t, filepath.Join(tmp, "target.yaml"))
			}},
		{name: "the Python tool's output (same CRD, no header) is replaced without --force",
			setup: func(t *testing.T, _, tmp, _ string) { put(t, filepath.Join(tmp, "widget.yaml"), pythonOutput) },
			args:  func(_, tmp, _ string) []string { return legacy(filepath.Join(tmp, "widget.yaml")) },
			check: func(t *testing.T, _, tmp, _ string) { generated(t, filepath.Join(tmp, "widget.yaml")) }},
		{name: "a hand-written file outside is still refused",
			setup:    func(t *testing.T, _, tmp, _ string) { put(t, filepath.Join(tmp, "notes.yaml"), "mine\n") },
			args:     func(_, tmp, _ string) []string { return legacy(filepath.Join(tmp, "notes.yaml")) },
			wantCode: 2, wantMsg: "notes.yaml was not generated by k8s-crd-resolver",
			check: func(t *testing.T, _, tmp, _ string) {
				require.Equal(t, "mine\n", read(t, filepath.Join(tmp, "notes.yaml")))
			}},
		{name: "a CRD of another name is refused",
			setup: func(t *testing.T, _, tmp, _ string) {
				put(t, filepath.Join(tmp, "widget.yaml"), strings.Replace(pythonOutput, "widgets.example.com", "gadgets.example.com", 1))
			},
			args:     func(_, tmp, _ string) []string { return legacy(filepath.Join(tmp, "widget.yaml")) },
			wantCode: 2, wantMsg: "not a CustomResourceDefinition of the name being written"},
		{name: "a symlink placed in another work tree still does not lead out",
			setup: func(t *testing.T, _, tmp, other string) {
				require.NoError(t, os.Symlink(tmp, filepath.Join(other, "crds")))
			},
			args:     func(_, _, other string) []string { return legacy(filepath.Join(other, "crds/w.yaml")) },
			wantCode: 2, wantMsg: "leads outside the project root",
			check: func(t *testing.T, _, tmp, _ string) { require.NoFileExists(t, filepath.Join(tmp, "w.yaml")) }},
		{name: "DST/ naming a missing directory is an error, not a file",
			args:     func(_, tmp, _ string) []string { return legacy(filepath.Join(tmp, "newdir") + "/") },
			wantCode: 2, wantMsg: "names a directory",
			check: func(t *testing.T, _, tmp, _ string) { require.NoFileExists(t, filepath.Join(tmp, "newdir")) }},
		{name: "DST in a missing directory outside any project",
			args:     func(_, tmp, _ string) []string { return legacy(filepath.Join(tmp, "no/such/widget.yaml")) },
			wantCode: 2, wantMsg: "does not exist"},
		{name: "DST an existing directory outside",
			args:     func(_, tmp, _ string) []string { return legacy(tmp) },
			wantCode: 2, wantMsg: "is a directory"},
		{name: "diff /tmp/old.yaml new.yaml",
			setup: func(t *testing.T, proj, tmp, _ string) {
				put(t, filepath.Join(tmp, "old.yaml"), read(t, filepath.Join(proj, "dist/widget.yaml")))
			},
			args: func(_, tmp, _ string) []string {
				return []string{"diff", filepath.Join(tmp, "old.yaml"), "dist/widget.yaml"}
			}},
		{name: "diff <(git show HEAD:f) f: a pipe is read as a stream",
			args: func(proj, _, _ string) []string {
				return []string{"diff", inputPipe(t, read(t, filepath.Join(proj, "dist/widget.yaml"))), "dist/widget.yaml"}
			}},
		{name: "diff of a device is refused",
			args:     func(_, _, _ string) []string { return []string{"diff", "/dev/zero", "dist/widget.yaml"} },
			wantCode: 2, wantMsg: "is a character device, not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			proj, tmp, other := filepath.Join(base, "proj"), filepath.Join(base, "tmp"), filepath.Join(base, "other")
			put(t, filepath.Join(proj, ".git/HEAD"), "ref: refs/heads/main\n")
			put(t, filepath.Join(other, ".git/HEAD"), "ref: refs/heads/main\n")
			put(t, filepath.Join(proj, "templates/widget.yaml"), template)
			put(t, filepath.Join(proj, "templates/widget.patch.yaml"), "- {op: add, path: /metadata/labels, value: {app: widget}}\n")
			require.NoError(t, os.MkdirAll(tmp, 0o755))
			_, stderr, code := runCmd(t, proj, "", "build", "--no-validate")
			require.Equal(t, 0, code, stderr)
			if tc.setup != nil {
				tc.setup(t, proj, tmp, other)
			}
			dir := proj
			if tc.dir != nil {
				dir = tc.dir(proj, other)
			}
			stdout, stderr, code := runCmd(t, dir, "", tc.args(proj, tmp, other)...)
			require.Equal(t, tc.wantCode, code, "stdout: %s\nstderr: %s", stdout, stderr)
			require.Contains(t, stderr, tc.wantMsg)
			if tc.check != nil {
				tc.check(t, proj, tmp, other)
			}
		})
	}
}

// TestMessages: a mistyped command gets cobra's suggestion instead of
// being read as the Python tool's SRC DST; a patch release above the
// embedded one is a warning naming both.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widget.yaml"), []byte(template), 0o644))
	for _, tc := range []struct {
		args     []string
		wantCode int
		want     string
	}{
		{[]string{"resolv", "widget.yaml"}, 2, `unknown command "resolv" for "k8s-crd-resolver"; did you mean resolve?`},
		{[]string{"biuld"}, 2, `unknown command "biuld" for "k8s-crd-resolver"; did you mean build?`},
		{[]string{"valdiate", "x.yaml"}, 2, `did you mean validate?`},
		{[]string{"frobnicate", "out.yaml"}, 2, `unknown command "frobnicate"`},
		{[]string{"resolve", "widget.yaml", "--k8s-version", "1.30.99", "--no-validate"}, 0, "warning: widget.yaml: Kubernetes 1.30.99 was asked for, but the newest embedded 1.30 release is v1.30."},
		{[]string{"resolve", "widget.yaml", "--k8s-version", "1.30.1", "--no-validate"}, 0, ""},
	} {
		_, stderr, code := runCmd(t, dir, "", tc.args...)
		require.Equal(t, tc.wantCode, code, "%v: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.want, "%v", tc.args)
		if tc.want == "" {
			require.NotContains(t, stderr, "warning", "%v", tc.args)
		}
	}
	// A file that exists is a template, whatever its name.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "resolv"), []byte(template), 0o644))
	_, stderr, code := runCmd(t, dir, "", "resolv", "out.yaml")
	require.Equal(t, 0, code, stderr)
}
