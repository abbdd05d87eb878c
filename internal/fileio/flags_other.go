//go:build !unix

package fileio

import "io/fs"

const (
	readFlags = 0
	noFollow  = 0
)

// processGone cannot tell on this system; leftovers are then removed by
// age alone.
func processGone(int) bool { return false }

// fileID: files are compared by os.SameFile alone here.
func fileID(fs.FileInfo) ([2]uint64, bool) { return [2]uint64{}, false }
