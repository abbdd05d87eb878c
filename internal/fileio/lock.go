package fileio

import (
	"fmt"
	"io"
	"os"
)

// Lock is a lock on a directory, held from LockDir until Unlock or the
// end of the process (the system releases it with the process: a killed
// run never leaves a stale lock behind).
type Lock struct {
	f *os.File
}

// LockDir locks the directory dir (a project's) for one run: exclusively
// (a build, a hook, migrate --write), or shared (a check, which only reads,
// and must not read the outputs while a build replaces them). When another
// process holds it in a conflicting way, LockDir says so once on waiting
// ("waiting for another k8s-crd-resolver build of DIR (pid N) ...", the pid
// when the system tells it) and waits for it. shown names dir in the
// message.
func LockDir(dir, shown string, shared bool, waiting io.Writer) (*Lock, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|dirFlag, 0)
	if err != nil {
		return nil, &Error{Path: shown, Msg: "cannot be locked: " + errText(err), Err: err}
	}
	held, err := tryLock(f, shared)
	if err == nil && !held {
		pid := ""
		if n := lockHolder(f); n > 0 {
			pid = fmt.Sprintf(" (pid %d)", n)
		}
		fmt.Fprintf(waiting, "waiting for another k8s-crd-resolver build of %s%s ...\n", shown, pid)
		err = waitLock(f, shared)
	}
	if err != nil {
		f.Close()
		return nil, &Error{Path: shown, Msg: "cannot be locked: " + errText(err), Err: err}
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. It may be called more than once, and on nil.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Close() // closing the only descriptor releases the lock
	l.f = nil
}
