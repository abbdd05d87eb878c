// Package e2e holds the end-to-end tests of the Dask operator. They run the
// compiled CRDs (operator/crds: dist/'s with Kubernetes' descriptions) and the reconciler
// against a real etcd and kube-apiserver started by controller-runtime's
// envtest on 127.0.0.1.
//
// # Control plane
//
// hack/control-plane.sh builds kube-apiserver and kube-controller-manager
// from the k8s.io/kubernetes Go module and etcd (Debian's etcd-server, or
// go.etcd.io/etcd/server/v3), caches them, and prints the directory to export
// as KUBEBUILDER_ASSETS:
//
//	export KUBEBUILDER_ASSETS="$(../hack/control-plane.sh)"   # in operator/
//	go test ./...
//
// TestMain starts etcd and kube-apiserver through envtest, and
// kube-controller-manager with only its garbage collector, so that deleting
// a parent really deletes its children. No kubelet or deployment controller
// runs: tests that need a ready scheduler or a finished runner Pod write
// that status themselves.
//
// # Real Dask
//
// The tests named *RealScheduler and TestIdleTimeoutUnsupported run a real
// dask-scheduler, dask-workers and a Dask client (testdata/dask_client.py)
// from Debian's python3-distributed on 127.0.0.1, in place of the pods no
// kubelet runs here: the scheduler process gets the env the operator wrote
// into the scheduler Deployment, and each worker Deployment is one
// dask-worker process named by its DASK_WORKER_NAME, stopped when the
// Deployment goes (daskproc_test.go explains the mapping). Without
// python3-distributed they skip, except when K8S_CRD_RESOLVER_CI or CI is
// set (.ci/run sets the first), where they fail.
//
// # Failing loudly
//
// The tests fail, rather than skip, when KUBEBUILDER_ASSETS is unset or a
// binary is missing: a green run must mean the control plane really ran.
// Only `go test -short` skips them, for the quick unit loop.
//
// The compiler's own acceptance tests against the real apiserver (schema
// updates, size limits, the custom-resource corpus, kubectl and fitted
// descriptions) are the root module's, in integration/.
//
// # Switching from Dask's operator
//
// TestInPlaceSwitch (switch_test.go) runs its own etcd and kube-apiserver,
// creates the CRDs as an older operator left them (the templates compiled
// at --k8s-version 1.21, field manager helm), stores Dask-shaped objects,
// then starts k8s-crd-resolver-reconcile: the CRDs become exactly ours and
// every stored object reconciles and accepts label and spec updates.
//
// # Hostile schedulers
//
// TestHostileSchedulers (hostile_test.go) puts stand-in schedulers on
// 127.0.0.1 that redirect, answer too much or too slowly, or sit behind an
// ExternalName Service, and checks that none is trusted and that other
// clusters go on meanwhile.
//
// # Load run
//
// -load.clusters N (e.g. 200) enables TestLoad, which runs the reconciler as
// its own process (k8s-crd-resolver-reconcile), creates N DaskClusters, and
// reports the time to converge and the reconciler's resident memory:
//
//	go test ./e2e -run TestLoad -load.clusters 200 -v
package e2e
