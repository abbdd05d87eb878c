// Package e2e holds the end-to-end tests of k8s-crd-resolver. They run the
// compiled dist/ CRDs and the reconciler against a real etcd and
// kube-apiserver started by controller-runtime's envtest on 127.0.0.1.
//
// # Control plane
//
// hack/control-plane.sh builds kube-apiserver from the k8s.io/kubernetes Go
// module and etcd (Debian's etcd-server, or go.etcd.io/etcd/server/v3), caches
// them, and prints the directory to export as KUBEBUILDER_ASSETS:
//
//	export KUBEBUILDER_ASSETS="$(hack/control-plane.sh)"
//	go test ./...
//
// # Failing loudly
//
// The tests fail, rather than skip, when KUBEBUILDER_ASSETS is unset or a
// binary is missing: a green run must mean the control plane really ran.
// Only `go test -short` skips them, for the quick unit loop.
//
// # Load run
//
// -load.clusters N (e.g. 200) enables TestLoad, which creates N DaskClusters
// and reports the time to converge and the reconciler's memory.
package e2e
