package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// cliBinary builds the k8s-crd-resolver binary (the build cache makes it
// quick after the first) for tests that need processes of their own.
func cliBinary(t *testing.T) string {
	t.Helper()
	return filepath.Join(goBuild(t, ".."), "k8s-crd-resolver")
}

// lockProjectFixture is a git work tree of n templates, w0..w(n-1),
// compiled into dist/ by exe.
func lockProjectFixture(t *testing.T, exe string, n int) string {
	t.Helper()
	dir := t.TempDir()
	putFile(t, filepath.Join(dir, ".git/HEAD"), "")
	for i := range n {
		putFile(t, filepath.Join(dir, fmt.Sprintf("templates/w%d.yaml", i)), numbered(i))
	}
	run := exec.Command(exe, "build", "--no-validate")
	run.Dir = dir
	out, err := run.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return dir
}

// numbered is template's CRD under the i-th name.
func numbered(i int) string {
	return strings.NewReplacer("widgets", fmt.Sprintf("widget%ds", i), "Widget", fmt.Sprintf("Widget%d", i)).Replace(template)
}

// renameTemplates renames every template from prefix from to prefix to
// (git mv templates/w0.yaml templates/v0.yaml): each output becomes an
// orphan, its CRD moved.
func renameTemplates(t *testing.T, dir, from, to string, n int) {
	t.Helper()
	for i := range n {
		require.NoError(t, os.Rename(filepath.Join(dir, fmt.Sprintf("templates/%s%d.yaml", from, i)), filepath.Join(dir, fmt.Sprintf("templates/%s%d.yaml", to, i))))
	}
}

// requireOutputs checks that dist/ holds exactly the sealed outputs of the
// templates named prefix0..prefix(n-1), and no temporary file.
func requireOutputs(t *testing.T, dir, prefix string, n int) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "dist"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("%s%d.yaml", prefix, i))
		require.True(t, project.Sealed([]byte(readString(t, filepath.Join(dir, "dist", want[i])))), want[i])
	}
	require.Equal(t, want, names)
}

type run struct {
	cmd    *exec.Cmd
	stderr *safeBuffer
	stdout bytes.Buffer
}

// safeBuffer is a bytes.Buffer read while a process writes it.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startRun(t *testing.T, exe, dir string, args ...string) *run {
	t.Helper()
	r := &run{cmd: exec.CommandContext(t.Context(), exe, args...), stderr: &safeBuffer{}}
	r.cmd.Dir = dir
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, r.stderr
	require.NoError(t, r.cmd.Start())
	return r
}

const waitingMsg = "waiting for another k8s-crd-resolver build of "

// TestBuildsOfOneProjectSerialise: three builds and a --files-only build
// at once after renames (the race that left outputs missing and runs
// failing on an orphan another run removed): each waits for the lock,
// says so, and exits 0; every output is there, no orphan is left.
func TestBuildsOfOneProjectSerialise(t *testing.T) {
	exe := cliBinary(t)
	const n = 4
	dir := lockProjectFixture(t, exe, n)
	renameTemplates(t, dir, "w", "v", n)
	held, err := fileio.LockDir(dir, dir, false, os.Stderr)
	require.NoError(t, err)
	runs := []*run{
		startRun(t, exe, dir, "build", "--no-validate"),
		startRun(t, exe, dir, "build", "--no-validate"),
		startRun(t, exe, dir, "build", "--no-validate"),
		startRun(t, exe, dir, "build", "--no-validate", "--quiet", "--files-only", "templates/v0.yaml"),
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, r := range runs {
		for !strings.Contains(r.stderr.String(), waitingMsg) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		require.Contains(t, r.stderr.String(), waitingMsg+dir+" (pid ", "every run waits for the lock held, and says so")
	}
	requireOutputs(t, dir, "w", n) // nothing moved while the lock is held
	held.Unlock()
	for _, r := range runs {
		require.NoError(t, r.cmd.Wait(), "%v: %s\n%s", r.cmd.Args, r.stdout.String(), r.stderr.String())
	}
	requireOutputs(t, dir, "v", n)
}

// TestBuildsOfOneProjectAtOnce: four builds started together, six rounds
// of renames: every build exits 0 and every round ends with every output
// in place; how many runs waited is logged (the lock's behaviour under
// four parallel builds).
func TestBuildsOfOneProjectAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("24 processes: not in -short")
	}
	exe := cliBinary(t)
	const n = 6
	dir := lockProjectFixture(t, exe, n)
	prefixes := []string{"w", "v"}
	waited := 0
	for round := range 6 {
		from, to := prefixes[round%2], prefixes[(round+1)%2]
		renameTemplates(t, dir, from, to, n)
		var runs []*run
		for range 4 {
			runs = append(runs, startRun(t, exe, dir, "build", "--no-validate", "--quiet"))
		}
		for _, r := range runs {
			require.NoError(t, r.cmd.Wait(), "round %d: %s\n%s", round, r.stdout.String(), r.stderr.String())
			if strings.Contains(r.stderr.String(), waitingMsg) {
				waited++
			}
		}
		requireOutputs(t, dir, to, n)
	}
	t.Logf("4 builds x 6 rounds: %d of 24 runs waited for the lock, all exited 0", waited)
}

// TestFailedDirectoryLeavesOutputs: a directory dropped from outputs that
// cannot be written (its old output there cannot be removed) fails the
// build before any output is replaced: every file is as it was, no
// temporary file is left; once the directory can be written, the build
// succeeds.
func TestFailedDirectoryLeavesOutputs(t *testing.T) {
	dir := sealProject(t, "sets:\n- templates: [templates/*.yaml]\n  outputs: [dist, ro]\n")
	putFile(t, filepath.Join(dir, project.ConfigFileName), "sets:\n- templates: [templates/*.yaml]\n  outputs: [dist]\n")
	putFile(t, filepath.Join(dir, "templates/widget.yaml"), strings.Replace(template, "        type: object\n", "        type: object\n        description: Widgets, documented.\n", 1))
	before := readString(t, filepath.Join(dir, "dist/widget.yaml"))
	readOnly(t, filepath.Join(dir, "ro"))
	stdout, stderr, code := runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 2, code, stdout+stderr)
	require.Contains(t, stderr, "ro/widget.yaml cannot be removed")
	require.Equal(t, before, readString(t, filepath.Join(dir, "dist/widget.yaml")), "dist/ is as it was")
	require.True(t, exists(filepath.Join(dir, "ro/widget.yaml")))
	for _, d := range []string{"dist", "ro"} {
		entries, err := os.ReadDir(filepath.Join(dir, d))
		require.NoError(t, err)
		require.Len(t, entries, 1, "%s: no temporary file left", d)
	}
	writable(t, filepath.Join(dir, "ro"))
	stdout, stderr, code = runCmd(t, dir, "", "build", "--no-validate")
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, "removed ro/widget.yaml")
	require.Contains(t, readString(t, filepath.Join(dir, "dist/widget.yaml")), "Widgets, documented.")
}

// readOnly makes dir refuse renames: its mode without write permission,
// or, for root (whom modes do not stop), the immutable attribute.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("root, and chattr +i fails (%v: %s): no read-only directory here", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

func writable(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(dir, 0o755))
		return
	}
	out, err := exec.Command("chattr", "-i", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
}
