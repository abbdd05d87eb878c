package cmd

import "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/atomicfile"

// writeFileAtomic writes data to name through a temporary file and a
// rename (see atomicfile.Write), so a failure leaves the old file as it was.
func writeFileAtomic(name string, data []byte) error { return atomicfile.Write(name, data) }
