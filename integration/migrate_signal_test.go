package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestMigrateInterruptedIsAllOrNothing: SIGINT reaching `migrate --write`
// once it has begun to rename (the first rewritten file is seen) leaves
// either every file rewritten and the configuration written, or nothing
// changed: never templates without their pins and no configuration.
func TestMigrateInterruptedIsAllOrNothing(t *testing.T) {
	const n = 2000
	pin := "$ref: python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/io.k8s.api.core.v1.LocalObjectReference"
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	for i := range n {
		write(t, dir, fmt.Sprintf("templates/t%04d.yaml", i), crdTemplate(fmt.Sprintf("t%04ds", i), pin))
	}
	cmd := exec.CommandContext(t.Context(), filepath.Join(binDir, "k8s-crd-resolver"), "migrate", "--write")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	config := filepath.Join(dir, ".crd-resolver.yaml")
	first := filepath.Join(dir, "templates/t0000.yaml")
	var err error
	signalled := false
wait:
	for {
		select {
		case err = <-exited:
			break wait
		default:
		}
		data, _ := os.ReadFile(first)
		_, cfgErr := os.Stat(config)
		if !signalled && (cfgErr == nil || !strings.Contains(string(data), "k8s_crd_resolver")) {
			if err := cmd.Process.Signal(syscall.SIGINT); err == nil {
				signalled = true
			}
		}
		runtime.Gosched()
	}
	t.Logf("signalled: %t; migrate: %v\n%s", signalled, err, out.String())
	rewritten := 0
	for i := range n {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("templates/t%04d.yaml", i)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "k8s_crd_resolver") {
			rewritten++
		}
	}
	_, cfgErr := os.Stat(config)
	switch {
	case rewritten == n && cfgErr == nil:
		t.Log("every file rewritten")
	case rewritten == 0 && cfgErr != nil:
		t.Log("nothing changed")
	default:
		t.Errorf("an interrupted migrate left %d of %d templates rewritten, configuration written: %t", rewritten, n, cfgErr == nil)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, "templates", ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}
