package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCompanionGetsSignals: SIGTERM (or Ctrl-C) sent to `k8s-crd-resolver
// validate` reaches the companion process, which can then shut down
// cleanly; none is left running.
func TestCompanionGetsSignals(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "k8s-crd-resolver")
	data, err := os.ReadFile(filepath.Join(binDir, "k8s-crd-resolver"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, data, 0o755); err != nil {
		t.Fatal(err)
	}
	started, stopped := filepath.Join(dir, "started"), filepath.Join(dir, "stopped")
	// A stand-in companion next to the binary, found before any on PATH.
	script := "#!/bin/sh\ntrap 'echo term > " + stopped + "; exit 0' TERM\necho up > " + started + "\nwhile :; do sleep 0.05; done\n"
	if err := os.WriteFile(filepath.Join(dir, "k8s-crd-resolver-validate"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(main, "validate", "-")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, started)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the wrapper did not exit cleanly after the companion did: %v", err)
	}
	if _, err := os.Stat(stopped); err != nil {
		t.Fatal("the companion never got SIGTERM")
	}
}

// waitFor polls for a file the process under test writes; it gives up
// after a generous bound so a broken build fails instead of hanging.
func waitFor(t *testing.T, name string) {
	t.Helper()
	for range 600 {
		if _, err := os.Stat(name); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", name)
}
