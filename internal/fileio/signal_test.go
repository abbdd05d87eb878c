package fileio

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The interrupt tests run this test binary again as a child that stages
// a large output and stops in the middle of writing it; the parent then
// signals it for real.
const childEnv = "FILEIO_TEST_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		writeForever(dir)
		return
	}
	if dir := os.Getenv(lockChildEnv); dir != "" {
		holdLock(dir)
		return
	}
	os.Exit(m.Run())
}

// writeForever stages dir/out.yaml, writes 8 MiB into it, says so on
// stdout, and blocks with the write unfinished.
func writeForever(dir string) {
	HandleSignals(os.Exit)
	w := NewWriter(WriterOptions{Root: dir})
	_, err := w.Stage(filepath.Join(dir, "out.yaml"), func(wr io.Writer) error {
		chunk := []byte(strings.Repeat("x", 1<<20))
		for range 8 {
			if _, err := wr.Write(chunk); err != nil {
				return err
			}
		}
		os.Stdout.WriteString("writing\n")
		select {} // the signal arrives mid-write
	})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(3)
	}
}

// startWriter starts the child and waits until it is in the middle of
// its write.
func startWriter(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "writing\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	if n := len(temporaries(t, dir)); n != 1 {
		t.Fatalf("%d temporary files while writing, want 1", n)
	}
	return cmd
}

func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tmp []string
	for _, e := range entries {
		if IsTemp(e.Name()) {
			tmp = append(tmp, e.Name())
		}
	}
	return tmp
}

func TestSignalRemovesTemporaryFile(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := startWriter(t, dir)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if cmd.ProcessState.ExitCode() != tc.code {
				t.Errorf("exit %v, want code %d", err, tc.code)
			}
			if tmp := temporaries(t, dir); len(tmp) > 0 {
				t.Errorf("left behind: %v", tmp)
			}
			if _, err := os.Lstat(filepath.Join(dir, "out.yaml")); err == nil {
				t.Error("the unfinished output was renamed into place")
			}
		})
	}
}

func TestNextRunRemovesLeftoverOfKilledRun(t *testing.T) {
	dir := t.TempDir()
	cmd := startWriter(t, dir)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if n := len(temporaries(t, dir)); n != 1 {
		t.Fatalf("SIGKILL left %d temporary files, want 1 (nothing can remove it then)", n)
	}
	// A live process's temporary file is not a leftover.
	live := filepath.Join(dir, "."+"other.yaml.k8s-crd-resolver-"+strconv.Itoa(os.Getppid())+"-0123456789abcdef.tmp")
	if err := os.WriteFile(live, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	nextRun(t, dir)
	if tmp := temporaries(t, dir); len(tmp) != 1 || !strings.Contains(live, tmp[0]) {
		t.Errorf("temporary files after the next run: %v, want only the live process's", tmp)
	}
}

func TestTempNames(t *testing.T) {
	name := tempName("widget.yaml")
	if pid, ok := TempPID(name); !ok || pid != os.Getpid() {
		t.Errorf("TempPID(%q) = %d, %v", name, pid, ok)
	}
	for _, n := range []string{
		"widget.yaml", ".widget.yaml.tmp-123", ".w.k8s-crd-resolver-12-0123456789abcdeg.tmp", ".w.k8s-crd-resolver-012-0123456789abcdef.tmp",
		"w.k8s-crd-resolver-12-0123456789abcdef.tmp", ".w.k8s-crd-resolver--0123456789abcdef.tmp", ".w.k8s-crd-resolver-12-0123456789abcdef.tmp.x",
	} {
		if IsTemp(n) {
			t.Errorf("IsTemp(%q) = true", n)
		}
	}
}

// The sweep removes only regular files: a directory, a symlink or a FIFO
// that merely carries a dead run's temporary name is somebody else's, and
// a symlink is never followed to what it names.
func TestLeftoverSweepRemovesOnlyRegularFiles(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	pid := strconv.Itoa(dead.Process.Pid) // exited and reaped: gone
	dir, outside := t.TempDir(), t.TempDir()
	name := func(base string) string {
		return filepath.Join(dir, "."+base+".k8s-crd-resolver-"+pid+"-0123456789abcdef.tmp")
	}
	target := filepath.Join(outside, "kept.yaml")
	if err := os.WriteFile(target, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name("file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(name("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name("link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(name("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	nextRun(t, dir)
	if _, err := os.Lstat(name("file")); !os.IsNotExist(err) {
		t.Errorf("the dead run's temporary file is still there (%v)", err)
	}
	for _, kept := range []string{"dir", "link", "fifo"} {
		if _, err := os.Lstat(name(kept)); err != nil {
			t.Errorf("the %s named like a leftover was removed: %v", kept, err)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "kept\n" {
		t.Errorf("the symlink's target: %q, %v", b, err)
	}
}

// nextRun is the next run writing into dir: it stages (and so sweeps) dir,
// writing dir/out.yaml.
func nextRun(t *testing.T, dir string) {
	t.Helper()
	w := NewWriter(WriterOptions{Root: dir, Owned: func([]byte) bool { return true }})
	defer w.Close()
	if _, err := w.WriteFile(filepath.Join(dir, "out.yaml"), func(wr io.Writer) error {
		_, err := wr.Write([]byte("done\n"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
