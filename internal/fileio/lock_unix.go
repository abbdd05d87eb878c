//go:build unix

package fileio

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// dirFlag opens a directory, and only a directory.
const dirFlag = syscall.O_DIRECTORY

func lockHow(shared bool) int {
	if shared {
		return syscall.LOCK_SH
	}
	return syscall.LOCK_EX
}

// tryLock takes the lock without waiting; held is false when another
// process holds it.
func tryLock(f *os.File, shared bool) (held bool, err error) {
	err = flock(f, lockHow(shared)|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func waitLock(f *os.File, shared bool) error {
	return flock(f, lockHow(shared))
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// lockHolder returns the pid of a process holding a flock on f's file, as
// Linux's /proc/locks lists it; 0 when it cannot tell.
func lockHolder(f *os.File) int {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	id := fmt.Sprintf("%02x:%02x:%d", major, minor, uint64(st.Ino))
	locks, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer locks.Close()
	// "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF"; a waiter's line
	// carries "->" after the number.
	sc := bufio.NewScanner(locks)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != id {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 && pid != os.Getpid() {
			return pid
		}
	}
	return 0
}
