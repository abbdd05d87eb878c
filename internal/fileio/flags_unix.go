//go:build unix

package fileio

import (
	"errors"
	"io/fs"
	"syscall"
)

// readFlags open inputs without blocking on a FIFO and without making a
// terminal the controlling one.
const readFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// noFollow refuses a symlink as the last path element.
const noFollow = syscall.O_NOFOLLOW

// processGone reports whether no process with this pid exists.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// fileID is what os.SameFile compares of fi: its device and inode.
func fileID(fi fs.FileInfo) ([2]uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return [2]uint64{}, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
