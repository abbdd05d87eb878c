package fileio

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"
)

// lockChildEnv makes the test binary a child that locks the directory it
// names (holdLock).
const lockChildEnv = "FILEIO_TEST_LOCK_DIR"

// holdLock locks dir, says so on stdout, and blocks holding it.
func holdLock(dir string) {
	if _, err := LockDir(dir, dir, false, os.Stderr); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(3)
	}
	os.Stdout.WriteString("locked\n")
	for {
		time.Sleep(time.Hour) // a bare select{} is a deadlock the runtime ends
	}
}

// startHolder starts a child holding the lock on dir.
func startHolder(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("flock and /proc/locks: Linux")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	return cmd
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLockDirWaits: a second build of a locked directory says once that
// it waits, naming the holder's pid, and goes on as soon as the holder
// ends.
func TestLockDirWaits(t *testing.T) {
	dir := t.TempDir()
	holder := startHolder(t, dir)
	var said syncBuffer
	got := make(chan error, 1)
	go func() {
		l, err := LockDir(dir, "proj", false, &said)
		l.Unlock()
		got <- err
	}()
	want := fmt.Sprintf("waiting for another k8s-crd-resolver build of proj (pid %d) ...\n", holder.Process.Pid)
	deadline := time.Now().Add(10 * time.Second)
	for said.String() == "" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if said.String() != want {
		t.Fatalf("said %q, want %q", said.String(), want)
	}
	select {
	case err := <-got:
		t.Fatalf("locked while the holder lives (%v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	holder.Process.Kill()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting after the holder ended")
	}
	if said.String() != want {
		t.Errorf("said %q, want it once", said.String())
	}
}

// TestLockDiesWithItsProcess: a run killed while holding the lock leaves
// none behind: the next one takes it without waiting. Shared locks (check)
// do not wait for each other; an exclusive one waits for them.
func TestLockDiesWithItsProcess(t *testing.T) {
	dir := t.TempDir()
	holder := startHolder(t, dir)
	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	var said syncBuffer
	l, err := LockDir(dir, "proj", false, &said)
	if err != nil {
		t.Fatal(err)
	}
	if said.String() != "" {
		t.Errorf("waited for a dead process: %q", said.String())
	}
	l.Unlock()
	l.Unlock() // twice: nothing

	a, err := LockDir(dir, "proj", true, &said)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LockDir(dir, "proj", true, &said)
	if err != nil {
		t.Fatal(err)
	}
	if said.String() != "" {
		t.Errorf("a shared lock waited for another: %q", said.String())
	}
	a.Unlock()
	b.Unlock()
	if _, err := LockDir(dir+"/missing", "missing", false, &said); err == nil {
		t.Error("locked a directory that does not exist")
	}
}
