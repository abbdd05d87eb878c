package cmd

import (
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// orphanReason says why build removes fs (an orphan), or check calls it
// unexpected (project.OrphanReason): what was said before build removed the
// file, or what the project says now.
func orphanReason(comp *compiled, fs *project.FileStatus) string {
	if r, ok := comp.reasons[fs.Path]; ok {
		return r // said before build removed the file
	}
	return comp.proj.OrphanReason(fs, comp.every)
}
