package cmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"
)

// Companion binaries. A command that needs heavy dependencies (the
// apiserver's validation) lives in a separate binary named
// k8s-crd-resolver-<name>, git- and kubectl-plugin style, so the main binary
// starts fast for the per-file calls of pre-commit and scripts. The main
// binary still parses the command's flags and shows its help; the
// companion gets them passed on.

// modulePath is where `go install` finds the companions.
const modulePath = "github.com/k8s-crd-resolver/k8s-crd-resolver"

// pluginPackage is the package `go install` builds the companion for
// command name from.
func pluginPackage(name string) string { return modulePath + "/cmd/k8s-crd-resolver-" + name }

// errPluginMissing: a companion binary is not installed.
var errPluginMissing = errors.New("companion binary not found")

// quietExit ends the process with this code and prints nothing more: the
// command (or the companion it ran) has already said what went wrong.
type quietExit int

func (q quietExit) Error() string { return fmt.Sprintf("exit status %d", int(q)) }

// pluginName is the file name of the companion for command name.
func pluginName(name string) string {
	n := "k8s-crd-resolver-" + name
	if runtime.GOOS == "windows" {
		n += ".exe"
	}
	return n
}

// findPlugin returns the path of the companion for command name: the one
// next to the running executable (or next to what it links to) first, so
// a bin/ directory stays consistent, then the first on PATH.
func findPlugin(name string) (string, error) {
	file := pluginName(name)
	if exe, err := os.Executable(); err == nil {
		dirs := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, d := range dirs {
			p := filepath.Join(d, file)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(file); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: %s is neither next to this executable nor on PATH; in a checkout of this repository, `make build-cli` builds both binaries into bin/ and `go install . ./cmd/...` installs both into $GOBIN: keep them in one directory, or both on PATH (package %s)", errPluginMissing, file, pluginPackage(name))
}

// runPlugin runs the companion binary k8s-crd-resolver-<name> with args
// and the command's standard streams and returns its exit code as a
// quietExit. When it is missing the command fails with exit code 2 and an
// install hint.
func runPlugin(c *cobra.Command, name string, args []string) error {
	path, err := findPlugin(name)
	if err != nil {
		return err
	}
	p := exec.CommandContext(c.Context(), path, args...)
	p.Stdin, p.Stdout, p.Stderr = c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr()
	// Signals meant for us (a pod's SIGTERM, Ctrl-C) go to the
	// companion, which decides how to stop; we exit when it does.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err = p.Start(); err == nil {
		done := make(chan struct{})
		defer close(done)
		go func() {
			for {
				select {
				case s := <-sigs:
					_ = p.Process.Signal(s)
				case <-done:
					return
				}
			}
		}()
		err = p.Wait()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code > 0 {
			return quietExit(code)
		}
		return fmt.Errorf("%s: %w", path, err) // killed by a signal
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", path, err)
	}
	return nil
}
