//go:build !unix

package fileio

import "os"

// dirFlag: no flag opens only directories here.
const dirFlag = 0

// Without flock, LockDir takes nothing: runs are not serialised.
func tryLock(*os.File, bool) (bool, error) { return true, nil }

func waitLock(*os.File, bool) error { return nil }

func lockHolder(*os.File) int { return 0 }
