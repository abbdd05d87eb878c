package cmd

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// lockProject locks the directory of proj for the rest of the command
// (fileio.LockDir): two builds of one project (a hook and a build in
// another terminal, say) run one after the other, the second saying that
// it waits. check takes the lock shared: checks run together, but never
// while a build replaces the outputs. The lock goes with the process
// (and with unlock).
func (f *projectFlags) lockProject(c *cobra.Command, proj *project.Project) error {
	if slices.Contains(f.lockedDirs, proj.Dir) {
		return nil // held already: a second flock of it would wait for this very process
	}
	shown := proj.Shown(proj.Dir)
	if shown == "." || shown == "" {
		shown = proj.Dir // "build of ." says little
	}
	l, err := fileio.LockDir(proj.Dir, shown, c.Name() == "check", c.ErrOrStderr())
	if err != nil {
		return err
	}
	f.locks, f.lockedDirs = append(f.locks, l), append(f.lockedDirs, proj.Dir)
	return nil
}

// unlock releases the locks lockProject took.
func (f *projectFlags) unlock() {
	for _, l := range f.locks {
		l.Unlock()
	}
	f.locks, f.lockedDirs = nil, nil
}
