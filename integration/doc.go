// Package integration holds the workflow tests of k8s-crd-resolver: they
// build the real binaries (the main one and its companions) once, then run
// build, check and validate in temporary git repositories, and run the
// repository's pre-commit hooks with the real pre-commit. It has no
// non-test code.
package integration
